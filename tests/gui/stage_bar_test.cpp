// The phase bar (stage_bar.hpp): segments as wide as their stages on one time scale for all rows
// (worked by hand), the sliver a stage too short for the scale gets, the stage colours and the
// marker where the layout puts them, and a real whole sort-merge join's four phases as a row.
#include "numatwin/gui/stage_bar.hpp"

#include <gtest/gtest.h>

#include <QImage>
#include <QPainter>

#include "gui_test_support.hpp"
#include "numatwin/gui/simulation_run.hpp"

namespace numatwin::gui {
namespace {

StageBarRow row(const QString& label, std::vector<sim::StageSpan> stages, double time_s, double marker_s = -1.0) {
  return StageBarRow{label, std::move(stages), time_s, marker_s};
}

// A: 10 s in four stages 0-6, 6-7, 7-9, 9-10; B: 5 s in one stage. In an area 628 px wide the
// bars start at x = 120 (the label column) and are 628 - 120 - 8 = 500 px long for the longest
// run, 10 s: 50 px a second.
std::vector<StageBarRow> two_rows() {
  return {row("A", {{"sort", 0, 6}, {"partition", 6, 7}, {"gather", 7, 9}, {"merge", 9, 10}}, 10.0),
          row("B", {{"sort", 0, 5}}, 5.0, 2.0)};
}

TEST(StageBarTest, SegmentsShareOneTimeScale) {
  const StageBarLayout l = stage_bar_layout(two_rows(), QRectF(0, 0, 628, stage_bar_height(2)));
  EXPECT_DOUBLE_EQ(l.scale_s, 10.0);
  ASSERT_EQ(l.segments.size(), 2U);
  ASSERT_EQ(l.segments[0].size(), 4U);
  const double left[] = {120, 420, 470, 570};
  const double width[] = {300, 50, 100, 50};
  for (int s = 0; s < 4; ++s) {
    EXPECT_DOUBLE_EQ(l.segments[0][s].left(), left[s]) << s;
    EXPECT_DOUBLE_EQ(l.segments[0][s].width(), width[s]) << s;
  }
  // B took half as long: its bar's stage ends halfway.
  EXPECT_DOUBLE_EQ(l.segments[1][0].left(), 120.0);
  EXPECT_DOUBLE_EQ(l.segments[1][0].width(), 250.0);
  EXPECT_GT(l.bars[1].top(), l.bars[0].bottom());
  EXPECT_DOUBLE_EQ(l.x_of(1, 2.0), 220.0);
}

TEST(StageBarTest, AStageTooShortForTheScaleGetsASliverInsideTheBar) {
  const std::vector<StageBarRow> rows{row("C", {{"long", 0, 9.99}, {"short", 9.99, 10}}, 10.0)};
  const StageBarLayout l = stage_bar_layout(rows, QRectF(0, 0, 628, stage_bar_height(1)));
  // 0.01 s is 0.5 px on the scale: it is drawn kMinSegmentPx wide, ending at the bar's end.
  EXPECT_DOUBLE_EQ(l.segments[0][1].width(), kMinSegmentPx);
  EXPECT_DOUBLE_EQ(l.segments[0][1].right(), l.bars[0].right());
}

TEST(StageBarTest, PaintsEachStageInItsColourAndTheMarker) {
  testing::gui_app();
  const std::vector<StageBarRow> rows = two_rows();
  const QRectF area(0, 0, 628, stage_bar_height(2));
  QImage image(area.size().toSize(), QImage::Format_RGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    paint_stage_bar(painter, area, rows);
  }
  const StageBarLayout l = stage_bar_layout(rows, area);
  for (int s = 0; s < 4; ++s) {
    const QRectF& seg = l.segments[0][s];
    // Near the segment's top left corner: clear of the stage's name, centred in it.
    EXPECT_EQ(image.pixelColor(int(seg.left()) + 2, int(seg.top()) + 2), stage_colour(s)) << s;
  }
  EXPECT_NE(stage_colour(0), stage_colour(1));
  EXPECT_NE(stage_colour(2), stage_colour(3));
  // B's marker at 2 s (x = 220) is a black line across its bar.
  const QColor marker = image.pixelColor(220, int(l.bars[1].center().y()));
  EXPECT_LT(marker.lightness(), 60);
  // Past the end of B's run (5 s, x = 370) its bar is empty.
  EXPECT_GT(image.pixelColor(400, int(l.bars[1].top()) + 2).lightness(), 230);
}

TEST(StageBarTest, TheWholeSortMergeJoinGivesFourPhases) {
  sim::WorkloadSpec s;
  s.kind = sim::WorkloadKind::kSortMergeJoin;
  s.sort_merge_phases = sim::SortMergePhases::kAll;
  s.algorithm = sim::ShuffleAlgorithm::kRing;
  s.threads = 8;
  s.placement = sim::parse_placement("sparse");
  s.data.records = 1e7;
  s.data.build_records = 1e6;
  const SimulationRun run = run_simulation(testing::load_bundled("nehalem-ex-4s"), s, 0);
  const StageBarRow r = stage_bar_row(run, QStringLiteral("ring"), 2);
  ASSERT_EQ(r.stages.size(), 4U);
  EXPECT_EQ(r.stages[0].name, "sort facts");
  EXPECT_EQ(r.stages[3].name, "merge");
  EXPECT_DOUBLE_EQ(r.time_s, run.result.time_s);
  // The marker: the merge's step 2 began inside the merge stage.
  EXPECT_DOUBLE_EQ(r.marker_s, run.result.steps[2].begin_s);
  EXPECT_GE(r.marker_s, r.stages[3].begin_s);
  EXPECT_TRUE(run.label().contains(QStringLiteral("all phases"))) << run.label().toStdString();
  EXPECT_EQ(stage_legend_text(sim::StageSpan{"merge", 1.0, 1.5}, 2.0), QStringLiteral("merge 500 ms (25.0 %)"));
  // The merge phase alone has no stages.
  s.sort_merge_phases = sim::SortMergePhases::kMerge;
  EXPECT_TRUE(stage_bar_row(run_simulation(testing::load_bundled("nehalem-ex-4s"), s, 0), QStringLiteral("ring"), 0).stages.empty());
}

}  // namespace
}  // namespace numatwin::gui
