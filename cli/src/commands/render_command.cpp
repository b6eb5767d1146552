#include "commands/render_command.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace numatwin::cli {
namespace {

// $NUMATWIN_GUI, else the numatwin-gui this build made (when the GUI is built).
std::string gui_binary() {
  if (const char* path = std::getenv("NUMATWIN_GUI"); path != nullptr && *path != '\0') return path;
#ifdef NUMATWIN_GUI_BINARY
  return NUMATWIN_GUI_BINARY;
#else
  return "";
#endif
}

}  // namespace

void register_render_command(CLI::App& app) {
  CLI::App* render = app.add_subcommand(
      "render",
      "Draw the interconnect coloured by utilisation to PNG or SVG, without a display (runs numatwin-gui --render):\n"
      "  numatwin render --topology T [--workload shuffle|migration|migration-copy|none] [--algorithm naive|ring|random]\n"
      "                  [--sync tight|loose] [--threads N] [--placement P] [--bytes B] [--seed S] [--step K|all]\n"
      "                  [--width PX] [--height PX] --out FILE.png|FILE.svg");
  render->allow_extras();
  render->prefix_command();
  render->callback([render] {
    const std::string binary = gui_binary();
    if (binary.empty()) {
      throw std::runtime_error("numatwin render needs numatwin-gui, which this build does not have (configure with NUMATWIN_BUILD_GUI=ON, or set NUMATWIN_GUI)");
    }
    std::vector<std::string> args{binary, "--render"};
    for (const std::string& extra : render->remaining()) args.push_back(extra);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Qt's start-up warnings (no XDG_RUNTIME_DIR on a server) would turn one-line errors into three.
    ::setenv("QT_LOGGING_RULES", "default.warning=false", 0);
    ::execv(binary.c_str(), argv.data());  // returns only on failure
    throw std::runtime_error("cannot run " + binary + ": " + std::strerror(errno));
  });
}

}  // namespace numatwin::cli
