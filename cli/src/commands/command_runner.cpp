#include "commands/command_runner.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <mutex>
#include <sstream>

#include "commands/check_command.hpp"
#include "commands/flows_command.hpp"
#include "commands/placement_commands.hpp"
#include "commands/sim_commands.hpp"
#include "commands/sweep_command.hpp"
#include "commands/topo_commands.hpp"
#include "commands/weights_command.hpp"

namespace numatwin::cli {
namespace {

// The subcommands of this library, registered as the binary registers them (main.cpp); no
// hwloc here, so `topo export --format hwloc-xml` is refused.
void register_commands(CLI::App& app) {
  app.require_subcommand(1);
  register_topo_commands(app, HwlocXmlWriter{});
  register_sim_commands(app);
  register_sweep_command(app);
  register_flows_command(app);
  register_weights_command(app);
  register_placement_commands(app);
  register_check_command(app);
}

CLI::App* find_subcommand(CLI::App& app, const std::vector<std::string>& path) {
  CLI::App* at = &app;
  for (const std::string& name : path) {
    const std::vector<CLI::App*> subs = at->get_subcommands([&name](CLI::App* s) { return s->get_name() == name; });
    if (subs.empty()) throw std::invalid_argument("no command '" + name + "'");
    at = subs.front();
  }
  return at;
}

void collect_paths(CLI::App& at, std::vector<std::string>& path, std::vector<std::vector<std::string>>& out) {
  const std::vector<CLI::App*> subs = at.get_subcommands([](CLI::App*) { return true; });
  if (subs.empty() && !path.empty()) out.push_back(path);
  for (CLI::App* s : subs) {
    path.push_back(s->get_name());
    collect_paths(*s, path, out);
    path.pop_back();
  }
}

// Points std::cout at a string for its lifetime.
class CapturedStdout {
 public:
  CapturedStdout() : previous_(std::cout.rdbuf(text_.rdbuf())) {}
  ~CapturedStdout() { std::cout.rdbuf(previous_); }
  CapturedStdout(const CapturedStdout&) = delete;
  CapturedStdout& operator=(const CapturedStdout&) = delete;
  [[nodiscard]] std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::streambuf* previous_;
};

}  // namespace

std::vector<std::vector<std::string>> runnable_commands() {
  CLI::App app;
  register_commands(app);
  std::vector<std::string> path;
  std::vector<std::vector<std::string>> out;
  collect_paths(app, path, out);
  return out;
}

std::vector<CommandOption> command_options(const std::vector<std::string>& path) {
  CLI::App app;
  register_commands(app);
  const CLI::App* command = find_subcommand(app, path);
  std::vector<CommandOption> out;
  for (const CLI::Option* o : command->get_options()) {
    if (o->get_lnames().empty() && !o->get_positional()) continue;  // -h/--help has lnames; none other is short-only
    if (o->get_name() == "--help" || o->get_name() == "-h,--help") continue;
    CommandOption option;
    option.positional = o->get_lnames().empty();
    option.name = option.positional ? o->get_name(true) : o->get_lnames().front();
    if (option.name == "help") continue;
    option.flag = o->get_expected_max() == 0;
    option.repeatable = o->get_items_expected_max() > 1;
    option.required = o->get_required();
    out.push_back(option);
  }
  return out;
}

std::string run_command(const std::vector<std::string>& words) {
  // std::cout is the process's one standard output: one command at a time may redirect it.
  static std::mutex stdout_redirect;
  const std::lock_guard<std::mutex> lock(stdout_redirect);
  CLI::App app{"numatwin"};
  register_commands(app);
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 consumes the vector from its back
  const CapturedStdout captured;
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    throw CommandLineError(e.what());
  }
  return captured.text();
}

}  // namespace numatwin::cli
