// numatwin: one binary, subcommands. Only this file decides exit codes: 0 success, 1 bad
// input or failure (one line on stderr), 2 bad command line.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "commands/adaptive_command.hpp"
#include "commands/advise_command.hpp"
#include "run/allocator_exec.hpp"
#include "commands/check_command.hpp"
#include "commands/check_machines_command.hpp"
#include "commands/flows_command.hpp"
#include "commands/schedule_command.hpp"
#include "commands/weights_command.hpp"
#include "commands/placement_commands.hpp"
#include "commands/render_command.hpp"
#include "commands/sim_commands.hpp"
#include "commands/sweep_command.hpp"
#include "commands/topo_commands.hpp"
#include "commands/validate_commands.hpp"
#include "numatwin/validate/discover/hwloc_export.hpp"

int main(int argc, char** argv) {
  CLI::App app{"numatwin — a calibrated simulation twin of multi-socket NUMA machines"};
  app.set_version_flag("--version", std::string("numatwin ") + NUMATWIN_VERSION);
  app.require_subcommand(1);
  numatwin::cli::register_topo_commands(app, numatwin::validate::hwloc_export_xml);
  numatwin::cli::register_sim_commands(app);
  numatwin::cli::register_sweep_command(app);
  numatwin::cli::register_flows_command(app);
  numatwin::cli::register_weights_command(app);
  numatwin::cli::register_schedule_command(app);
  numatwin::cli::register_placement_commands(app);
  numatwin::cli::register_advise_command(app);
  numatwin::cli::register_adaptive_command(app);
  numatwin::cli::register_render_command(app);
  numatwin::cli::register_validate_commands(app);
  numatwin::cli::register_check_command(app);
  // `check machines` reads the lab machines' mlc files (validate), so the binary adds it: the
  // commands library the Python module shares links no hardware library.
  numatwin::cli::register_check_machines_command(*app.get_subcommand("check"));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; everything else is a usage error.
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const numatwin::cli::ChildExit& child) {
    // The command ran in a child under another allocator; it printed its own output.
    return child.status;
  } catch (const std::exception& e) {
    std::cerr << "numatwin: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
