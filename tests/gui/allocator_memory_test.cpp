// The memory-over-time view of `validate allocbench --arrivals` (allocator_memory.hpp): the
// reader of the CLI's JSON with file + JSON pointer errors, each allocator's line where its
// samples put it, the last query's end and the idle period marked, the legend's figures, and
// the headless render command.
//
// The fixture tests/data/gui/allocbench-arrivals-two.json is written by hand (not by the code
// under test): two allocators sampled every 0.5 s for 2 s, RSS starting at 10 MiB;
//   glibc     up to 110 MiB at 0.5 s and staying there; last query ends at 1.0 s, idle 1.1-2.0 s;
//             returned (110 - 110) / (110 - 10) = 0 %;
//   jemalloc  up to 60 MiB at 0.5 s, flat to 1.2 s, down to 20 MiB at 1.5 s; last query ends at
//             1.2 s, idle 1.3-2.0 s; returned (60 - 20) / (60 - 10) = 80 %.
// Axes: time 0 to 2 s (the last sample and idle end; 0.25-s ticks), RSS 0 to 125 MiB (the largest sample,
// 110, rounded up to the 25-MiB tick).
#include "numatwin/gui/allocator_memory.hpp"

#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTextStream>
#include <cstdlib>
#include <cstring>

#include "gui_test_support.hpp"
#include "numatwin/gui/render_command.hpp"
#include "numatwin/model/input_error.hpp"

namespace numatwin::gui {
namespace {

constexpr double kMiB = 1048576.0;

std::string fixture() { return std::string(NUMATWIN_SOURCE_DIR) + "/tests/data/gui/allocbench-arrivals-two.json"; }

QByteArray fixture_text() {
  QFile f(QString::fromStdString(fixture()));
  EXPECT_TRUE(f.open(QIODevice::ReadOnly));
  return f.readAll();
}

std::string write(const QTemporaryDir& dir, const QByteArray& text) {
  const QString path = dir.filePath(QStringLiteral("arrivals.json"));
  QFile f(path);
  EXPECT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(text);
  return path.toStdString();
}

QImage draw(const AllocatorMemoryView& v, QSize size) {
  testing::gui_app();
  QImage image(size, QImage::Format_RGB32);
  QPainter painter(&image);
  paint_allocator_memory(painter, QRectF(QPointF(0, 0), QSizeF(size)), v);
  return image;
}

bool close_to(const QColor& a, const QColor& b, int tolerance) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

// A pixel within +-2 px of (x, y) close to the colour (the lines are antialiased).
bool colour_near(const QImage& image, double x, double y, const QColor& colour) {
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -2; dx <= 2; ++dx) {
      if (close_to(image.pixelColor(static_cast<int>(x) + dx, static_cast<int>(y) + dy), colour, 12)) return true;
    }
  }
  return false;
}

// Any pixel of the colour in the column at x from y0 down to y1.
bool colour_in_column(const QImage& image, double x, double y0, double y1, const QColor& colour) {
  for (int y = static_cast<int>(y0); y <= static_cast<int>(y1); ++y) {
    for (int dx = -1; dx <= 1; ++dx) {
      if (close_to(image.pixelColor(static_cast<int>(x) + dx, y), colour, 12)) return true;
    }
  }
  return false;
}

QColor at(const QImage& image, double x, double y) { return image.pixelColor(static_cast<int>(x), static_cast<int>(y)); }

