// The main window's Adaptive run tab, offscreen: opening a `numatwin adaptive --json` run shows its
// timeline (the placer's decisions marked at their time) and lists the decisions with the tables
// a group moved together; a bad file gives an error dialog and leaves the run shown before.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QMessageBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>

#include "adaptive_run_tab.hpp"
#include "gui_app_test_application.hpp"
#include "main_window.hpp"

namespace numatwin::gui {
namespace {

using test_support::app;

// Two sockets, 10 s in two bins; one group partition decided at 2 s, done at 6 s (R1 and S1
// copied together), one single-table move decided at 7 s and still running at the end.
const char* kRun = R"({"scenario": "pairs", "topology": "m", "sockets": ["s0", "s1"],
  "timeline": [{"begin_s": 0, "end_s": 5, "queries_per_s": 10, "socket_cpu": [1, 0], "socket_memory_utilisation": [0.2, 0]},
               {"begin_s": 5, "end_s": 10, "queries_per_s": 20, "socket_cpu": [1, 1], "socket_memory_utilisation": [0.2, 0.2]}],
  "placer_decisions": [
    {"decided_s": 2, "done_s": 6, "action": "partition", "table": "R1", "group": "G1", "from": "s0", "to": "s1",
     "bytes_copied": 1610612736, "tables": [{"table": "R1", "bytes_copied": 1073741824}, {"table": "S1", "bytes_copied": 536870912}]},
    {"decided_s": 7, "done_s": null, "action": "move", "table": "T", "group": null, "from": "s1", "to": "s0"}]})";

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
  const QString path = dir.filePath(name);
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(text);
  return path;
}

TEST(AdaptiveRunTabTest, OpensARunShowsItsTimelineAndListsTheDecisions) {
  app();
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  QTemporaryDir dir;
  ASSERT_TRUE(window.open_adaptive_run(write(dir, QStringLiteral("run.json"), kRun)));
  AdaptiveRunTab* tab = window.adaptive_tab();
  EXPECT_EQ(window.tabs()->currentWidget(), tab);  // brought to the front
  ASSERT_TRUE(tab->timeline()->view().has_value());
  EXPECT_EQ(tab->timeline()->view()->bins.size(), 2U);

  QTableWidget* table = tab->decisions();
  ASSERT_EQ(table->rowCount(), 2);
  // Columns: decided s, action, group, tables, from, to, copied, done s.
  EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("2.00"));
  EXPECT_EQ(table->item(0, 1)->text(), QStringLiteral("partition"));
  EXPECT_EQ(table->item(0, 2)->text(), QStringLiteral("G1"));
  EXPECT_EQ(table->item(0, 3)->text(), QStringLiteral("R1 1 GiB, S1 0.5 GiB"));  // 2^30 and 2^29 bytes
  EXPECT_EQ(table->item(0, 6)->text(), QStringLiteral("1.5 GiB"));
  EXPECT_EQ(table->item(0, 7)->text(), QStringLiteral("6.00"));
  EXPECT_EQ(table->item(1, 2)->text(), QString());       // no group
  EXPECT_EQ(table->item(1, 3)->text(), QStringLiteral("T"));  // no per-table bytes: the table's name
  EXPECT_EQ(table->item(1, 7)->text(), QStringLiteral("still running"));

  // The timeline widget draws the partition's line at x_of(2 s) in the partition colour, and
  // nothing of that colour at x_of(4 s) in the CPU strips (the bar under the chart runs to 6 s,
  // but the strips below only carry the decision lines).
  QApplication::processEvents();
  const QImage image = tab->timeline()->grab().toImage();
  const AdaptiveTimelineLayout l = adaptive_timeline_layout(*tab->timeline()->view(), QRectF(tab->timeline()->rect()));
  const QColor partition = adaptive_decision_colour("partition");
  const int y = static_cast<int>(l.cpu[1].center().y());
  const auto colour_near = [&](double x) {
    for (int dx = -1; dx <= 1; ++dx) {
      if (image.pixelColor(static_cast<int>(x) + dx, y) == partition) return true;
    }
    return false;
  };
  EXPECT_TRUE(colour_near(l.x_of(2.0)));
  EXPECT_FALSE(colour_near(l.x_of(4.0)));
}

TEST(AdaptiveRunTabTest, ABadRunShowsAnErrorAndKeepsTheRunShown) {
  app();
  MainWindow window;
  window.show();
  QTemporaryDir dir;
  ASSERT_TRUE(window.open_adaptive_run(write(dir, QStringLiteral("run.json"), kRun)));
  const QString bad = write(dir, QStringLiteral("bad.json"), R"({"scenario": "x", "topology": "m", "sockets": []})");
  EXPECT_FALSE(window.open_adaptive_run(bad));
  EXPECT_TRUE(window.last_error().contains(QStringLiteral("/sockets")));
  EXPECT_TRUE(window.last_error().contains(QStringLiteral("bad.json")));
  EXPECT_EQ(window.adaptive_tab()->decisions()->rowCount(), 2);  // the first run is still shown
  EXPECT_TRUE(window.adaptive_tab()->source().endsWith(QStringLiteral("run.json")));
  for (QMessageBox* box : window.findChildren<QMessageBox*>()) box->close();
  QApplication::processEvents();
}

}  // namespace
}  // namespace numatwin::gui
