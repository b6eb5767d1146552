// The allocator's layout figures in the allocating plans (sim/include/numatwin/sim/plan/allocation_costs.hpp:
// scattered reallocs and frees, dependent tail writes and chain reads), worked by hand: the time
// a change of one figure adds, as the difference of two predictions that differ in that figure only.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numatwin/sim/plan/allocation_costs.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "sim_test_machines.hpp"

namespace numatwin::sim {
namespace {

using test_machines::one_node_two_cores;
using test_machines::predicted_s;

// In-order costs as allocation_plan_test's, and layout points at 32, 64, 128, 256 bytes (1 and 2
// threads alike); `extra_*` is added to one figure at every size.
model::AllocatorCosts costs(double extra_realloc, double extra_free, double extra_write, double extra_read) {
  model::AllocatorCosts c;
  c.allocator = "testalloc";
  c.host = "h";
  c.measured_at = "t";
  c.source = "s";
  for (int threads : {1, 2}) {
    //                   size malloc free realloc remote
    c.points.push_back({threads, 32, 100.0, 8.0, 150.0, 20.0});
    c.points.push_back({threads, 128, 120.0, 50.0, 400.0, 70.0});
    //                  size  scattered realloc, free, dependent write, read
    c.layout.push_back({threads, 32, 300.0 + extra_realloc, 50.0 + extra_free, 10.0 + extra_write, 40.0 + extra_read});
    c.layout.push_back({threads, 64, 500.0 + extra_realloc, 60.0 + extra_free, 12.0 + extra_write, 44.0 + extra_read});
    c.layout.push_back({threads, 128, 700.0 + extra_realloc, 90.0 + extra_free, 14.0 + extra_write, 48.0 + extra_read});
    c.layout.push_back({threads, 256, 900.0 + extra_realloc, 95.0 + extra_free, 20.0 + extra_write, 52.0 + extra_read});
  }
  return c;
}

WorkloadSpec per_group_median(int threads, double records, double groups) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kMedianAggregation;
  s.allocation = Allocation::kPerGroup;
  s.threads = threads;
  s.data.records = records;
  s.data.keys.distribution = KeyDistribution::kSequential;  // every group holds N / G values
  s.data.keys.groups = groups;
  return s;
}

WorkloadSpec chained_join() {
  WorkloadSpec s;
  s.kind = WorkloadKind::kHashJoin;
  s.allocation = Allocation::kPerBucket;
  s.threads = 1;
  s.data.build_records = 1000;
  s.data.records = 4000;
  s.data.keys.groups = 1000;
  return s;
}

// The ratio a plan note starting with `prefix` gives ("...: LLC hit ratio 0.7059"), -1 without it.
double noted_ratio(const PlanReport& report, const std::string& prefix) {
  for (const std::string& n : report.notes)
    if (n.rfind(prefix, 0) == 0) return std::stod(n.substr(prefix.size()));
  return -1.0;
}

// The bytes of a thread plan's transfers that `pick` accepts.
template <class Pick>
double transfer_bytes(const ThreadPlan& tp, Pick pick) {
  double bytes = 0.0;
  for (const Op& op : tp.ops)
    if (const auto* tr = std::get_if<Transfer>(&op); tr && pick(*tr)) bytes += tr->bytes;
  return bytes;
}

const std::string kAppendHit = "group entries, block headers and tails (append): LLC hit ratio ";

// MEDIAN per group on 2 workers, 2e7 values over 2e6 groups, the layout figures of
// costs(0, 0, 0, 0): the append's hit ratio (the plan's note) and each worker's bytes of the
// transfers `pick` accepts.
struct PickedBytes {
  double hit = -1.0;
  std::vector<double> per_worker;
};
template <class Pick>
PickedBytes two_worker_median_bytes(Pick pick) {
  WorkloadSpec s = per_group_median(2, 2e7, 2e6);
  s.allocator_costs = costs(0, 0, 0, 0);
  PlanReport report;
  const Plan plan = build_operator_plan(one_node_two_cores(), s, &report);
  PickedBytes out{noted_ratio(report, kAppendHit), {}};
  for (const ThreadPlan& tp : plan.threads) out.per_worker.push_back(transfer_bytes(tp, [&](const Transfer& tr) { return pick(tr, s); }));
  return out;
}

TEST(AllocationLayoutPlanTest, MedianReallocsCostTheScatteredFigure) {
  const model::Topology t = one_node_two_cores();
  WorkloadSpec base = per_group_median(1, 1000, 100);
  base.allocator_costs = costs(0, 0, 0, 0);
  WorkloadSpec more = base;
  more.allocator_costs = costs(1000.0, 0, 0, 0);
  // k = 10 values per group: reallocs to 64 and 128 bytes (r(10) = 2), each 1000 ns more in the
  // scattered figure: 100 groups x 2 x 1000 ns = 200 us more on the one thread.
  EXPECT_NEAR(predicted_s(t, more) - predicted_s(t, base), 100 * 2 * 1000e-9, 1e-9);
}

TEST(AllocationLayoutPlanTest, SharedTableReallocsCostTheSharedFigure) {
  // MEDIAN's table is shared by its workers: at 2 threads every realloc costs shared_realloc_ns.
  // 2000 groups of k = 10 values (r(10) = 2 reallocs each, to 64 and 128 bytes), split over 2
  // workers: 1000 groups x 2 reallocs per worker. Measured shared figures 1000 ns above the
  // scattered ones at every size (1300, 1500, 1700, 1900) add 1000 x 2 x 1000 ns = 2 ms to each
  // worker, so to the run.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec base = per_group_median(2, 20000, 2000);
  base.allocator_costs = costs(0, 0, 0, 0);
  WorkloadSpec shared = base;
  for (model::AllocatorLayoutPoint& p : shared.allocator_costs->layout) {
    if (p.threads == 2) p.shared_realloc_ns = p.scattered_realloc_ns + 1000.0;
  }
  EXPECT_NEAR(predicted_s(t, shared) - predicted_s(t, base), 1000 * 2 * 1000e-9, 1e-9);
  // At one thread the same file changes nothing: every block is the thread's own.
  WorkloadSpec one = base;
  one.threads = 1;
  WorkloadSpec one_shared = shared;
  one_shared.threads = 1;
  EXPECT_EQ(predicted_s(t, one_shared), predicted_s(t, one));
}

TEST(AllocationLayoutPlanTest, FreesOutOfAllocationOrderAddTheScatteredExcess) {
  const model::Topology t = one_node_two_cores();
  // MEDIAN, k = 10: the last block is 128 B; in order free 50 ns, scattered 90 ns: a free costs
  // 50 + (90 - 50) = 90 ns; raising the scattered figure by 300 ns adds 100 x 300 ns = 30 us.
  WorkloadSpec base = per_group_median(1, 1000, 100);
  base.allocator_costs = costs(0, 0, 0, 0);
  WorkloadSpec more = base;
  more.allocator_costs = costs(0, 300.0, 0, 0);
  EXPECT_NEAR(predicted_s(t, more) - predicted_s(t, base), 100 * 300e-9, 1e-9);
  // The chained join: M = 512 (lambda - 1 + e^-lambda) nodes (lambda = 1000 / 512), each freed
  // out of order: M x 300 ns more.
  const double m = 512.0 * (1000.0 / 512.0 - 1.0 + std::exp(-1000.0 / 512.0));
  WorkloadSpec join = chained_join();
  join.allocator_costs = costs(0, 0, 0, 0);
  WorkloadSpec join_more = join;
  join_more.allocator_costs = costs(0, 300.0, 0, 0);
  EXPECT_NEAR(predicted_s(t, join_more) - predicted_s(t, join), m * 300e-9, 1e-9);
}

TEST(AllocationLayoutPlanTest, TailWriteAndNodeReadCostsWorkedByHand) {
  // k = 20 values per group: tails at indices 7..19; the value at index i lies in the block
  // grown for i + 1 values: 8..15 values -> 128 B (r = 2), 16..20 -> 256 B (r = 3). Mean over the
  // 13 tails: (8 x 14 + 5 x 20) / 13 = 212 / 13 ns.
  WorkloadSpec s = per_group_median(1, 2000, 100);
  s.allocator_costs = costs(0, 0, 0, 0);
  const DependentCost tail = tail_write_cost(s, 1);
  EXPECT_TRUE(tail.measured);
  EXPECT_NEAR(tail.ns, 212.0 / 13.0, 1e-12);
  // A node of 24 bytes: the 32-byte class's dependent read, 40 ns.
  WorkloadSpec j = chained_join();
  j.allocator_costs = costs(0, 0, 0, 0);
  EXPECT_NEAR(node_read_cost(j, 1).ns, 40.0, 1e-12);
  // Without layout points: not measured (the plans keep one miss at a time).
  j.allocator_costs->layout.clear();
  EXPECT_FALSE(node_read_cost(j, 1).measured);
  s.allocator_costs->layout.clear();
  EXPECT_FALSE(tail_write_cost(s, 1).measured);
}

TEST(AllocationLayoutPlanTest, JoinNodesAreMallocdAtTheReuseFigure) {
  // M = 512 (lambda - 1 + e^-lambda) nodes (lambda = 1000 / 512) on one thread: a reuse figure of
  // 100 + 400 ns at every size instead of the hot malloc (100 ns at 32 B) adds M x 400 ns.
  const model::Topology t = one_node_two_cores();
  const double m = 512.0 * (1000.0 / 512.0 - 1.0 + std::exp(-1000.0 / 512.0));
  WorkloadSpec join = chained_join();
  join.allocator_costs = costs(0, 0, 0, 0);
  WorkloadSpec reuse = join;
  for (model::AllocatorLayoutPoint& p : reuse.allocator_costs->layout) p.reuse_malloc_ns = 500.0;
  EXPECT_NEAR(predicted_s(t, reuse) - predicted_s(t, join), m * 400e-9, 1e-9);
  // MEDIAN's first blocks keep the hot malloc: the same figure changes nothing there.
  WorkloadSpec median = per_group_median(1, 1000, 100);
  median.allocator_costs = reuse.allocator_costs;
  WorkloadSpec median_hot = median;
  median_hot.allocator_costs = costs(0, 0, 0, 0);
  EXPECT_EQ(predicted_s(t, median), predicted_s(t, median_hot));
}

TEST(AllocationLayoutPlanTest, LockedWritesAddToTheTailsWhenTheKernelLocks) {
  // k = 20 as above, locked_write_ns 30 at every size: with 2 workers each tail miss costs the
  // write figure plus 30 (the kernel locks the slot per append): 212 / 13 + 30 ns; with 1 worker
  // (no lock) the figure does not enter: 212 / 13.
  WorkloadSpec s = per_group_median(2, 2000, 100);
  s.allocator_costs = costs(0, 0, 0, 0);
  for (model::AllocatorLayoutPoint& p : s.allocator_costs->layout) p.locked_write_ns = 30.0;
  EXPECT_NEAR(tail_write_cost(s, 2).ns, 212.0 / 13.0 + 30.0, 1e-12);
  EXPECT_NEAR(tail_write_cost(s, 1).ns, 212.0 / 13.0, 1e-12);
}

TEST(AllocationLayoutPlanTest, DependentTailWritesAddTheirMissesTimesTheFigure) {
  const model::Topology t = one_node_two_cores();
  // 2e7 values over 2e6 groups (k = 10): tails = 3 of 10 values = 6e6, each in the block grown to
  // 128 bytes (the dependent write figure there: 14 ns + extra). With the figure above llc_hit_ns
  // (20 ns) a share h' of the tails hits the LLC and costs llc_hit_ns, the rest the figure:
  // 100 ns more adds 6e6 x (1 - h') x 100 ns, between 0 and 0.6 s, and 200 ns more twice that.
  WorkloadSpec base = per_group_median(1, 2e7, 2e6);
  base.allocator_costs = costs(0, 0, 100.0, 0);
  WorkloadSpec more = base;
  more.allocator_costs = costs(0, 0, 200.0, 0);
  WorkloadSpec twice = base;
  twice.allocator_costs = costs(0, 0, 300.0, 0);
  const double added = predicted_s(t, more) - predicted_s(t, base);
  EXPECT_GT(added, 0.0);
  EXPECT_LE(added, 0.6 + 1e-9);
  EXPECT_NEAR(predicted_s(t, twice) - predicted_s(t, base), 2.0 * added, 1e-9);
}

TEST(AllocationLayoutPlanTest, ATailThatHitsCostsNoMoreThanOneThatMisses) {
  // A tail write that hits the LLC is buffered as one that misses: with the figure below
  // llc_hit_ns (20 ns) every tail costs the figure, hit or miss. 14 ns against 10 ns (extra -4):
  // 6e6 tails x 4 ns = 0.024 s, whatever h'. Fails on the session-31 model, where the hits cost
  // llc_hit_ns in both and the difference was 6e6 x (1 - h') x 4 ns.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec at14 = per_group_median(1, 2e7, 2e6);
  at14.allocator_costs = costs(0, 0, 0, 0);
  WorkloadSpec at10 = at14;
  at10.allocator_costs = costs(0, 0, -4.0, 0);
  EXPECT_NEAR(predicted_s(t, at14) - predicted_s(t, at10), 6e6 * 4e-9, 1e-9);
}

TEST(AllocationLayoutPlanTest, TheSelectWaitsForEachBlocksFirstLine) {
  // The select reaches each group's block through its slot, with no prefetch ahead: per worker
  // G / n dependent reads of one line, the share 1 - h' of them one line in flight. 2 workers,
  // 2e6 groups: each worker's plan has, in the sort/merge phase, one read of 1e6 x (1 - h') x 64
  // bytes at one line in flight, h' the append's hit ratio (the plan's note). Fails on the
  // session-31 model, whose select had no transfer at one line in flight.
  const PickedBytes picked =
      two_worker_median_bytes([](const Transfer& tr, const WorkloadSpec&) { return tr.phase == Phase::kSortMerge && tr.lines_in_flight == 1.0; });
  ASSERT_GE(picked.hit, 0.0);
  ASSERT_LT(picked.hit, 0.99);
  ASSERT_EQ(picked.per_worker.size(), 2u);
  // The note rounds h' to 4 decimals: 1e6 x 64 x 5e-5 bytes of slack.
  for (double bytes : picked.per_worker) EXPECT_NEAR(bytes, 1e6 * (1.0 - picked.hit) * 64.0, 1e6 * 64.0 * 5e-5);
}

TEST(AllocationLayoutPlanTest, TheAppendUpdatesEachValuesHeaderLine) {
  // Every append reads its block's header (prefetched d values ahead, as the slot is) and writes
  // the count back: per worker one random update of the heap per value, as the update of the
  // group's slot. 2 workers, 2e7 values: each worker's append phase has, at
  // random_lines_in_flight, 1e7 x (1 - h) x 64 bytes of slot misses and as many of header misses,
  // h the note's hit ratio (a group's entry, header line and tail line). Until session 33 only
  // the slot's were there.
  const PickedBytes picked = two_worker_median_bytes([](const Transfer& tr, const WorkloadSpec& s) {
    return tr.phase == Phase::kUpdateTable && tr.lines_in_flight == s.costs.random_lines_in_flight && !tr.write_spread.empty();
  });
  ASSERT_GE(picked.hit, 0.0);
  ASSERT_LT(picked.hit, 0.99);
  ASSERT_EQ(picked.per_worker.size(), 2u);
  // The note rounds h to 4 decimals: 2 x 1e7 x 64 x 5e-5 bytes of slack.
  for (double bytes : picked.per_worker) EXPECT_NEAR(bytes, 2.0 * 1e7 * (1.0 - picked.hit) * 64.0, 2.0 * 1e7 * 64.0 * 5e-5);
}

TEST(AllocationLayoutPlanTest, TheSelectReadsEachBlockWholeWhereMeasured) {
  // With block_read_ns measured at every size, each of a worker's G / n groups whose block misses
  // the LLC (1 - x, x the plan's note) adds it to the select: 2 workers, 2e6 groups of k = 10
  // values each (sequential keys), blocks of 32 x 2^r(10) = 128 bytes. Raising the figure from
  // 100 to 300 ns at every size adds 1e6 x (1 - x) x 200 ns to each worker's select, and both
  // run at once. The first line is then no longer its own one-line-in-flight read.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = per_group_median(2, 2e7, 2e6);
  const auto with_block_read = [](double ns) {
    model::AllocatorCosts c = costs(0, 0, 0, 0);
    for (model::AllocatorLayoutPoint& p : c.layout) p.block_read_ns = ns;
    return c;
  };
  s.allocator_costs = with_block_read(100.0);
  PlanReport report;
  const Plan plan = build_operator_plan(t, s, &report);
  const double x = noted_ratio(report, "value blocks (selection, each read whole before the next): LLC hit ratio ");
  ASSERT_GE(x, 0.0);
  ASSERT_LT(x, 0.99);
  for (const ThreadPlan& tp : plan.threads) {
    EXPECT_EQ(transfer_bytes(tp, [](const Transfer& tr) { return tr.phase == Phase::kSortMerge && tr.lines_in_flight == 1.0; }), 0.0);
  }
  WorkloadSpec slower = s;
  slower.allocator_costs = with_block_read(300.0);
  // The note rounds x to 4 decimals: 1e6 x 200 ns x 5e-5 of slack.
  EXPECT_NEAR(predicted_s(t, slower) - predicted_s(t, s), 1e6 * (1.0 - x) * 200e-9, 1e6 * 200e-9 * 5e-5 + 1e-9);
  // The figure at the group's block class: block_read_ns = the class's bytes gives 128 ns.
  model::AllocatorCosts by_size = costs(0, 0, 0, 0);
  for (model::AllocatorLayoutPoint& p : by_size.layout) p.block_read_ns = static_cast<double>(p.size_bytes);
  s.allocator_costs = by_size;
  EXPECT_TRUE(block_read_cost(s, 2).measured);
  EXPECT_DOUBLE_EQ(block_read_cost(s, 2).ns, 128.0);
  // Uniform keys: the mean over the group sizes; with one figure at every size, that figure.
  s.data.keys.distribution = KeyDistribution::kUniform;
  s.allocator_costs = with_block_read(250.0);
  EXPECT_NEAR(block_read_cost(s, 2).ns, 250.0, 1e-6);
  s.allocator_costs = costs(0, 0, 0, 0);
  EXPECT_FALSE(block_read_cost(s, 2).measured);
}

TEST(AllocationLayoutPlanTest, BasisSaysWhenTheLayoutFiguresAreMissing) {
  WorkloadSpec s = chained_join();
  s.allocator = "testalloc";
  s.allocator_costs = costs(0, 0, 0, 0);
  EXPECT_EQ(allocator_cost_basis(s).find("no layout figures"), std::string::npos) << allocator_cost_basis(s);
  s.allocator_costs->layout.clear();
  EXPECT_NE(allocator_cost_basis(s).find("no layout figures"), std::string::npos) << allocator_cost_basis(s);
}

}  // namespace
}  // namespace numatwin::sim