TEST(AllocatorMemoryTest, ReadsTheArrivalsJson) {
  const AllocatorMemoryView v = read_allocator_memory(fixture());
  EXPECT_EQ(v.title, "40 queries (both, 5000 records each) arriving at 50 per second, at most 10 in flight, 0.9 s idle after the last; RSS every 500 ms");
  EXPECT_DOUBLE_EQ(v.idle_seconds, 0.9);
  ASSERT_EQ(v.series.size(), 2U);
  const AllocatorMemoryView::Series& glibc = v.series[0];
  EXPECT_EQ(glibc.allocator, "glibc");
  ASSERT_EQ(glibc.samples.size(), 5U);
  EXPECT_DOUBLE_EQ(glibc.samples[1].seconds, 0.5);
  EXPECT_DOUBLE_EQ(glibc.samples[1].rss_bytes, 110 * kMiB);
  EXPECT_DOUBLE_EQ(glibc.first_arrival_s, 0.1);  // the earlier of the two arrivals, not the first listed
  EXPECT_DOUBLE_EQ(glibc.last_query_end_s, 1.0);
  EXPECT_TRUE(glibc.idle_recorded);
  EXPECT_DOUBLE_EQ(glibc.idle_begin_s, 1.1);
  EXPECT_DOUBLE_EQ(glibc.idle_end_s, 2.0);
  EXPECT_EQ(glibc.queries, 40);
  EXPECT_DOUBLE_EQ(glibc.p99_s, 0.05);
  const AllocatorMemoryView::Series& jemalloc = v.series[1];
  EXPECT_DOUBLE_EQ(jemalloc.rss_peak_bytes, 60 * kMiB);
  EXPECT_DOUBLE_EQ(jemalloc.rss_after_idle_bytes, 20 * kMiB);
  EXPECT_DOUBLE_EQ(jemalloc.returned_share, 0.8);
}

TEST(AllocatorMemoryTest, TheLegendGivesPeakAndTheShareReturned) {
  const AllocatorMemoryView v = read_allocator_memory(fixture());
  EXPECT_EQ(allocator_memory_legend(v.series[0]).toStdString(),
            "glibc: peak 110.0 MiB, 0 % returned after the idle period (before 10.0 MiB, after idle 110.0 MiB)");
  EXPECT_EQ(allocator_memory_legend(v.series[1]).toStdString(),
            "jemalloc: peak 60.0 MiB, 80 % returned after the idle period (before 10.0 MiB, after idle 20.0 MiB)");
}

// A result written before the idle period's times were recorded: the idle period is the
// idle_seconds before the last sample (2.0 - 0.9 = 1.1 s), marked as estimated.
TEST(AllocatorMemoryTest, AnOlderResultWithoutIdleTimesGetsThemFromIdleSeconds) {
  QByteArray text = fixture_text();
  text.replace("\"idle_begin_s\": 1.1, \"idle_end_s\": 2.0,", "");
  QTemporaryDir dir;
  const AllocatorMemoryView v = read_allocator_memory(write(dir, text));
  EXPECT_FALSE(v.series[0].idle_recorded);
  EXPECT_DOUBLE_EQ(v.series[0].idle_begin_s, 1.1);
  EXPECT_DOUBLE_EQ(v.series[0].idle_end_s, 2.0);
  EXPECT_TRUE(v.series[1].idle_recorded);  // the other still has its own
  EXPECT_DOUBLE_EQ(v.series[1].idle_begin_s, 1.3);
}

// One allocator's result alone (a child's file) is read too; its pointers have no index.
TEST(AllocatorMemoryTest, OneResultAloneIsRead) {
  const QByteArray all = fixture_text();
  const qsizetype begin = all.indexOf('{');
  const qsizetype end = all.indexOf("\n  },") + 3;  // glibc's closing brace
  const QByteArray text = all.mid(begin, end + 1 - begin);
  ASSERT_TRUE(text.startsWith('{') && text.endsWith('}'));
  QTemporaryDir dir;
  const AllocatorMemoryView v = read_allocator_memory(write(dir, text));
  ASSERT_EQ(v.series.size(), 1U);
  EXPECT_EQ(v.series[0].allocator, "glibc");
}

TEST(AllocatorMemoryTest, TimeAxisEndsAtTheDataAndRssRoundsUpToATick) {
  const AllocatorMemoryView v = read_allocator_memory(fixture());
  const AllocatorMemoryLayout l = allocator_memory_layout(v, QRectF(0, 0, 900, 560));
  EXPECT_DOUBLE_EQ(l.end_s, 2.0);
  EXPECT_DOUBLE_EQ(l.top_mib, 125.0);
  EXPECT_DOUBLE_EQ(l.x_of(0.0), l.plot.left());
  EXPECT_DOUBLE_EQ(l.x_of(2.0), l.plot.right());
  EXPECT_DOUBLE_EQ(l.y_of(0.0), l.plot.bottom());
  EXPECT_DOUBLE_EQ(l.y_of(125.0), l.plot.top());
  ASSERT_EQ(l.rows.size(), 2U);
  EXPECT_GT(l.rows[0].top(), l.plot.bottom());  // the rows are under the time axis
  EXPECT_GT(l.legend.top(), l.rows[1].bottom());
}

