// The allocating operators' plans (sim/include/numatwin/sim/plan/allocation_costs.hpp, aggregation.cpp,
// hash_join.cpp): the allocator's time the plan adds, worked by hand from the growth rule and the
// bucket occupancy, checked as the difference between a prediction with the costs and one with
// every allocator cost zero (the datasets and traffic are the same, so the difference is the
// allocator's time alone); and what a prediction says its allocator costs rest on.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "numatwin/model/generators.hpp"
#include "numatwin/sim/plan/allocation_costs.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "sim_test_machines.hpp"

namespace numatwin::sim {
namespace {

using test_machines::one_node_two_cores;
using test_machines::predicted_s;

// Costs at threads 1 and 2 for sizes 32, 64, 128 (the same figures in both rows), or all zero.
model::AllocatorCosts costs(bool zero) {
  model::AllocatorCosts c;
  c.allocator = "testalloc";
  c.host = "h";
  c.measured_at = "t";
  c.source = "s";
  const double k = zero ? 0.0 : 1.0;
  for (int threads : {1, 2}) {
    //                      size malloc       free        realloc      remote free
    c.points.push_back({threads, 32, 100.0 * k, 8.0 * k, 150.0 * k, 20.0 * k});
    c.points.push_back({threads, 64, 110.0 * k, 9.0 * k, 200.0 * k, 30.0 * k});
    c.points.push_back({threads, 128, 120.0 * k, 50.0 * k, 400.0 * k, 70.0 * k});
  }
  return c;
}

WorkloadSpec per_group_median(int threads) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kMedianAggregation;
  s.allocation = Allocation::kPerGroup;
  s.threads = threads;
  s.data.records = 1000;
  s.data.keys.distribution = KeyDistribution::kSequential;  // every group holds N / G values
  s.data.keys.groups = 100;
  return s;
}

TEST(AllocationPlanTest, PerGroupMedianAddsMallocReallocsAndFreeOfTheGrowthRule) {
  const model::Topology t = one_node_two_cores();
  WorkloadSpec with = per_group_median(1);
  with.allocator_costs = costs(false);
  WorkloadSpec without = per_group_median(1);
  without.allocator_costs = costs(true);
  // k = 1000 / 100 = 10 values per group. Blocks: 32 B holds 3 values, 64 B 7, 128 B 15, so a
  // group mallocs 32 B, reallocs to 64 B and to 128 B (r(10) = ceil(log2(11 / 4)) = 2) and frees
  // a 128-byte block: 100 + 200 + 400 + 50 = 750 ns per group; one thread does all 100 groups:
  // 75 us more.
  EXPECT_NEAR(predicted_s(t, with) - predicted_s(t, without), 100 * 750e-9, 1e-9);
}

TEST(AllocationPlanTest, PerGroupMedianWithTwoThreadsPaysRemoteFreesOnHalfTheBlocks) {
  const model::Topology t = one_node_two_cores();
  WorkloadSpec with = per_group_median(2);
  with.allocator_costs = costs(false);
  WorkloadSpec without = per_group_median(2);
  without.allocator_costs = costs(true);
  // Per group: 100 + 200 + 400 = 700 ns of allocation and a free of 128 B that is remote with
  // probability (2 - 1) / 2: 0.5 x 50 + 0.5 x 70 = 60 ns. Each of the two threads takes half of
  // the 100 groups' time, at the same moments: 50 x 760 ns = 38 us more.
  EXPECT_NEAR(predicted_s(t, with) - predicted_s(t, without), 50 * 760e-9, 1e-9);
}

WorkloadSpec chained_join(int threads) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kHashJoin;
  s.allocation = Allocation::kPerBucket;
  s.threads = threads;
  s.data.build_records = 1000;
  s.data.records = 4000;
  s.data.keys.groups = 1000;
  return s;
}

TEST(AllocationPlanTest, PerBucketJoinAddsOneMallocAndOneFreePerExpectedOverflowNode) {
  const model::Topology t = one_node_two_cores();
  WorkloadSpec with = chained_join(1);
  with.allocator_costs = costs(false);
  WorkloadSpec without = chained_join(1);
  without.allocator_costs = costs(true);
  // B = 512 buckets (the power of two >= 1000 / 2), lambda = 1000 / 512 = 1.953125; overflow
  // nodes M = B (lambda - 1 + e^-lambda) = 512 x (0.953125 + 0.1418...) = 560.6...; a node is 24
  // bytes, the 32-byte class: malloc 100 ns and (one thread: all local) free 8 ns.
  const double m = 512.0 * (1000.0 / 512.0 - 1.0 + std::exp(-1000.0 / 512.0));
  EXPECT_NEAR(m, 560.62, 0.01);
  EXPECT_NEAR(predicted_s(t, with) - predicted_s(t, without), m * 108e-9, 1e-9);
}

