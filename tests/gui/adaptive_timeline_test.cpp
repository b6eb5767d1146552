// The adaptive view (adaptive_timeline.hpp): strips coloured by the utilisation scale where the
// layout puts them, the throughput chart, placer decisions marked at their time, the reader of
// `numatwin adaptive --json` with file + JSON pointer errors, and the headless render command.
#include "numatwin/gui/adaptive_timeline.hpp"

#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTextStream>
#include <cmath>

#include "gui_test_support.hpp"
#include "numatwin/gui/render_command.hpp"
#include "numatwin/gui/utilisation_colour.hpp"
#include "numatwin/model/input_error.hpp"

namespace numatwin::gui {
namespace {

// Two sockets, four 1-s bins: s0 CPU saturated, s1 idle; s0 memory at 0.5, s1 at 0.25;
// queries/s 10, 20, 20, 10; one move decided at 2 s, done at 3 s.
AdaptiveTimelineView two_sockets() {
  AdaptiveTimelineView v;
  v.title = "test";
  v.sockets = {"s0", "s1"};
  const double q[] = {10.0, 20.0, 20.0, 10.0};
  for (int k = 0; k < 4; ++k)
    v.bins.push_back(
        AdaptiveTimelineView::Bin{double(k), double(k + 1), q[k], {1.0, 0.0}, {0.5, 0.25}});
  v.decisions.push_back(AdaptiveTimelineView::Decision{2.0, 3.0, "move", "T", "s0", "s1", "", 0.0, {}});
  return v;
}

QImage draw(const AdaptiveTimelineView& v, QSize size) {
  testing::gui_app();
  QImage image(size, QImage::Format_RGB32);
  QPainter painter(&image);
  paint_adaptive_timeline(painter, QRectF(QPointF(0, 0), QSizeF(size)), v);
  return image;
}

QColor at(const QImage& image, double x, double y) {
  return image.pixelColor(static_cast<int>(x), static_cast<int>(y));
}

TEST(AdaptiveTimelineTest, StripsTakeTheUtilisationColourOfTheirBin) {
  const AdaptiveTimelineView v = two_sockets();
  const QSize size(800, 400);
  const QImage image = draw(v, size);
  const AdaptiveTimelineLayout l = adaptive_timeline_layout(v, QRectF(QPointF(0, 0), QSizeF(size)));
  ASSERT_EQ(l.cpu.size(), 2U);
  const double x = l.x_of(0.5);  // inside bin 0, away from the decision at 2 s
  EXPECT_EQ(at(image, x, l.cpu[0].center().y()), utilisation_colour(1.0));
  EXPECT_EQ(at(image, x, l.cpu[1].center().y()), utilisation_colour(0.0));
  EXPECT_EQ(at(image, x, l.memory[0].center().y()), utilisation_colour(0.5));
  EXPECT_EQ(at(image, x, l.memory[1].center().y()), utilisation_colour(0.25));
}

// Bars scale to the busiest bin (20 q/s): bin 1 fills the chart's height, bin 0 half of it.
TEST(AdaptiveTimelineTest, ThroughputBarsScaleToTheBusiestBin) {
  const AdaptiveTimelineView v = two_sockets();
  const QSize size(800, 400);
  const QImage image = draw(v, size);
  const AdaptiveTimelineLayout l = adaptive_timeline_layout(v, QRectF(QPointF(0, 0), QSizeF(size)));
  const QColor bar(120, 120, 120);
  const double near_top = l.chart.top() + 0.1 * l.chart.height();
  const double near_bottom = l.chart.bottom() - 0.1 * l.chart.height();
  EXPECT_EQ(at(image, l.x_of(1.5), near_top), bar);
  EXPECT_NE(at(image, l.x_of(0.5), near_top), bar);
  EXPECT_EQ(at(image, l.x_of(0.5), near_bottom), bar);
}

// The move decided at 2 s: a line in the move colour through the strips at x_of(2), and none
// at 1 s.
TEST(AdaptiveTimelineTest, PlacerDecisionsAreMarkedAtTheirTime) {
  const AdaptiveTimelineView v = two_sockets();
  const QSize size(800, 400);
  const QImage image = draw(v, size);
  const AdaptiveTimelineLayout l = adaptive_timeline_layout(v, QRectF(QPointF(0, 0), QSizeF(size)));
  const QColor move = adaptive_decision_colour("move");
  const double y = l.cpu[1].center().y();
  bool found = false;
  for (int dx = -1; dx <= 1; ++dx) found = found || at(image, l.x_of(2.0) + dx, y) == move;
  EXPECT_TRUE(found);
  for (int dx = -1; dx <= 1; ++dx) EXPECT_NE(at(image, l.x_of(1.0) + dx, y), move);
  EXPECT_NE(adaptive_decision_colour("move"), adaptive_decision_colour("partition"));
  EXPECT_NE(adaptive_decision_colour("partition"), adaptive_decision_colour("merge"));
}

const char* kRun = R"({"scenario": "x", "topology": "m", "sockets": ["s0", "s1"],
  "timeline": [{"begin_s": 0, "end_s": 1, "queries_per_s": 5, "socket_cpu": [1, 0], "socket_memory_utilisation": [0.5, 0]}],
  "placer_decisions": [{"decided_s": 0.5, "done_s": null, "action": "merge", "table": "T", "from": null, "to": "s1"}]})";