// Each allocator's line runs where its samples are: at 0.75 s glibc at 110 MiB and jemalloc at
// 60; at 1.75 s glibc still at 110, jemalloc down at 20 and no longer at 60.
TEST(AllocatorMemoryTest, LinesAreDrawnWhereTheSamplesPutThem) {
  const AllocatorMemoryView v = read_allocator_memory(fixture());
  const QSize size(900, 560);
  const QImage image = draw(v, size);
  const AllocatorMemoryLayout l = allocator_memory_layout(v, QRectF(QPointF(0, 0), QSizeF(size)));
  const QColor glibc = allocator_colour("glibc", 0);
  const QColor jemalloc = allocator_colour("jemalloc", 1);
  EXPECT_NE(glibc, jemalloc);
  EXPECT_TRUE(colour_near(image, l.x_of(0.75), l.y_of(110), glibc));
  EXPECT_TRUE(colour_near(image, l.x_of(0.75), l.y_of(60), jemalloc));
  EXPECT_TRUE(colour_near(image, l.x_of(1.75), l.y_of(110), glibc));
  EXPECT_TRUE(colour_near(image, l.x_of(1.75), l.y_of(20), jemalloc));
  EXPECT_FALSE(colour_near(image, l.x_of(1.75), l.y_of(60), jemalloc));
  EXPECT_FALSE(colour_near(image, l.x_of(0.75), l.y_of(90), glibc));  // nothing between the lines
  EXPECT_FALSE(colour_near(image, l.x_of(0.75), l.y_of(90), jemalloc));
}

// The last query's end: a dashed line in the allocator's colour at 1.0 s (glibc) and 1.2 s
// (jemalloc), seen above both lines (112-124 MiB), and none at 0.75 s. The idle period is shaded
// (1.6 s at 90 MiB is inside both allocators' idle periods, away from the lines) and 0.25 s is not.
TEST(AllocatorMemoryTest, TheLastQueryEndAndTheIdlePeriodAreMarked) {
  const AllocatorMemoryView v = read_allocator_memory(fixture());
  const QSize size(900, 560);
  const QImage image = draw(v, size);
  const AllocatorMemoryLayout l = allocator_memory_layout(v, QRectF(QPointF(0, 0), QSizeF(size)));
  const QColor glibc = allocator_colour("glibc", 0);
  const QColor jemalloc = allocator_colour("jemalloc", 1);
  EXPECT_TRUE(colour_in_column(image, l.x_of(1.0), l.y_of(124), l.y_of(112), glibc));
  EXPECT_TRUE(colour_in_column(image, l.x_of(1.2), l.y_of(124), l.y_of(112), jemalloc));
  EXPECT_FALSE(colour_in_column(image, l.x_of(1.2), l.y_of(124), l.y_of(112), glibc));
  EXPECT_FALSE(colour_in_column(image, l.x_of(0.75), l.y_of(124), l.y_of(112), glibc));
  EXPECT_FALSE(colour_in_column(image, l.x_of(0.75), l.y_of(124), l.y_of(112), jemalloc));
  EXPECT_EQ(at(image, l.x_of(1.6), l.y_of(90)), allocator_idle_shade());
  EXPECT_EQ(at(image, l.x_of(0.25), l.y_of(90)), QColor(Qt::white));
  // The rows under the axis: glibc's idle period solid at 1.5 s, its query period tinted at
  // 0.5 s, nothing before the first arrival (0.05 s); jemalloc's row blank between its last end
  // (1.2 s) and its idle period (from 1.3 s).
  const double glibc_row = l.rows[0].center().y();
  const double jemalloc_row = l.rows[1].center().y();
  EXPECT_EQ(at(image, l.x_of(1.5), glibc_row), glibc);
  const QColor tinted = at(image, l.x_of(0.5), glibc_row);
  EXPECT_NE(tinted, glibc);
  EXPECT_NE(tinted, QColor(Qt::white));
  EXPECT_GT(tinted.blue(), tinted.red());  // glibc's blue, lighter
  EXPECT_EQ(at(image, l.x_of(0.05), glibc_row), QColor(Qt::white));
  EXPECT_EQ(at(image, l.x_of(1.25), jemalloc_row), QColor(Qt::white));
  EXPECT_EQ(at(image, l.x_of(1.6), jemalloc_row), jemalloc);
}