TEST(AllocationCountsTest, GrowthRuleReallocsWorkedByHand) {
  // Blocks of 32, 64, 128, 256 bytes hold 3, 7, 15, 31 values (an 8-byte header). A group of k
  // values ends in the first block holding k: reallocs 0 for k <= 3, 1 for 4..7, 2 for 8..15, 3
  // for 16..31.
  for (double k : {1.0, 3.0}) EXPECT_EQ(group_reallocs(k), 0) << k;
  for (double k : {4.0, 7.0}) EXPECT_EQ(group_reallocs(k), 1) << k;
  for (double k : {8.0, 15.0}) EXPECT_EQ(group_reallocs(k), 2) << k;
  for (double k : {16.0, 31.0}) EXPECT_EQ(group_reallocs(k), 3) << k;
  EXPECT_EQ(group_reallocs(32.0), 4);
}

TEST(AllocationCountsTest, BucketsOverflowNodesAndDependentVisitsWorkedByHand) {
  // B = the power of two >= |R| / 2.
  EXPECT_EQ(chained_bucket_count(1.0), 1.0);
  EXPECT_EQ(chained_bucket_count(1000.0), 512.0);
  EXPECT_EQ(chained_bucket_count(1024.0), 512.0);
  EXPECT_EQ(chained_bucket_count(1025.0), 1024.0);
  // |R| = 1024: B = 512, lambda = 2. M = B (lambda - 1 + e^-2) = 512 (1 + 0.135335) = 581.29;
  // D = ((4 - 4 + 2) / 2 - e^-2) / 2 = (1 - 0.135335) / 2 = 0.432332.
  EXPECT_NEAR(expected_overflow_nodes(1024.0), 581.2916, 1e-3);
  EXPECT_NEAR(dependent_node_visits(1024.0), 0.4323324, 1e-6);
}

TEST(AllocationCountsTest, ShareOfValuesBeyondTheHeaderLineWorkedByHand) {
  // Sequential keys: every group holds N / G = 10 values; indices 7, 8, 9 lie beyond the header's
  // line (8 (1 + i) >= 64): 3 of 10.
  WorkloadSpec s = per_group_median(1);
  EXPECT_NEAR(share_beyond_header_line(s), 0.3, 1e-12);
  // Uniform keys with N = G (lambda = 1): E[max(0, X - 7)] = sum_{k >= 8} (k - 7) e^-1 / k!
  // = e^-1 (1 / 8! + 2 / 9! + 3 / 10! + 4 / 11! + 5 / 12! + ...)
  // = 0.367879 x (2.48016e-5 + 5.51146e-6 + 8.26720e-7 + 1.00208e-7 + 1.04384e-8 + ...)
  // = 0.367879 x 3.12513e-5 = 1.14968e-5, over lambda = 1.
  s.data.keys.distribution = KeyDistribution::kUniform;
  s.data.records = 100;
  s.data.keys.groups = 100;
  EXPECT_NEAR(share_beyond_header_line(s), 1.14968e-5, 0.0001e-5);
}

TEST(AllocationPlanTest, PredictionSaysWhatItsAllocatorCostsRestOn) {
  WorkloadSpec s = chained_join(1);
  s.allocator = "tbbmalloc";
  EXPECT_NE(allocator_cost_basis(s).find("tbbmalloc: default"), std::string::npos) << allocator_cost_basis(s);
  s.allocator_costs = costs(false);
  s.allocator = "testalloc";
  EXPECT_NE(allocator_cost_basis(s).find("measured on h at t"), std::string::npos) << allocator_cost_basis(s);
  s.allocation = Allocation::kPreallocated;
  EXPECT_EQ(allocator_cost_basis(s), "");
}

TEST(AllocationPlanTest, AllocationMustFitTheWorkload) {
  WorkloadSpec s = per_group_median(1);
  s.kind = WorkloadKind::kCountAggregation;
  try {
    check_allocation(s);
    ADD_FAILURE() << "per-group COUNT accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--allocation per-group"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)build_plan(one_node_two_cores(), s, nullptr), std::invalid_argument);
  s = chained_join(1);
  s.join_algorithm = JoinAlgorithm::kRadix;
  EXPECT_THROW(check_allocation(s), std::invalid_argument);
  EXPECT_EQ(parse_allocation("per-bucket"), Allocation::kPerBucket);
  EXPECT_EQ(allocation_name(Allocation::kPerGroup), "per-group");
  EXPECT_THROW(parse_allocation("per-tuple"), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
