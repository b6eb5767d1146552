// The dependent-miss grid (model/dependent_miss.hpp, the topology's /dependent_misses) in the
// allocating plans (sim/include/numatwin/sim/plan/allocation_costs.hpp): the chained join's deeper
// nodes at the probe's own k and w (MEDIAN's tails, writes, do not read it), worked by hand as ratios of
// prediction differences (the LLC hit share of the misses cancels out).
#include <gtest/gtest.h>

#include <cmath>

#include "numatwin/sim/plan/allocation_costs.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "sim_test_machines.hpp"

namespace numatwin::sim {
namespace {

using test_machines::one_node_two_cores;
using test_machines::predicted_s;

// In-order costs and one layout point (dependent read 40 ns, write 10 ns) per thread count.
model::AllocatorCosts costs() {
  model::AllocatorCosts c;
  c.allocator = "testalloc";
  c.host = "h";
  c.measured_at = "t";
  c.source = "s";
  for (int threads : {1, 2}) {
    c.points.push_back({threads, 32, 100.0, 8.0, 150.0, 20.0});
    c.layout.push_back({threads, 32, 300.0, 50.0, 10.0, 40.0});
  }
  return c;
}

// k in {1, 8}, w in {0, 4}; miss_ns(k, w) = the given four.
model::DependentMissGrid grid(double k1w0, double k1w4, double k8w0, double k8w4, double unit_ns = 1.0) {
  model::DependentMissGrid g;
  g.work_unit_ns = unit_ns;
  g.host = "gridhost";
  g.measured_at = "gridtime";
  g.source = "s";
  g.points = {{1.0, 0.0, k1w0, {}, {}, {}}, {1.0, 4.0, k1w4, {}, {}, {}}, {8.0, 0.0, k8w0, {}, {}, {}}, {8.0, 4.0, k8w4, {}, {}, {}}};
  return g;
}

model::DependentMissGrid flat(double ns) { return grid(ns, ns, ns, ns); }

// The quiet table's chained join, scaled down: |R| = 2e6 over 2^20 buckets, |S| = 2e6.
WorkloadSpec chained_join() {
  WorkloadSpec s;
  s.kind = WorkloadKind::kHashJoin;
  s.allocation = Allocation::kPerBucket;
  s.threads = 1;
  s.data.build_records = 2e6;
  s.data.records = 2e6;
  s.data.keys.groups = 2e6;
  s.allocator = "testalloc";
  s.allocator_costs = costs();
  return s;
}

double with_grid(model::Topology t, const WorkloadSpec& s, const std::optional<model::DependentMissGrid>& g) {
  t.dependent_misses = g;
  return predicted_s(t, s);
}

TEST(DependentMissPlanTest, ShareOfProbesWithADeeperNodeWorkedByHand) {
  // lambda = 2e6 / 2^20 = 1.9073486; e^-lambda = 0.1484735;
  // q = (lambda - 2 + 2 e^-lambda + lambda e^-lambda) / lambda
  //   = (1.9073486 - 2 + 0.2969470 + 0.2831911) / 1.9073486 = 0.4874867 / 1.9073486 = 0.2555833
  // (the scratch program counted 0.255 of probes in classes >= 2, docs/chained-probe.md).
  EXPECT_NEAR(probes_with_deeper_nodes(2e6), 0.2555833, 1e-6);
  EXPECT_NEAR(dependent_node_visits(2e6), 0.4001194, 1e-6);
}

TEST(DependentMissPlanTest, TheGridChangesTheJoinWhereTheLayoutFigureDidNot) {
  // Fails on the model before the grid (main at 9960e25): the grid was not read, so every
  // prediction below was the same and the ratio 0 / 0.
  // The deeper nodes that miss, |S| D (1 - h), cost 40 ns (the layout figure) without the grid;
  // with a flat grid of 200 or 360 ns they cost that instead: the two differences are
  // |S| D (1 - h) x 160 and x 320 ns, ratio 0.5, once the grid's work unit (1 ns) is taken off:
  // with the grid the chained loops pay their extra finalisers, (2 |S| + |R|) x 1 ns = 0.006 s.
  const model::Topology t = one_node_two_cores();
  const WorkloadSpec s = chained_join();
  const double hashes = (2.0 * 2e6 + 2e6) * 1e-9;
  const double none = with_grid(t, s, std::nullopt);
  const double d200 = with_grid(t, s, flat(200.0)) - none - hashes;
  const double d360 = with_grid(t, s, flat(360.0)) - none - hashes;
  EXPECT_GT(d200, 0.0);
  EXPECT_NEAR(d200 / d360, 0.5, 1e-6);
  // At most every deeper node missing: |S| D x 160 ns = 2e6 x 0.4001194 x 160e-9 = 0.128 s.
  EXPECT_LE(d200, 2e6 * 0.4001194 * 160e-9 + 1e-9);
}

TEST(DependentMissPlanTest, JoinReadsTheGridAtItsOwnK) {
  // A grid that grows in k only: 100 ns at k = 1, 400 ns at k = 8. The probe's
  // k = 1 / q = 1 / 0.2555833 = 3.912619, log2 3.912619 / log2 8 = 1.968133 / 3 = 0.656044,
  // so miss_ns = 100 + 0.656044 x 300 = 296.81 ns. Against flat grids of 100 and 400 ns:
  // (P(k-grid) - P(100)) / (P(400) - P(100)) = 0.656044.
  const model::Topology t = one_node_two_cores();
  const WorkloadSpec s = chained_join();
  const double p100 = with_grid(t, s, flat(100.0));
  const double p400 = with_grid(t, s, flat(400.0));
  const double pk = with_grid(t, s, grid(100.0, 100.0, 400.0, 400.0));
  EXPECT_NEAR((pk - p100) / (p400 - p100), 0.656044, 1e-5);
}

TEST(DependentMissPlanTest, JoinReadsTheGridAtItsThreeFinalisers) {
  // A grid that grows in w only: 100 ns at w = 0, 500 ns at w = 4. The probe's w is the three
  // splitmix64 finalisers validate's chained_probe computes per probe (the grid's unit), whatever
  // the operator costs' core cycles: miss_ns = 100 + 3 / 4 x 400 = 400 ns, three quarters of the
  // way, with scan + join = 1 + 3 cycles and with 1 + 11. Fails on the session-31 model, whose w
  // was (scan + join cycles) / f in units: with the unit at (4 cycles / f) / 3 the first case gave
  // 0.75 too, the second w = 9 (clamped to 4): 1.
  const model::Topology t = one_node_two_cores();
  const double unit = 4.0 / t.nodes[0].frequency_ghz / 3.0;
  for (const double join_cycles : {3.0, 11.0}) {
    WorkloadSpec s = chained_join();
    s.costs.scan_cycles_per_tuple = 1.0;
    s.costs.join_cycles_per_tuple = join_cycles;
    const double p100 = with_grid(t, s, grid(100.0, 100.0, 100.0, 100.0, unit));
    const double p500 = with_grid(t, s, grid(500.0, 500.0, 500.0, 500.0, unit));
    const double pw = with_grid(t, s, grid(100.0, 500.0, 100.0, 500.0, unit));
    EXPECT_NEAR((pw - p100) / (p500 - p100), 0.75, 1e-6) << "join cycles " << join_cycles;
  }
}

TEST(DependentMissPlanTest, TheChainedLoopsPayTheirExtraFinalisers) {
  // The join cycles come from the preallocated loop, one multiply hash per tuple; the chained
  // probe computes three finalisers and its build two, so with the grid the plan adds
  // (3 - 1) units per probe and (2 - 1) per build tuple of core time. One thread, flat grids of
  // the same miss cost with a work unit of 1 and of 3 ns: the prediction moves by
  // (2 |S| + |R|) x (3 - 1) ns = (2 x 2e6 + 2e6) x 2e-9 s = 0.012 s.
  const model::Topology t = one_node_two_cores();
  const WorkloadSpec s = chained_join();
  model::DependentMissGrid one = flat(100.0);
  model::DependentMissGrid three = flat(100.0);
  one.work_unit_ns = 1.0;
  three.work_unit_ns = 3.0;
  EXPECT_NEAR(with_grid(t, s, three) - with_grid(t, s, one), 0.012, 1e-9);
}

// A flat grid of `first` ns with a flat second miss of `second` ns.
model::DependentMissGrid flat_with_second(double first, double second) {
  model::DependentMissGrid g = flat(first);
  for (model::DependentMissPoint& p : g.points) p.second_miss_ns = second;
  return g;
}

TEST(DependentMissPlanTest, NodesBehindAnotherCostTheSecondMiss) {
  // Per probe, q = 0.2555833 first deeper nodes cost the first miss and D - q = 0.4001194 -
  // 0.2555833 = 0.1445361 nodes behind another cost the second, both times (1 - h) per node:
  // raising the second by 100 ns adds |S| (D - q)(1 - h) x 100 ns, raising the first by 100 ns
  // adds |S| q (1 - h) x 100 ns; their ratio is (D - q) / q = 0.5655123.
  const model::Topology t = one_node_two_cores();
  const WorkloadSpec s = chained_join();
  const double base = with_grid(t, s, flat_with_second(100.0, 100.0));
  const double more_second = with_grid(t, s, flat_with_second(100.0, 200.0)) - base;
  const double more_first = with_grid(t, s, flat_with_second(200.0, 100.0)) - base;
  EXPECT_GT(more_second, 0.0);
  EXPECT_NEAR(more_second / more_first, 0.1445361 / 0.2555833, 1e-5);
  // The same figure for both is the grid without a second miss: every deeper node alike.
  EXPECT_NEAR(base, with_grid(t, s, flat(100.0)), 1e-12);
}

// A flat grid with the split figures (and the second miss when `second` >= 0).
model::DependentMissGrid flat_split(double first, double head, double split_miss, double second = -1.0) {
  model::DependentMissGrid g = flat(first);
  for (model::DependentMissPoint& p : g.points) {
    p.split_head_ns = head;
    p.split_miss_ns = split_miss;
    if (second >= 0.0) p.second_miss_ns = second;
  }
  return g;
}

WorkloadSpec with_line_split(double low, double high) {
  WorkloadSpec s = chained_join();
  s.allocator_costs->line_splits = {{24, low, high}};
  return s;
}

TEST(DependentMissPlanTest, NodesAcrossTwoLinesAddTheSplitFiguresAtTheMidShare) {
  // M = 2^20 (lambda - 1 + e^-lambda) = 1048576 x 1.0558221 = 1107109 nodes, so f1 = M / |R| =
  // 0.5535545 first-node visits per probe; D = 0.4001194 deeper nodes. Line split 0..0.5: s = 0.25.
  // Per probe and LLC miss the split adds s (f1 head + D split_miss) (no second miss in the grid):
  // raising the head figure by 100 ns adds |S| (1 - h) s f1 x 100, raising the first miss by 100
  // adds |S| (1 - h) D x 100: ratio s f1 / D = 0.25 x 0.5535545 / 0.4001194 = 0.3458675;
  // raising the split miss by 100 adds |S| (1 - h) s D x 100: ratio s = 0.25.
  const model::Topology t = one_node_two_cores();
  const WorkloadSpec s = with_line_split(0.0, 0.5);
  const double base = with_grid(t, s, flat_split(100.0, 0.0, 0.0));
  const double more_head = with_grid(t, s, flat_split(100.0, 100.0, 0.0)) - base;
  const double more_split = with_grid(t, s, flat_split(100.0, 0.0, 100.0)) - base;
  const double more_first = with_grid(t, s, flat_split(200.0, 0.0, 0.0)) - base;
  EXPECT_GT(more_head, 0.0);
  EXPECT_NEAR(more_head / more_first, 0.25 * 0.5535545 / 0.4001194, 1e-5);
  EXPECT_NEAR(more_split / more_first, 0.25, 1e-6);
  // No split measured for the allocator, or a grid without the split figures: as before.
  EXPECT_NEAR(with_grid(t, chained_join(), flat_split(100.0, 100.0, 100.0)), base, 1e-12);
  EXPECT_NEAR(with_grid(t, s, flat(100.0)), base, 1e-12);
  // An allocator that splits none (jemalloc's 0..0): nothing added.
  EXPECT_NEAR(with_grid(t, with_line_split(0.0, 0.0), flat_split(100.0, 100.0, 100.0)), base, 1e-12);
}

TEST(DependentMissPlanTest, TheDeeperNodeBehindASplitFirstNodeIsAMissBehindAMiss) {
  // With the second miss 40 ns above the first and no split figures' own cost, the split adds
  // s q (second - first) = 0.25 x 0.2555833 x 40 per probe and LLC miss; raising the first and the
  // second miss by 100 together adds D x 100: ratio 0.25 x 0.2555833 x 40 / (0.4001194 x 100) = 0.0638767.
  const model::Topology t = one_node_two_cores();
  const WorkloadSpec s = with_line_split(0.0, 0.5);
  const double without = with_grid(t, chained_join(), flat_split(100.0, 0.0, 0.0, 140.0));
  const double with = with_grid(t, s, flat_split(100.0, 0.0, 0.0, 140.0));
  const double raised = with_grid(t, chained_join(), flat_split(200.0, 0.0, 0.0, 240.0));
  EXPECT_NEAR((with - without) / (raised - without), 0.0638767, 1e-6);
}

// The hit ratio a plan note gives for `what` ("what: LLC hit ratio 0.2356").
double noted_hit(const PlanReport& report, const std::string& what) {
  for (const std::string& n : report.notes)
    if (n.rfind(what + ": LLC hit ratio ", 0) == 0) return std::stod(n.substr(what.size() + 16));
  ADD_FAILURE() << "no note for " << what;
  return -1.0;
}

TEST(DependentMissPlanTest, BucketsAndNodesShareTheLlcWhileTheProbeReadsBoth) {
  // Before session 31 both the buckets and the nodes sized their hits by the whole usable LLC, so
  // together they kept more lines than it has. Now their kept lines add up to it: with the LLC
  // smaller than either (C lines), hit_b L_b + hit_n L_n = C, L_b = 2^20 x 32 / 64 = 524288 bucket
  // lines, L_n = 1107109 x 32 / 64 = 553554.5 node lines (the notes round to 4 decimals).
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = chained_join();
  s.costs.llc_usable_share = 1.0;
  const double llc_lines = t.nodes[0].llc_bytes() / 64.0;
  ASSERT_LT(llc_lines, 524288.0);
  PlanReport report;
  (void)build_operator_plan(t, s, &report);
  const double bucket_hit = noted_hit(report, "probe");
  const double node_hit = noted_hit(report, "overflow nodes");
  EXPECT_NEAR(bucket_hit * 524288.0 + node_hit * 553554.5, llc_lines, 1e-4 * (524288.0 + 553554.5));
  EXPECT_GT(bucket_hit, 0.0);
  EXPECT_GT(node_hit, 0.0);
}

TEST(DependentMissPlanTest, MedianTailsAreWritesAndDoNotReadTheGrid) {
  // MEDIAN per group: a tail beyond the header's line is a dependent write, which the allocator's
  // layout figures time as a write; the grid times dependent reads. So the prediction is the
  // same with no grid, a flat 100 ns grid and a flat 900 ns grid.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s;
  s.kind = WorkloadKind::kMedianAggregation;
  s.allocation = Allocation::kPerGroup;
  s.threads = 1;
  s.data.records = 2e7;
  s.data.keys.distribution = KeyDistribution::kSequential;
  s.data.keys.groups = 2e6;
  s.allocator = "testalloc";
  s.allocator_costs = costs();
  const double none = with_grid(t, s, std::nullopt);
  EXPECT_EQ(with_grid(t, s, flat(100.0)), none);
  EXPECT_EQ(with_grid(t, s, flat(900.0)), none);
}

TEST(DependentMissPlanTest, BasisSaysWhatTheDependentMissesRestOn) {
  model::Topology t = one_node_two_cores();
  const WorkloadSpec s = chained_join();
  EXPECT_NE(allocator_cost_basis(s, t).find("no grid"), std::string::npos) << allocator_cost_basis(s, t);
  EXPECT_NE(allocator_cost_basis(s, t).find("layout figure"), std::string::npos) << allocator_cost_basis(s, t);
  t.dependent_misses = flat(100.0);
  EXPECT_NE(allocator_cost_basis(s, t).find("measured on gridhost at gridtime"), std::string::npos) << allocator_cost_basis(s, t);
}

}  // namespace
}  // namespace numatwin::sim
