// A bad or unreadable file is an error with a message, never a crash: topologies, validator
// reports, and the headless render command (exit 1 for bad input, 2 for a bad command line).
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>
#include <QTextStream>

#include "gui_test_support.hpp"
#include "numatwin/gui/render_command.hpp"
#include "numatwin/gui/table_models.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "numatwin/gui/validation_report.hpp"
#include "numatwin/model/input_error.hpp"

namespace numatwin::gui {
namespace {

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(text);
  return path;
}

struct Outcome {
  int status;
  QString out;
  QString err;
};

Outcome render(QStringList args) {
  args.prepend(QStringLiteral("--render"));
  args.prepend(QStringLiteral("numatwin-gui"));
  QString out_text, err_text;
  QTextStream out(&out_text), err(&err_text);
  const int status = run_render_command(args, out, err);
  out.flush();
  err.flush();
  return {status, out_text, err_text};
}

TEST(BadInputTest, BadTopologyFilesThrowInputErrors) {
  QTemporaryDir dir;
  const std::filesystem::path d = dir.path().toStdString();
  const QString truncated = write(dir, QStringLiteral("truncated.json"), "{\"format_version\": 1, \"name\": ");
  const QString zero = write(dir, QStringLiteral("zero.json"), "[]");
  EXPECT_THROW(model::find_topology(truncated.toStdString(), d), model::InputError);
  EXPECT_THROW(model::find_topology(zero.toStdString(), d), model::InputError);
  EXPECT_THROW(model::find_topology("no-such-machine", NUMATWIN_TOPOLOGY_DIR), std::runtime_error);
  EXPECT_EQ(model::find_topology("nehalem-ex-4s", NUMATWIN_TOPOLOGY_DIR).name, "nehalem-ex-4s");
  // A broken link bandwidth names the field.
  std::string text = model::topology_to_json_text(*testing::load_bundled("nehalem-ex-4s"));
  text.replace(text.find("10.9"), 4, "-1.0");
  const QString broken = write(dir, QStringLiteral("broken.json"), QByteArray::fromStdString(text));
  try {
    model::find_topology(broken.toStdString(), d);
    FAIL() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/links/0/bandwidth_per_direction_gbps"), std::string::npos) << e.what();
  }
}

TEST(BadInputTest, RenderCommandWritesPngAndSvg) {
  testing::gui_app();
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("naive0.png"));
  const Outcome o = render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--workload"), QStringLiteral("shuffle"),
                            QStringLiteral("--algorithm"), QStringLiteral("naive"), QStringLiteral("--threads"), QStringLiteral("32"),
                            QStringLiteral("--step"), QStringLiteral("0"), QStringLiteral("--out"), png});
  EXPECT_EQ(o.status, 0) << o.err.toStdString();
  EXPECT_TRUE(o.out.contains(QStringLiteral("step 0"))) << o.out.toStdString();
  EXPECT_EQ(QImage(png).size(), QSize(1280, 880));
  const QString svg = dir.filePath(QStringLiteral("bare.svg"));
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("skylake-4114-2s"), QStringLiteral("--workload"), QStringLiteral("none"),
                    QStringLiteral("--out"), svg})
                .status,
            0);
  EXPECT_TRUE(QFile::exists(svg));
}

TEST(BadInputTest, RenderCommandExitCodes) {
  testing::gui_app();
  QTemporaryDir dir;
  const QString out = dir.filePath(QStringLiteral("x.png"));
  const QString bad = write(dir, QStringLiteral("bad.json"), "not json at all");
  // Bad command lines: 2.
  EXPECT_EQ(render({QStringLiteral("--out"), out}).status, 2);                                                        // no --topology
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s")}).status, 2);                       // no --out
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--out"), dir.filePath("x.gif")}).status, 2);
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--algorithm"), QStringLiteral("bogus"),
                    QStringLiteral("--out"), out})
                .status,
            2);
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--step"), QStringLiteral("x"),
                    QStringLiteral("--out"), out})
                .status,
            2);
  // Bad input: 1, with the file named.
  const Outcome o = render({QStringLiteral("--topology"), bad, QStringLiteral("--out"), out});
  EXPECT_EQ(o.status, 1);
  EXPECT_TRUE(o.err.contains(QStringLiteral("bad.json"))) << o.err.toStdString();
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--threads"), QStringLiteral("999"),
                    QStringLiteral("--out"), out})
                .status,
            1);
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--threads"), QStringLiteral("4"),
                    QStringLiteral("--step"), QStringLiteral("99"), QStringLiteral("--out"), out})
                .status,
            1);
  EXPECT_EQ(render({QStringLiteral("--topology"), QStringLiteral("nehalem-ex-4s"), QStringLiteral("--workload"), QStringLiteral("none"),
                    QStringLiteral("--out"), QStringLiteral("/nonexistent-dir/x.png")})
                .status,
            1);
  EXPECT_FALSE(QFile::exists(out));
  EXPECT_EQ(render({QStringLiteral("--help")}).status, 0);
}

