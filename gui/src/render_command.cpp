#include "numatwin/gui/render_command.hpp"

#include <QCommandLineParser>
#include <QFileInfo>
#include <memory>

#include "numatwin/gui/adaptive_timeline.hpp"
#include "numatwin/gui/allocator_memory.hpp"
#include "numatwin/gui/image_export.hpp"
#include "numatwin/gui/interconnect_renderer.hpp"
#include "numatwin/gui/simulation_run.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"

namespace numatwin::gui {
namespace {

struct Options {
  QCommandLineOption render{QStringLiteral("render"), QStringLiteral("Render headless (no window) and exit.")};
  QCommandLineOption topology{QStringLiteral("topology"), QStringLiteral("Bundled machine name or topology file."), QStringLiteral("T")};
  QCommandLineOption workload{QStringLiteral("workload"), QStringLiteral("shuffle, migration, migration-copy, or none (the bare machine)."),
                              QStringLiteral("W"), QStringLiteral("shuffle")};
  QCommandLineOption algorithm{QStringLiteral("algorithm"), QStringLiteral("naive, ring or random."), QStringLiteral("A"), QStringLiteral("ring")};
  QCommandLineOption sync{QStringLiteral("sync"), QStringLiteral("tight or loose."), QStringLiteral("S"), QStringLiteral("tight")};
  QCommandLineOption threads{QStringLiteral("threads"), QStringLiteral("Threads (default: one per core)."), QStringLiteral("N")};
  QCommandLineOption placement{QStringLiteral("placement"), QStringLiteral("dense, sparse or a CPU list."), QStringLiteral("P"),
                               QStringLiteral("dense")};
  QCommandLineOption bytes{QStringLiteral("bytes"), QStringLiteral("Bytes shuffled in all."), QStringLiteral("B"), QStringLiteral("12.8e9")};
  QCommandLineOption seed{QStringLiteral("seed"), QStringLiteral("Seed of the coordinated-random order."), QStringLiteral("S"), QStringLiteral("1")};
  QCommandLineOption step{QStringLiteral("step"), QStringLiteral("Shuffle step to draw, from 0, or 'all' for the whole run's mean."),
                          QStringLiteral("K"), QStringLiteral("0")};
  QCommandLineOption width{QStringLiteral("width"), QStringLiteral("Picture width in pixels."), QStringLiteral("PX"), QStringLiteral("1280")};
  QCommandLineOption height{QStringLiteral("height"), QStringLiteral("Picture height in pixels."), QStringLiteral("PX"), QStringLiteral("880")};
  QCommandLineOption adaptive{QStringLiteral("adaptive"), QStringLiteral("Draw the timeline of a `numatwin adaptive ... --json` run instead of a machine."),
                              QStringLiteral("RUN.json")};
  QCommandLineOption allocbench{QStringLiteral("allocbench"),
                                QStringLiteral("Draw resident memory over time per allocator from `numatwin validate allocbench --arrivals ... --out FILE`."),
                                QStringLiteral("FILE")};
  QCommandLineOption out{QStringLiteral("out"), QStringLiteral("Output file, .png or .svg."), QStringLiteral("FILE")};
  QCommandLineOption help{QStringList{QStringLiteral("h"), QStringLiteral("help")}, QStringLiteral("Show this help.")};

