// Blocks across two lines (validate/line_split_bench.hpp): the split rule and the range worked by
// hand, and a run in this process's allocator whose outcome does not depend on where its heap
// stands (a 1-byte block never spans two lines; a block larger than a line always does).
#include "numatwin/validate/line_split_bench.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace numatwin::validate {
namespace {

TEST(LineSplitBenchTest, ABlockSpansTwoLinesWhenItsOffsetPlusItsSizePassesTheLine) {
  // 24 bytes: at 0, 16, 32 and 40 mod 64 within one line (40 + 24 = 64 ends on the boundary);
  // at 48 (48 + 24 = 72) and 56 across two.
  EXPECT_FALSE(spans_two_lines(0x1000, 24));
  EXPECT_FALSE(spans_two_lines(0x1010, 24));
  EXPECT_FALSE(spans_two_lines(0x1020, 24));
  EXPECT_FALSE(spans_two_lines(0x1028, 24));
  EXPECT_TRUE(spans_two_lines(0x1030, 24));
  EXPECT_TRUE(spans_two_lines(0x1038, 24));
  EXPECT_FALSE(spans_two_lines(0x1000, 64));  // a whole aligned line
  EXPECT_TRUE(spans_two_lines(0x1010, 64));
  EXPECT_TRUE(spans_two_lines(0x1000, 65));
  EXPECT_THROW((void)spans_two_lines(0x1000, 0), std::invalid_argument);
}

TEST(LineSplitBenchTest, RangeIsTheLeastAndMostShareOverTheTrials) {
  const model::LineSplitPoint p = line_split_range(24, {0.5, 0.0, 0.5, 0.0});
  EXPECT_EQ(p.request_bytes, 24);
  EXPECT_EQ(p.low_share, 0.0);
  EXPECT_EQ(p.high_share, 0.5);
  EXPECT_THROW((void)line_split_range(24, {}), std::invalid_argument);
  EXPECT_THROW((void)line_split_range(24, {0.5, 1.5}), std::invalid_argument);
}

TEST(LineSplitBenchTest, ARunGivesOnePointPerSizeWithSharesThatDoNotDependOnTheHeap) {
  LineSplitBenchOptions o;
  o.request_bytes = {1, 24, 72};
  o.trials = 3;
  o.blocks = 256;
  const std::vector<model::LineSplitPoint> points = run_line_split_bench(o);
  ASSERT_EQ(points.size(), 3U);
  EXPECT_EQ(points[0].request_bytes, 1);
  EXPECT_EQ(points[0].high_share, 0.0);  // one byte is always within a line
  EXPECT_LE(points[1].low_share, points[1].high_share);
  EXPECT_LE(points[1].high_share, 1.0);
  EXPECT_EQ(points[2].low_share, 1.0);  // 72 bytes always reach into a second line
  o.trials = 0;
  EXPECT_THROW((void)run_line_split_bench(o), std::invalid_argument);
  o.trials = 1;
  o.request_bytes = {0};
  EXPECT_THROW((void)run_line_split_bench(o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