TEST(ValidationReportTest, ReadsTheDocumentedShape) {
  const QByteArray text = R"({
    "format": "numatwin-validation-report", "format_version": 1, "machine": "nehalem-ex-4s", "host": "lab-1",
    "kernels": [
      {"id": "shuffle-ring-tight-32", "workload": "shuffle", "algorithm": "ring", "sync": "tight", "threads": 32,
       "predicted_gbps": 69.8, "measured_gbps": 64.0,
       "links": [{"link": "s0->s1", "predicted_gbps": 10.9, "measured_gbps": 9.8},
                 {"link": "s1->s0", "predicted_gbps": 10.9, "measured_gbps": null, "not_measured": "no uncore counters"}]},
      {"id": "shuffle-naive-tight-32", "workload": "shuffle", "threads": 32, "predicted_gbps": 24.7,
       "not_measured": "kernel skipped: not enough memory"}
    ]})";
  const ValidationReport r = parse_validation_report(text, QStringLiteral("report.json"));
  EXPECT_EQ(r.machine, QStringLiteral("nehalem-ex-4s"));
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_NEAR(*r.kernels[0].relative_error(), (69.8 - 64.0) / 64.0, 1e-12);
  ASSERT_EQ(r.kernels[0].links.size(), 2u);
  EXPECT_FALSE(r.kernels[0].links[1].measured_gbps.has_value());
  EXPECT_EQ(r.kernels[0].links[1].not_measured, QStringLiteral("no uncore counters"));
  EXPECT_FALSE(r.kernels[1].measured_gbps.has_value());

  ReportTableModel model;
  model.set_report(r);
  EXPECT_EQ(model.rowCount(), 2);
  EXPECT_EQ(model.data(model.index(0, ReportTableModel::kError), Qt::DisplayRole).toString(), QStringLiteral("+9.1%"));
  EXPECT_EQ(model.data(model.index(1, ReportTableModel::kMeasured), Qt::DisplayRole).toString(), QStringLiteral("not measured"));
  EXPECT_EQ(model.data(model.index(0, ReportTableModel::kLinks), Qt::DisplayRole).toString(), QStringLiteral("1 of 2 measured"));
  LinkTrafficModel links;
  links.set_links(r.kernels[0].links);
  EXPECT_EQ(links.data(links.index(1, LinkTrafficModel::kNote), Qt::DisplayRole).toString(), QStringLiteral("no uncore counters"));
}

TEST(ValidationReportTest, ReadsTheValidatorsDetailsSummaryAndErrorAfterTheCostFit) {
  const QByteArray text = R"({
    "format": "numatwin-validation-report", "format_version": 1, "machine": "this-machine",
    "kernels": [
      {"id": "count-uniform-2t-dense-first-touch", "workload": "count", "threads": 2, "predicted_gbps": 2.0,
       "measured_gbps": 1.6, "details": {"measured_s": 0.2, "predicted_gbps_after_fit": 1.68, "phases": []}},
      {"id": "hash-join-uniform-1t-dense-first-touch", "workload": "hash-join", "threads": 1, "predicted_gbps": 1.0,
       "measured_gbps": 1.0, "details": {}}
    ],
    "summary": {"median_abs_error": 0.1}, "cost_fit": {"training_runs": 1}})";
  const ValidationReport r = parse_validation_report(text, QStringLiteral("report.json"));
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_TRUE(r.kernels[0].relative_error_after_fit().has_value());
  EXPECT_NEAR(*r.kernels[0].relative_error_after_fit(), (1.68 - 1.6) / 1.6, 1e-12);
  EXPECT_FALSE(r.kernels[1].relative_error_after_fit().has_value());
  ReportTableModel model;
  model.set_report(r);
  EXPECT_EQ(model.data(model.index(0, ReportTableModel::kError), Qt::DisplayRole).toString(), QStringLiteral("+25.0%"));
  EXPECT_EQ(model.data(model.index(0, ReportTableModel::kAfterFit), Qt::DisplayRole).toString(), QStringLiteral("+5.0%"));
  EXPECT_EQ(model.data(model.index(1, ReportTableModel::kAfterFit), Qt::DisplayRole).toString(), QStringLiteral("-"));
}

TEST(ValidationReportTest, BadReportsNameTheField) {
  auto error_of = [](const QByteArray& text) -> std::string {
    try {
      parse_validation_report(text, QStringLiteral("r.json"));
    } catch (const model::InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error_of("{").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of("[]").find("expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of(R"({"format": "x", "format_version": 1, "machine": "m", "kernels": []})").find("/format"), std::string::npos);
  const QByteArray head = R"({"format": "numatwin-validation-report", "format_version": 1, "machine": "m", "kernels": [)";
  EXPECT_NE(error_of(head + R"({"id": "k", "workload": "shuffle", "threads": 0, "predicted_gbps": 1, "measured_gbps": 1}]})")
                .find("/kernels/0/threads"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"({"id": "k", "workload": "shuffle", "threads": 2, "predicted_gbps": 1}]})").find("/kernels/0/not_measured"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"({"id": "k", "workload": "shuffle", "threads": 2, "predicted_gbps": 1, "measured_gbps": 1, "typo": 1}]})")
                .find("/kernels/0/typo"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"({"id": "k", "workload": "count", "threads": 2, "predicted_gbps": 1, "measured_gbps": 1, "details": 3}]})")
                .find("/kernels/0/details"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"({"id": "k", "workload": "count", "threads": 2, "predicted_gbps": 1, "measured_gbps": 1,
                               "details": {"predicted_gbps_after_fit": "x"}}]})")
                .find("/kernels/0/details/predicted_gbps_after_fit"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"(], "summary": []})").find("/summary"), std::string::npos);
  EXPECT_THROW(load_validation_report(QStringLiteral("/nonexistent/report.json")), model::InputError);
}

}  // namespace
}  // namespace numatwin::gui
