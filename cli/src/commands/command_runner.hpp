// The subcommands of numatwin::commands run in-process, for callers other than the binary (the
// Python package): the binary's own CLI11 definitions and callbacks, given the words of a
// command line, with what the command prints to standard output returned as text. So a
// `--json` result is the binary's byte for byte, and bad input fails with the binary's message.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace numatwin::cli {

// A command line the parser refused (unknown option, a value of the wrong type or out of its
// range, a missing required option): CLI11's message, which names the option.
class CommandLineError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// One option of a subcommand, as a caller maps its own arguments onto the command line.
struct CommandOption {
  std::string name;         // long name without "--", or the positional's name
  bool positional = false;  // given without a name, in declaration order
  bool flag = false;        // takes no value
  bool repeatable = false;  // takes several values (or may be given several times)
  bool required = false;
};

// Every subcommand path the runner answers, e.g. {"predict"}, {"check", "published"}.
std::vector<std::vector<std::string>> runnable_commands();

// The options of the subcommand at `path` (e.g. {"topo", "generate"}), --help excluded.
// Throws std::invalid_argument when there is no such subcommand.
std::vector<CommandOption> command_options(const std::vector<std::string>& path);

// Runs one command line (without the program name, e.g. {"predict", "--topology", "x",
// "--json"}) and returns its standard output. Throws CommandLineError when the parser refuses
// the line, and the command's own exception (std::exception; what() is the binary's one-line
// error) when the command fails. Standard output is redirected while the command runs (the
// commands print to std::cout), so calls are serialised.
std::string run_command(const std::vector<std::string>& words);

}  // namespace numatwin::cli
