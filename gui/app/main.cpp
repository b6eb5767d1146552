// numatwin-gui: the window, or with --render a headless picture (render_command.hpp).
//
// Window options (all optional), for scripted sessions and screenshots:
//   --topology T          bundled machine name or topology file to open
//   --workload W --algorithm A --sync S --threads N   fill the workload form
//   --strategy S --records N --groups G                 ... and its operator fields
//   --sort-merge-phases merge|all                       the sort-merge join's phases (all: a phase bar)
//   --weights W0,W1,...   what-if weighted interleave, one weight per memory node in file order
//   --run                 simulate at start;  --step K | all   the step to show
//   --compare A,B         simulate with algorithms (or partitioned-aggregation strategies) A and B
//                         into the Compare tab
//   --report FILE         open a validator report
//   --adaptive FILE       open a `numatwin adaptive --json` run in the Adaptive run tab
//   --allocbench FILE     open a `numatwin validate allocbench --arrivals ... --out FILE` result:
//                         memory over time per allocator, in the Validator tab
//   --size WxH            window size;  --ready-file F   written once the requested runs landed
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QGuiApplication>
#include <QTextStream>
#include <QTimer>
#include <cstdio>
#include <cstring>
#include <vector>

#include "main_window.hpp"
#include "numatwin/gui/render_command.hpp"

