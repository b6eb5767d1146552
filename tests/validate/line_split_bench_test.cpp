// Blocks across two lines (validate/line_split_bench.hpp): the split rule, a run's share by phase
// and stride, the stride and the range from two runs' addresses, all worked by hand; and a run in
// this process's allocator checked only where the answer does not depend on the allocator (a
// 1-byte block never spans two lines, a 72-byte block always does).
#include "numatwin/validate/alloc/line_split_bench.hpp"

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
  EXPECT_FALSE(spans_two_lines(0x1030, 0));  // nothing to span
  static_assert(spans_two_lines(0x1030, 24) && !spans_two_lines(0x1020, 24));
}

TEST(LineSplitBenchTest, ARunsShareIsOnePeriodOfItsOffsets) {
  // Stride 32, 24 bytes: phase 0 -> offsets 0, 32: none split; phase 16 -> 16, 48: one of two.
  EXPECT_EQ(run_split_share(0, 32, 24), 0.0);
  EXPECT_EQ(run_split_share(16, 32, 24), 0.5);
  // Stride 48 (40-byte blocks, jemalloc's 48-byte class): period 64 / gcd(48, 64) = 4, offsets
  // 0, 48, 32, 16; 48 + 40 and 32 + 40 pass 64: two of four.
  EXPECT_EQ(run_split_share(0, 48, 40), 0.5);
  // Stride 64, 64 bytes at phase 0: every block fills one line exactly.
  EXPECT_EQ(run_split_share(0, 64, 64), 0.0);
  EXPECT_EQ(run_split_share(8, 16, 72), 1.0);  // above a line: always
  EXPECT_THROW((void)run_split_share(0, 0, 24), std::invalid_argument);
}

TEST(LineSplitBenchTest, StrideIsTheMostFrequentPositiveDifference) {
  EXPECT_EQ(run_stride({0x1010, 0x1030, 0x1050, 0x9000, 0x9020, 0x9040}), 0x20U);
  EXPECT_EQ(run_stride({0x9000, 0x1000}), 0U);  // no positive difference
  EXPECT_EQ(run_stride({}), 0U);
}

TEST(LineSplitBenchTest, RangeComesFromThePhasesBothRunsShow) {
  // glibc-like: the plain run at stride 32 from 0x1010 (phase 16); the interleaved run moves
  // 32 + 48 = 80 bytes per block (phases 0 and 16 in turn): P = {0, 16}, 0..0.5.
  std::vector<std::uintptr_t> plain, interleaved;
  for (std::uintptr_t j = 0; j < 8; ++j) {
    plain.push_back(0x1010 + 32 * j);
    interleaved.push_back(0x2010 + 80 * j);
  }
  model::LineSplitPoint p = line_split_from(24, plain, interleaved);
  EXPECT_EQ(p.request_bytes, 24);
  EXPECT_EQ(p.low_share, 0.0);
  EXPECT_EQ(p.high_share, 0.5);
  // jemalloc-like: 24-byte blocks always at multiples of 32, the 40-byte blocks elsewhere.
  for (std::uintptr_t j = 0; j < 8; ++j) {
    plain[j] = 0x4000 + 32 * j;
    interleaved[j] = 0x5000 + 32 * j;
  }
  p = line_split_from(24, plain, interleaved);
  EXPECT_EQ(p.low_share, 0.0);
  EXPECT_EQ(p.high_share, 0.0);
  EXPECT_THROW((void)line_split_from(24, {}, interleaved), std::invalid_argument);
}

TEST(LineSplitBenchTest, ARunGivesOnePointPerSizeWithTheAllocatorFreeAnswersWhereThereAreSome) {
  LineSplitBenchOptions o;
  o.request_bytes = {1, 24, 72};
  o.blocks = 256;
  const std::vector<model::LineSplitPoint> points = run_line_split_bench(o);
  ASSERT_EQ(points.size(), 3U);
  EXPECT_EQ(points[0].request_bytes, 1);
  EXPECT_EQ(points[0].high_share, 0.0);  // one byte is always within a line
  EXPECT_LE(points[1].low_share, points[1].high_share);
  EXPECT_LE(points[1].high_share, 1.0);
  EXPECT_EQ(points[2].low_share, 1.0);  // 72 bytes always reach into a second line
  o.blocks = 1;
  EXPECT_THROW((void)run_line_split_bench(o), std::invalid_argument);
  o.blocks = 2;
  o.request_bytes = {0};
  EXPECT_THROW((void)run_line_split_bench(o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
