// numatwin._core: the numatwin::commands library for Python. Three functions, all plain data:
// the commands it answers, one command's options, and run(words) -> (status, text), where the
// text is what the binary would print (status 0) or its one-line error (else). The GIL is
// released while a command runs. The Python package (numatwin/) turns keyword arguments into
// the words and the text into objects and exceptions.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <exception>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "commands/command_runner.hpp"

namespace nb = nanobind;

namespace {

// Status of run(): how the Python side raises.
enum Status : int { kOk = 0, kCommandLine = 1, kInvalidInput = 2, kFailed = 3 };

std::tuple<int, std::string> run(const std::vector<std::string>& words) {
  const nb::gil_scoped_release release;
  try {
    return {kOk, numatwin::cli::run_command(words)};
  } catch (const numatwin::cli::CommandLineError& e) {
    return {kCommandLine, e.what()};
  } catch (const std::invalid_argument& e) {
    return {kInvalidInput, e.what()};
  } catch (const std::exception& e) {
    return {kFailed, e.what()};
  }
}

std::vector<std::tuple<std::string, bool, bool, bool, bool>> options(const std::vector<std::string>& path) {
  std::vector<std::tuple<std::string, bool, bool, bool, bool>> out;
  for (const numatwin::cli::CommandOption& o : numatwin::cli::command_options(path)) {
    out.emplace_back(o.name, o.positional, o.flag, o.repeatable, o.required);
  }
  return out;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "numatwin's commands in-process (use the numatwin package, not this module)";
  m.def("commands", &numatwin::cli::runnable_commands, "Every command path the module runs");
  m.def("options", &options, nb::arg("path"),
        "A command's options: (name, positional, flag, repeatable, required) each");
  m.def("run", &run, nb::arg("words"),
        "Runs one command line; returns (status, text): 0 and its standard output, 1 a refused command "
        "line, 2 invalid input, 3 another failure, each with the one-line message");
}