std::string write(const QTemporaryDir& dir, const std::string& text) {
  const QString path = dir.filePath(QStringLiteral("run.json"));
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(QByteArray::fromStdString(text));
  return path.toStdString();
}

TEST(AdaptiveTimelineTest, ReadsTheCliJsonOutput) {
  QTemporaryDir dir;
  const AdaptiveTimelineView v = read_adaptive_timeline(write(dir, kRun));
  EXPECT_EQ(v.title, "x on m");
  ASSERT_EQ(v.bins.size(), 1U);
  EXPECT_EQ(v.bins[0].cpu, (std::vector<double>{1.0, 0.0}));
  ASSERT_EQ(v.decisions.size(), 1U);
  EXPECT_EQ(v.decisions[0].action, "merge");
  EXPECT_EQ(v.decisions[0].done_s, -1.0);
  EXPECT_EQ(v.decisions[0].from, "");
}

void expect_error(const std::string& text, const std::string& pointer) {
  QTemporaryDir dir;
  const std::string path = write(dir, text);
  try {
    (void)read_adaptive_timeline(path);
    ADD_FAILURE() << "no error for " << pointer;
  } catch (const model::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(path), std::string::npos) << what;
    EXPECT_NE(what.find(pointer + ":"), std::string::npos) << what;
    EXPECT_NE(what.find("expected"), std::string::npos) << what;
  }
}

TEST(AdaptiveTimelineTest, BadRunsNameTheFileAndThePointer) {
  std::string run = kRun;
  expect_error(std::string(run).replace(run.find("[1, 0]"), 6, "[1]"), "/timeline/0/socket_cpu");
  expect_error(std::string(run).replace(run.find("\"merge\""), 7, "\"swap\""),
               "/placer_decisions/0/action");
  expect_error(std::string(run).replace(run.find("\"end_s\": 1"), 10, "\"end_s\": 0"),
               "/timeline/0/end_s");
  expect_error("[1, 2]", "");
}

TEST(AdaptiveTimelineTest, RenderCommandDrawsAnAdaptiveRun) {
  testing::gui_app();
  QTemporaryDir dir;
  const std::string run = write(dir, kRun);
  const QString png = dir.filePath(QStringLiteral("timeline.png"));
  QString out_text;
  QString err_text;
  QTextStream out(&out_text);
  QTextStream err(&err_text);
  const int status = run_render_command(
      {QStringLiteral("numatwin-gui"), QStringLiteral("--render"), QStringLiteral("--adaptive"),
       QString::fromStdString(run), QStringLiteral("--out"), png},
      out, err);
  EXPECT_EQ(status, 0) << err_text.toStdString();
  EXPECT_EQ(QImage(png).size(), QSize(1280, 880));
  EXPECT_TRUE(out_text.contains(QStringLiteral("1 bins, 1 placer decisions")))
      << out_text.toStdString();
  const int bad = run_render_command(
      {QStringLiteral("numatwin-gui"), QStringLiteral("--render"), QStringLiteral("--adaptive"),
       dir.filePath(QStringLiteral("missing.json")), QStringLiteral("--out"), png},
      out, err);
  EXPECT_EQ(bad, 1);
}

// A simulated run converts bin for bin and decision for decision.
TEST(AdaptiveTimelineTest, ConvertsASimulatedRun) {
  sim::AdaptiveResult r;
  r.sockets = {"a", "b"};
  r.timeline.push_back(
      sim::AdaptiveTimelinePoint{0.0, 2.0, 3.0, 0.0, {}, {0.25, 0.75}, {}, {0.1, 0.2}, 0});
  sim::AdaptivePlacerEvent e;
  e.decided_s = 1.0;
  e.done_s = 1.5;
  e.decision.action = sim::PlacerAction::kPartition;
  e.decision.from_socket = 0;
  e.decision.to_socket = 1;
  e.table = "T";
  r.placer_events.push_back(e);
  const AdaptiveTimelineView v = adaptive_timeline_from_result(r, "t");
  ASSERT_EQ(v.bins.size(), 1U);
  EXPECT_EQ(v.bins[0].cpu, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(v.bins[0].memory, (std::vector<double>{0.1, 0.2}));
  ASSERT_EQ(v.decisions.size(), 1U);
  EXPECT_EQ(v.decisions[0].action, "partition");
  EXPECT_EQ(v.decisions[0].from, "a");
  EXPECT_EQ(v.decisions[0].to, "b");
}

}  // namespace
}  // namespace numatwin::gui