namespace {

int run_window(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("numatwin-gui"));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("numatwin: see which link burns. With --render: draw headless (see --render --help)."));
  parser.addHelpOption();
  const QCommandLineOption topology(QStringLiteral("topology"), QStringLiteral("Machine to open (bundled name or file)."), QStringLiteral("T"));
  const QCommandLineOption workload(QStringLiteral("workload"), QStringLiteral("shuffle, migration, migration-copy, partitioned-aggregation, count, hash-join or sort-merge-join."), QStringLiteral("W"));
  const QCommandLineOption algorithm(QStringLiteral("algorithm"), QStringLiteral("naive, ring, random or scheduled (the order numatwin designs for the machine)."), QStringLiteral("A"));
  const QCommandLineOption sync(QStringLiteral("sync"), QStringLiteral("tight or loose."), QStringLiteral("S"));
  const QCommandLineOption threads(QStringLiteral("threads"), QStringLiteral("Threads."), QStringLiteral("N"));
  const QCommandLineOption strategy(QStringLiteral("strategy"), QStringLiteral("Partitioned aggregation: shuffle, migration or migration-copy."), QStringLiteral("S"));
  const QCommandLineOption records(QStringLiteral("records"), QStringLiteral("Operators: input tuples, e.g. 1e8."), QStringLiteral("N"));
  const QCommandLineOption groups(QStringLiteral("groups"), QStringLiteral("Operators: distinct keys, e.g. 1e6."), QStringLiteral("G"));
  const QCommandLineOption join_phases(QStringLiteral("sort-merge-phases"), QStringLiteral("Sort-merge join: merge (the merge phase alone) or all (the four phases, with a phase bar)."), QStringLiteral("P"));
  const QCommandLineOption weights(QStringLiteral("weights"), QStringLiteral("Weighted interleave of the operators' data: a weight per memory node, e.g. 1,1,4,4."), QStringLiteral("W,..."));
  const QCommandLineOption run(QStringLiteral("run"), QStringLiteral("Simulate at start."));
  const QCommandLineOption step(QStringLiteral("step"), QStringLiteral("Step to show (from 0) or all."), QStringLiteral("K"));
  const QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("Compare two algorithms (naive,ring) or strategies (shuffle,migration)."), QStringLiteral("A,B"));
  const QCommandLineOption report(QStringLiteral("report"), QStringLiteral("Validator report to open."), QStringLiteral("FILE"));
  const QCommandLineOption adaptive(QStringLiteral("adaptive"), QStringLiteral("numatwin adaptive --json run to open."), QStringLiteral("FILE"));
  const QCommandLineOption allocbench(QStringLiteral("allocbench"), QStringLiteral("numatwin validate allocbench --arrivals ... --out FILE result to open (memory over time)."), QStringLiteral("FILE"));
  const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("Window size WxH."), QStringLiteral("WxH"));
  const QCommandLineOption ready(QStringLiteral("ready-file"), QStringLiteral("File written once the requested runs are shown."), QStringLiteral("F"));
  parser.addOptions({topology, workload, algorithm, sync, threads, strategy, records, groups, join_phases, weights, run, step, compare, report, adaptive, allocbench, size, ready});
  parser.process(app);

  numatwin::gui::MainWindow window;
  if (parser.isSet(size)) {
    const QStringList wh = parser.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2) window.resize(wh[0].toInt(), wh[1].toInt());
  }
  window.move(0, 0);
  window.show();
  if (parser.isSet(topology)) window.open_bundled(parser.value(topology));
  window.set_workload(parser.value(workload), parser.value(algorithm), parser.value(sync), parser.value(threads).toInt());
  window.set_operator(parser.value(strategy), parser.value(records).toDouble(), parser.value(groups).toDouble());
  window.set_sort_merge_phases(parser.value(join_phases));
  if (parser.isSet(weights)) {
    std::vector<int> w;
    for (const QString& part : parser.value(weights).split(QLatin1Char(','))) {
      bool ok = false;
      const int value = part.trimmed().toInt(&ok);
      if (!ok || value < 0 || value > 255) {
        std::fprintf(stderr, "numatwin-gui: --weights \"%s\": expected whole numbers 0..255 separated by commas, got \"%s\"\n",
                     qPrintable(parser.value(weights)), qPrintable(part));
        return 2;
      }
      w.push_back(value);
    }
    window.set_interleave_weights(w);  // before --run: no run to repeat yet
  }
  if (parser.isSet(report)) window.open_validation_report(parser.value(report));
  if (parser.isSet(adaptive)) window.open_adaptive_run(parser.value(adaptive));
  if (parser.isSet(allocbench)) window.open_allocbench_arrivals(parser.value(allocbench));

  int expected = 0;
  if (parser.isSet(run) && window.topology()) {
    window.start_run();
    ++expected;
  }
  if (parser.isSet(compare) && window.topology()) {
    const QStringList ab = parser.value(compare).split(QLatin1Char(','));
    window.start_compare(ab.value(0, QStringLiteral("naive")), ab.value(1, QStringLiteral("ring")));
    expected += 2;
  }
  const QString step_text = parser.value(step);
  const QString ready_path = parser.value(ready);
  auto landed = std::make_shared<int>(0);
  auto finish = [&window, step_text, ready_path, landed, expected] {
    if (*landed < expected) return;
    if (!step_text.isEmpty()) window.show_step(step_text == QStringLiteral("all") ? -1 : step_text.toInt());
    if (!ready_path.isEmpty()) {
      // Give the window a moment to paint the final state before announcing it.
      QTimer::singleShot(700, [ready_path] {
        QFile f(ready_path);
        if (f.open(QIODevice::WriteOnly)) f.write("ready\n");
      });
    }
  };
  window.set_run_finished_callback([landed, finish] {
    ++*landed;
    finish();
  });
  if (expected == 0) finish();
  return QApplication::exec();
}

}  // namespace

#if defined(__SANITIZE_ADDRESS__)
// Sanitizer builds only: fontconfig keeps its configuration for the process's lifetime by
// design; LeakSanitizer would report it at every exit (and fail `numatwin render` in debug).
extern "C" const char* __lsan_default_suppressions();
extern "C" const char* __lsan_default_suppressions() { return "leak:libfontconfig.so\n"; }
#endif

int main(int argc, char** argv) {
  bool render = false;
  for (int i = 1; i < argc; ++i) render = render || std::strcmp(argv[i], "--render") == 0;
  if (render) {
    // No display needed: the offscreen platform unless the caller chose another.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QGuiApplication app(argc, argv);
    QTextStream out(stdout);
    QTextStream err(stderr);
    return numatwin::gui::run_render_command(QGuiApplication::arguments(), out, err);
  }
  return run_window(argc, argv);
}
