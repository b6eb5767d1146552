// The sort-merge join's phase-2 loops (sort_merge_join_kernel.hpp) worked by hand: the key range of
// a key, the histogram, and the scatter keeping the chunk's order within each piece.
#include "numatwin/validate/kernels/sort_merge_join_kernel.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace numatwin::validate {
namespace {

// Ranges [0, 3), [3, 7), [7, inf).
const std::vector<std::uint64_t> kLower{0, 3, 7};

TEST(SortMergeJoinKernelTest, KeysFallIntoTheRangeOfTheirLowerBound) {
  EXPECT_EQ(range_of(0, kLower), 0u);
  EXPECT_EQ(range_of(2, kLower), 0u);
  EXPECT_EQ(range_of(3, kLower), 1u);
  EXPECT_EQ(range_of(6, kLower), 1u);
  EXPECT_EQ(range_of(7, kLower), 2u);
  EXPECT_EQ(range_of(1000, kLower), 2u);
  const std::vector<std::uint64_t> one{0};
  EXPECT_EQ(range_of(42, one), 0u);
}

// Chunk keys 8 1 3 0 7 4: range 0 gets 1, 0; range 1 gets 3, 4; range 2 gets 8, 7. With the pieces
// starting at 10 (the worker's area), offsets 10, 12, 14.
TEST(SortMergeJoinKernelTest, ScatterWritesEveryTupleIntoItsRangesPieceInChunkOrder) {
  const std::vector<Tuple> chunk{{8, 80}, {1, 10}, {3, 30}, {0, 0}, {7, 70}, {4, 40}};
  const std::vector<std::size_t> count = range_histogram(chunk, kLower);
  EXPECT_EQ(count, (std::vector<std::size_t>{2, 2, 2}));
  std::vector<Tuple> out(16, Tuple{99, 99});
  range_scatter(chunk, kLower, {10, 12, 14}, out.data());
  const std::vector<std::uint64_t> want{1, 0, 3, 4, 8, 7};
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(out[10 + i].key, want[i]) << i;
    EXPECT_EQ(out[10 + i].value, want[i] * 10) << i;
  }
  EXPECT_EQ(out[9].key, 99u);  // nothing outside the area
}

// Facts 1 2 2 5 against dimensions 2 (value 100) and 5 (value 500): facts 2, 2 and 5 match:
// 3 matches, checksum (100 + 20) + (100 + 21) + (500 + 50).
TEST(SortMergeJoinKernelTest, MergeCountsEveryFactWithItsDimension) {
  const std::vector<Tuple> facts{{1, 10}, {2, 20}, {2, 21}, {5, 50}};
  const std::vector<Tuple> dims{{2, 100}, {5, 500}};
  const JoinTotals t = merge_join(facts, dims);
  EXPECT_EQ(t.matches, 3u);
  EXPECT_EQ(t.checksum, 120u + 121u + 550u);
}

}  // namespace
}  // namespace numatwin::validate