void expect_error(const QByteArray& text, const std::string& pointer, const std::string& expectation) {
  QTemporaryDir dir;
  const std::string path = write(dir, text);
  try {
    (void)read_allocator_memory(path);
    ADD_FAILURE() << "no error for " << pointer;
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), path);
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_NE(e.expectation().find(expectation), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

QByteArray replaced(QByteArray text, const char* from, const char* to) {
  EXPECT_TRUE(text.contains(from)) << from;
  return text.replace(text.indexOf(from), static_cast<qsizetype>(std::strlen(from)), to);  // the first only
}

TEST(AllocatorMemoryTest, BadFilesNameTheFileAndThePointer) {
  const QByteArray good = fixture_text();
  expect_error(replaced(good, "[0.5, 115343360]", "[0.5]"), "/0/rss_samples/rows/1", "two numbers");
  expect_error(replaced(good, "[1.5, 20971520]", "[1.1, 20971520]"), "/1/rss_samples/rows/3/0", "no earlier than the sample before");
  expect_error(replaced(good, "[\"seconds\", \"rss_bytes\"]", "[\"rss_bytes\", \"seconds\"]"), "/0/rss_samples/columns",
               "[\"seconds\", \"rss_bytes\"]");
  expect_error(replaced(good, "\"idle_end_s\": 2.0,", ""), "/0/idle_end_s", "together");
  expect_error(replaced(good, "\"peak\": 62914560,", ""), "/1/rss_bytes/peak", "required field");
  expect_error(replaced(good, "\"allocator\": \"jemalloc\"", "\"allocator\": 7"), "/1/allocator", "a string");
  expect_error(replaced(good, "\"rows\": [[0, 10485760], [0.5, 62914560]", "\"rows\": [[0, -1], [0.5, 62914560]"),
               "/1/rss_samples/rows/0/1", "bytes >= 0");
  expect_error("[]", "", "at least one allocator");
  expect_error("{\"x\": 1}", "/allocator", "required field");  // one object alone: pointers without an index
  expect_error("[{\"allocator\": \"glibc\"", "", "not valid JSON");
}

TEST(AllocatorMemoryTest, RenderCommandDrawsAnArrivalsResult) {
  testing::gui_app();
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("memory.png"));
  QString out_text;
  QString err_text;
  QTextStream out(&out_text);
  QTextStream err(&err_text);
  const QString file = QString::fromStdString(fixture());
  const int status = run_render_command({QStringLiteral("numatwin-gui"), QStringLiteral("--render"), QStringLiteral("--allocbench"), file,
                                         QStringLiteral("--width"), QStringLiteral("900"), QStringLiteral("--height"), QStringLiteral("560"),
                                         QStringLiteral("--out"), png},
                                        out, err);
  EXPECT_EQ(status, 0) << err_text.toStdString();
  const QImage image(png);
  EXPECT_EQ(image.size(), QSize(900, 560));
  EXPECT_TRUE(out_text.contains(QStringLiteral("2 allocators: glibc, jemalloc"))) << out_text.toStdString();
  // The file written is the view drawn: glibc's line at 0.75 s, 110 MiB.
  const AllocatorMemoryLayout l = allocator_memory_layout(read_allocator_memory(fixture()), QRectF(0, 0, 900, 560));
  EXPECT_TRUE(colour_near(image, l.x_of(0.75), l.y_of(110), allocator_colour("glibc", 0)));

  const QString missing = dir.filePath(QStringLiteral("missing.json"));
  EXPECT_EQ(run_render_command({QStringLiteral("numatwin-gui"), QStringLiteral("--render"), QStringLiteral("--allocbench"), missing,
                                QStringLiteral("--out"), png},
                               out, err),
            1);
  EXPECT_TRUE(err_text.contains(missing)) << err_text.toStdString();
  EXPECT_EQ(run_render_command({QStringLiteral("numatwin-gui"), QStringLiteral("--render"), QStringLiteral("--allocbench"), file,
                                QStringLiteral("--adaptive"), file, QStringLiteral("--out"), png},
                               out, err),
            2);
}

}  // namespace
}  // namespace numatwin::gui