  void add_to(QCommandLineParser& p) const {
    p.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    p.addOptions({render, topology, workload, algorithm, sync, threads, placement, bytes, seed, step, width, height, adaptive, allocbench, out, help});
  }
};

int to_int(const QString& text, const QString& option, int low, int high) {
  bool ok = false;
  const int v = text.toInt(&ok);
  if (!ok || v < low || v > high) {
    throw UsageError(QStringLiteral("--%1 \"%2\": expected an integer from %3 to %4").arg(option, text).arg(low).arg(high).toStdString());
  }
  return v;
}

}  // namespace

QString render_usage() {
  QCommandLineParser parser;
  Options o;
  o.add_to(parser);
  parser.setApplicationDescription(QStringLiteral("numatwin-gui --render: draw a machine's interconnect coloured by the utilisation "
                                                  "of one shuffle step to a PNG or SVG, without a display."));
  return parser.helpText();
}

RenderRequest parse_render_arguments(const QStringList& arguments) {
  QCommandLineParser parser;
  Options o;
  o.add_to(parser);
  if (!parser.parse(arguments)) throw UsageError(parser.errorText().toStdString());
  if (!parser.positionalArguments().isEmpty()) {
    throw UsageError(("unexpected argument \"" + parser.positionalArguments().front() + "\"").toStdString());
  }
  RenderRequest r;
  if (parser.isSet(o.adaptive)) {
    r.adaptive_json = parser.value(o.adaptive).toStdString();
    r.simulate = false;
  }
  if (parser.isSet(o.allocbench)) {
    if (!r.adaptive_json.empty()) throw UsageError("--adaptive and --allocbench draw different views: give one");
    r.allocbench_json = parser.value(o.allocbench).toStdString();
  }
  if (!parser.isSet(o.topology) && r.adaptive_json.empty() && r.allocbench_json.empty()) throw UsageError("--topology is required (a bundled machine name or a topology file)");
  if (!parser.isSet(o.out)) throw UsageError("--out is required (a .png or .svg file)");
  r.topology = parser.value(o.topology).toStdString();
  r.out = parser.value(o.out);
  const QString suffix = QFileInfo(r.out).suffix().toLower();
  if (suffix != QStringLiteral("png") && suffix != QStringLiteral("svg")) {
    throw UsageError(("--out \"" + r.out + "\": expected a file name ending in .png or .svg").toStdString());
  }
  const QString workload = parser.value(o.workload);
  r.simulate = r.adaptive_json.empty() && r.allocbench_json.empty() && workload != QStringLiteral("none");
  r.workload = workload.toStdString();
  r.algorithm = parser.value(o.algorithm).toStdString();
  r.sync = parser.value(o.sync).toStdString();
  r.placement = parser.value(o.placement).toStdString();
  if (parser.isSet(o.threads)) r.threads = to_int(parser.value(o.threads), QStringLiteral("threads"), 1, 1 << 20);
  bool ok = false;
  r.bytes = parser.value(o.bytes).toDouble(&ok);
  if (!ok || !(r.bytes > 0)) throw UsageError(("--bytes \"" + parser.value(o.bytes) + "\": expected a number > 0").toStdString());
  r.seed = parser.value(o.seed).toULongLong(&ok);
  if (!ok) throw UsageError(("--seed \"" + parser.value(o.seed) + "\": expected a non-negative integer").toStdString());
  const QString step = parser.value(o.step);
  r.step = step == QStringLiteral("all") ? -1 : to_int(step, QStringLiteral("step"), 0, 1 << 24);
  r.size = QSize(to_int(parser.value(o.width), QStringLiteral("width"), 200, 8000), to_int(parser.value(o.height), QStringLiteral("height"), 150, 8000));
  if (r.simulate) {
    try {  // names are checked here so a typo is a usage error (2), like the CLI's
      sim::parse_workload_kind(r.workload);
      sim::parse_algorithm(r.algorithm);
      sim::parse_sync(r.sync);
      sim::parse_placement(r.placement);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  return r;
}

QString execute_render(const RenderRequest& request, const std::filesystem::path& topology_dir) {
  if (!request.adaptive_json.empty()) {
    const AdaptiveTimelineView view = read_adaptive_timeline(request.adaptive_json);
    save_picture([&view](QPainter& painter, const QRectF& area) { paint_adaptive_timeline(painter, area, view); }, request.size, request.out,
                 QString::fromStdString(view.title));
    return QStringLiteral("wrote %1 (adaptive timeline of %2: %3 bins, %4 placer decisions, %5x%6)")
        .arg(request.out, QString::fromStdString(view.title))
        .arg(view.bins.size())
        .arg(view.decisions.size())
        .arg(request.size.width())
        .arg(request.size.height());
  }
  if (!request.allocbench_json.empty()) {
    const AllocatorMemoryView view = read_allocator_memory(request.allocbench_json);
    save_picture([&view](QPainter& painter, const QRectF& area) { paint_allocator_memory(painter, area, view); }, request.size, request.out,
                 QStringLiteral("resident memory over time per allocator"));
    QString allocators;
    for (const AllocatorMemoryView::Series& s : view.series)
      allocators += (allocators.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(s.allocator);
    return QStringLiteral("wrote %1 (memory over time of %2 allocators: %3, %4x%5)")
        .arg(request.out)
        .arg(view.series.size())
        .arg(allocators)
        .arg(request.size.width())
        .arg(request.size.height());
  }
  auto topology = std::make_shared<const model::Topology>(model::find_topology(request.topology, topology_dir));
  InterconnectRenderer renderer(topology, layout_topology(*topology));
  RenderOptions options;
  options.title = QString::fromStdString(topology->name) +
                  (topology->description.empty() ? QString() : QStringLiteral("  -  ") + QString::fromStdString(topology->description));
  QString summary;
  if (request.simulate) {
    sim::WorkloadSpec spec;
    spec.kind = sim::parse_workload_kind(request.workload);
    spec.algorithm = sim::parse_algorithm(request.algorithm);
    spec.sync = sim::parse_sync(request.sync);
    spec.threads = request.threads > 0 ? request.threads : topology->total_cores();
    spec.placement = sim::parse_placement(request.placement);
    spec.total_bytes = request.bytes;
    spec.seed = request.seed;
    sim::check_workload(*topology, spec);
    const SimulationRun run = run_simulation(topology, spec);
    if (request.step >= run.step_count()) {
      throw std::invalid_argument("--step " + std::to_string(request.step) + ": this run has steps 0 to " +
                                  std::to_string(run.step_count() - 1));
    }
    const UtilisationFrame frame = frame_for_step(run, request.step);
    renderer.set_colouring(InterconnectColouring::from_frame(run, frame));
    options.subtitle = frame_summary(run, frame);
    summary = frame.caption;
  } else {
    options.subtitle = QStringLiteral("no workload simulated: lanes show each direction's capacity");
    summary = QStringLiteral("machine only");
  }
  renderer.set_options(options);
  save_picture(renderer, request.size, request.out);
  return QStringLiteral("wrote %1 (%2, %3, %4x%5)")
      .arg(request.out, QString::fromStdString(topology->name), summary)
      .arg(request.size.width())
      .arg(request.size.height());
}

int run_render_command(const QStringList& arguments, QTextStream& out, QTextStream& err) {
  RenderRequest request;
  try {
    if (arguments.contains(QStringLiteral("--help")) || arguments.contains(QStringLiteral("-h"))) {
      out << render_usage();
      out.flush();
      return 0;
    }
    request = parse_render_arguments(arguments);
  } catch (const UsageError& e) {
    err << "numatwin-gui --render: " << e.what() << " (see --render --help)\n";
    err.flush();
    return 2;
  }
  try {
    out << execute_render(request, model::topology_dir()) << "\n";
    out.flush();
    return 0;
  } catch (const std::exception& e) {
    err << e.what() << "\n";
    err.flush();
    return 1;
  }
}

}  // namespace numatwin::gui
