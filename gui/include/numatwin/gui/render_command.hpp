// Headless rendering, `numatwin-gui --render ...`: load a machine, simulate a workload, draw one
// shuffle step (or the whole run, or no run at all) and write a PNG or SVG. Lives in gui_core
// (no widgets) so it runs on the offscreen platform and the tests can call it directly.
//
//   numatwin-gui --render --topology T [--workload shuffle|migration|migration-copy|none]
//                [--algorithm naive|ring|random] [--sync tight|loose] [--threads N]
//                [--placement dense|sparse|CPU-LIST] [--bytes B] [--seed S]
//                [--step K|all] [--width PX] [--height PX] --out FILE.png|FILE.svg
//   numatwin-gui --render --adaptive RUN.json [--width PX] [--height PX] --out FILE.png|FILE.svg
//     (the adaptive view of a `numatwin adaptive ... --json` run: adaptive_timeline.hpp)
//   numatwin-gui --render --allocbench ARRIVALS.json [--width PX] [--height PX] --out FILE.png|FILE.svg
//     (resident memory over time per allocator, `numatwin validate allocbench --arrivals ... --out`:
//     allocator_memory.hpp)
// Exit status: 0 written, 1 bad input (topology, workload, unwritable file), 2 bad command line.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <QTextStream>
#include <filesystem>
#include <string>

#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::gui {

struct RenderRequest {
  std::string topology;       // bundled name or path
  bool simulate = true;       // false for --workload none: the bare machine, capacities only
  std::string workload = "shuffle";
  std::string algorithm = "ring";
  std::string sync = "tight";
  int threads = 0;            // 0: one per core
  std::string placement = "dense";
  double bytes = 12.8e9;
  std::uint64_t seed = 1;
  int step = 0;               // -1: the whole run's mean
  QSize size{1280, 880};
  QString out;
  std::string adaptive_json;  // non-empty: draw this adaptive run's timeline instead of a machine
  std::string allocbench_json;  // non-empty: draw this allocbench --arrivals result's memory over time
};

// Thrown for a bad command line (exit status 2).
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `arguments` include the program name (as QCoreApplication::arguments()). Throws UsageError.
RenderRequest parse_render_arguments(const QStringList& arguments);

// The usage text printed by --help.
QString render_usage();

// Does the work; returns a one-line summary of what was written. Throws model::InputError,
// std::invalid_argument, std::runtime_error for bad input (exit status 1).
QString execute_render(const RenderRequest& request, const std::filesystem::path& topology_dir);

// Both of the above with the exit-status convention; messages go to `err`, the summary to `out`.
int run_render_command(const QStringList& arguments, QTextStream& out, QTextStream& err);

}  // namespace numatwin::gui
