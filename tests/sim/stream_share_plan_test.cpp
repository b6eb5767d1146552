// The stream shares in the operators' plans (OperatorBuilder::table_loop, subarray.cpp): the
// input stream of a table loop keeps table_stream_share of the core's miss buffers in flight
// when its table stays in the core's own cache, and more as the table leaves it
// (s' = s + (1 - s)(1 - h_private)); the array filter keeps filter_stream_share and costs
// filter_cycles_per_cell a cell. A share of 1 leaves the stream as it was (no limit of its own).
#include <gtest/gtest.h>

#include <stdexcept>
#include <variant>

#include "numatwin/sim/workload/key_distribution.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "sim_test_machines.hpp"

namespace numatwin::sim {
namespace {

using test_machines::one_node_two_cores;

// The first read-input transfer of thread 0.
const Transfer& input_stream(const Plan& plan) {
  for (const Op& op : plan.threads.at(0).ops) {
    if (const auto* tr = std::get_if<Transfer>(&op); tr != nullptr && tr->phase == Phase::kReadInput) return *tr;
  }
  throw std::logic_error("no read-input transfer");
}

WorkloadSpec count(double groups, double share) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kCountAggregation;
  s.threads = 1;
  s.data.records = 1e6;
  s.data.keys = parse_key_distribution("uniform", groups);
  s.costs.table_stream_share = share;
  return s;
}

TEST(StreamSharePlanTest, ATableInTheCoresOwnCacheKeepsTheShareOfTheMissBuffers) {
  const model::Topology t = one_node_two_cores();
  const double m = t.nodes[0].miss_buffers_per_core;
  ASSERT_GT(m, 4.0);
  // 512 groups: 2 x 512 x 16 B = 16 KiB, inside any private cache: h_private = 1, s' = s.
  EXPECT_DOUBLE_EQ(input_stream(build_plan(t, count(512, 0.25), nullptr)).lines_in_flight, 0.25 * m);
}

TEST(StreamSharePlanTest, AShareOfOneLeavesTheStreamWithoutALimitOfItsOwn) {
  const model::Topology t = one_node_two_cores();
  EXPECT_EQ(WorkloadSpec{}.costs.table_stream_share, 1.0);
  EXPECT_EQ(input_stream(build_plan(t, count(512, 1.0), nullptr)).lines_in_flight, 0.0);
}

TEST(StreamSharePlanTest, AccessesThatLeaveThePrivateCacheLiftTheShareTowardsOne) {
  const model::Topology t = one_node_two_cores();
  const double m = t.nodes[0].miss_buffers_per_core;
  // 1e8 groups: a 3.2 GB table, h_private near 0: s' near 1 (but below it).
  const double lines = input_stream(build_plan(t, count(1e8, 0.25), nullptr)).lines_in_flight;
  EXPECT_GT(lines, 0.99 * m);
  EXPECT_LT(lines, m);
  // In between, s' grows with the table: 1e4 groups (320 KiB) keep fewer lines than 1e6 (32 MB).
  const double mid = input_stream(build_plan(t, count(1e4, 0.25), nullptr)).lines_in_flight;
  const double big = input_stream(build_plan(t, count(1e6, 0.25), nullptr)).lines_in_flight;
  EXPECT_LE(0.25 * m, mid);
  EXPECT_LT(mid, big);
}

TEST(StreamSharePlanTest, TheFilterTakesItsOwnCyclesAndShare) {
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s;
  s.kind = WorkloadKind::kSubarray;
  s.threads = 1;
  s.data.records = 1e6;
  s.data.chunks = 4;
  s.data.threads_per_chunk = 1;
  s.costs.filter_cycles_per_cell = 4.0;
  s.costs.scan_cycles_per_tuple = 1.0;  // not the filter's
  s.costs.filter_stream_share = 0.5;
  const Plan plan = build_plan(t, s, nullptr);  // kept: input_stream refers into it
  const Transfer& tr = input_stream(plan);
  EXPECT_DOUBLE_EQ(tr.lines_in_flight, 0.5 * t.nodes[0].miss_buffers_per_core);
  // 4 cycles a cell of 8 bytes: 0.5 cycles a byte.
  EXPECT_DOUBLE_EQ(tr.cycles_per_byte, 4.0 / 8.0);
}

}  // namespace
}  // namespace numatwin::sim
