// The Validator tab's "Allocator memory over time" page, offscreen: opening a `validate allocbench
// --arrivals` result (the hand-written fixture tests/data/gui/allocbench-arrivals-two.json, see
// tests/gui/allocator_memory_test.cpp) brings the page to the front, draws one line per allocator
// and lists the allocators' figures; a bad file gives one error naming the file and the JSON
// pointer and leaves the result shown before.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFile>
#include <QImage>
#include <QMessageBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <cstdlib>

#include "allocator_memory_page.hpp"
#include "gui_app_test_application.hpp"
#include "main_window.hpp"

namespace numatwin::gui {
namespace {

using test_support::app;

QString fixture() { return QStringLiteral(NUMATWIN_SOURCE_DIR "/tests/data/gui/allocbench-arrivals-two.json"); }

bool colour_near(const QImage& image, double x, double y, const QColor& colour) {
  for (int dy = -2; dy <= 2; ++dy) {
    for (int dx = -2; dx <= 2; ++dx) {
      const QColor c = image.pixelColor(static_cast<int>(x) + dx, static_cast<int>(y) + dy);
      if (std::abs(c.red() - colour.red()) <= 12 && std::abs(c.green() - colour.green()) <= 12 &&
          std::abs(c.blue() - colour.blue()) <= 12)
        return true;
    }
  }
  return false;
}

TEST(AllocatorMemoryPageTest, OpensAResultOnTheValidatorTabAndDrawsALinePerAllocator) {
  app();
  MainWindow window;
  window.resize(1400, 900);
  window.show();
  ASSERT_TRUE(window.open_allocbench_arrivals(fixture())) << window.last_error().toStdString();
  AllocatorMemoryPage* page = window.allocator_memory_page();
  EXPECT_EQ(window.tabs()->currentWidget(), window.validator_pages());
  EXPECT_EQ(window.tabs()->tabText(window.tabs()->currentIndex()), QStringLiteral("Validator"));
  EXPECT_EQ(window.validator_pages()->currentWidget(), page);
  ASSERT_TRUE(page->plot()->view().has_value());
  EXPECT_EQ(page->plot()->view()->series.size(), 2U);

  QTableWidget* table = page->table();
  ASSERT_EQ(table->rowCount(), 2);
  // Columns: allocator, queries, queries/s, p50 ms, p99 ms, before, peak, end of queries, after idle, returned.
  EXPECT_EQ(table->item(0, 0)->text(), QStringLiteral("glibc"));
  EXPECT_EQ(table->item(0, 4)->text(), QStringLiteral("50.0"));  // p99 0.05 s
  EXPECT_EQ(table->item(1, 6)->text(), QStringLiteral("60.0"));  // 62914560 bytes
  EXPECT_EQ(table->item(1, 8)->text(), QStringLiteral("20.0"));
  EXPECT_EQ(table->item(1, 9)->text(), QStringLiteral("80 %"));

  // The widget on screen: glibc at 110 MiB and jemalloc at 60 MiB at 0.75 s, jemalloc at 20 MiB at 1.75 s.
  QApplication::processEvents();
  const QImage image = page->plot()->grab().toImage();
  const AllocatorMemoryLayout l = allocator_memory_layout(*page->plot()->view(), QRectF(page->plot()->rect()));
  EXPECT_TRUE(colour_near(image, l.x_of(0.75), l.y_of(110), allocator_colour("glibc", 0)));
  EXPECT_TRUE(colour_near(image, l.x_of(0.75), l.y_of(60), allocator_colour("jemalloc", 1)));
  EXPECT_TRUE(colour_near(image, l.x_of(1.75), l.y_of(20), allocator_colour("jemalloc", 1)));
  EXPECT_FALSE(colour_near(image, l.x_of(1.75), l.y_of(60), allocator_colour("jemalloc", 1)));
}

TEST(AllocatorMemoryPageTest, ABadResultShowsOneErrorAndKeepsTheResultShown) {
  app();
  MainWindow window;
  window.show();
  ASSERT_TRUE(window.open_allocbench_arrivals(fixture()));
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.json"));
  {
    QFile in(fixture());
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    QByteArray text = in.readAll();
    text.replace("[0.5, 115343360]", "[0.5]");
    QFile out(bad);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(text);
  }
  EXPECT_FALSE(window.open_allocbench_arrivals(bad));
  EXPECT_TRUE(window.last_error().contains(bad)) << window.last_error().toStdString();
  EXPECT_TRUE(window.last_error().contains(QStringLiteral("/0/rss_samples/rows/1"))) << window.last_error().toStdString();
  EXPECT_EQ(window.findChildren<QMessageBox*>().size(), 1);  // one dialog
  EXPECT_EQ(window.allocator_memory_page()->source(), fixture());  // the first result is still shown
  EXPECT_EQ(window.allocator_memory_page()->table()->rowCount(), 2);
  EXPECT_EQ(window.allocator_memory_page()->plot()->view()->series[0].samples.size(), 5U);
  for (QMessageBox* box : window.findChildren<QMessageBox*>()) box->close();
  QApplication::processEvents();
}

}  // namespace
}  // namespace numatwin::gui
