// What each workload counts as its input (workload_input.hpp), by hand.
#include <gtest/gtest.h>

#include "numatwin/sim/workload/workload_input.hpp"

namespace numatwin::sim {
namespace {

TEST(WorkloadInputTest, AShuffleCountsTheBytesShuffledInElements) {
  // 1.28e10 bytes of 8-byte integers: 1.6e9 elements (the study's kernel).
  WorkloadSpec s;
  s.kind = WorkloadKind::kMigrationAndCopy;
  s.total_bytes = 1.28e10;
  const WorkloadInput in = workload_input(s);
  EXPECT_DOUBLE_EQ(in.bytes, 1.28e10);
  EXPECT_DOUBLE_EQ(in.tuples, 1.6e9);
}

TEST(WorkloadInputTest, PartitionedAggregationCountsItsRecordsNotItsTable) {
  // 1e8 records of 16 bytes: 1.6e9 bytes, whatever the groups (the table is state, not input).
  WorkloadSpec s;
  s.kind = WorkloadKind::kPartitionedAggregation;
  s.data.records = 1e8;
  s.data.keys.groups = 1e9;
  EXPECT_DOUBLE_EQ(workload_input(s).tuples, 1e8);
  EXPECT_DOUBLE_EQ(workload_input(s).bytes, 1.6e9);
}

TEST(WorkloadInputTest, JoinsCountBothSidesButTheIndexJoinOnlyItsProbes) {
  // Hash join: 2.56e8 + 1.6e7 = 2.72e8 tuples; index join: the 2.56e8 probes only.
  WorkloadSpec s;
  s.data.records = 2.56e8;
  s.data.build_records = 1.6e7;
  s.data.tuple_bytes = 16;
  s.kind = WorkloadKind::kHashJoin;
  EXPECT_DOUBLE_EQ(workload_input(s).tuples, 2.72e8);
  EXPECT_DOUBLE_EQ(workload_input(s).bytes, 2.72e8 * 16);
  s.kind = WorkloadKind::kSortMergeJoin;
  EXPECT_DOUBLE_EQ(workload_input(s).tuples, 2.72e8);
  s.kind = WorkloadKind::kIndexJoin;
  EXPECT_DOUBLE_EQ(workload_input(s).tuples, 2.56e8);
}

}  // namespace
}  // namespace numatwin::sim
