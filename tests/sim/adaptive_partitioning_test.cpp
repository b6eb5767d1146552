// Query types in the engine: the per-phase accounting of what partitioning costs (worked by hand
// from the plan's bytes), the overhead-of-partitioning properties (splitting tables that did not
// need it never helps non-co-partitioned joins, costs co-partitioned ones next to nothing), and
// adaptive stealing allowing one phase of a two-phase scan while denying the other.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/adaptive/adaptive_engine.hpp"
#include "adaptive_test_queries.hpp"

namespace numatwin::sim {
namespace {

using test_support::class_index;
using test_support::query_type;

constexpr double kMiB = 1048576.0;

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

AdaptiveScenario base() {
  AdaptiveScenario sc;
  sc.task_bytes = 64.0 * kMiB;
  sc.placer_enabled = false;
  sc.stealing = StealingMode::kDeny;
  sc.costs = PageCosts{59e-6, 109e-6, "test"};
  sc.classes = default_adaptive_task_classes();
  for (const AdaptiveTaskClass& c : default_adaptive_phase_classes()) sc.classes.push_back(c);
  return sc;
}

const AdaptivePhaseStats& phase(const AdaptiveQueryTypeStats& q, AdaptivePhase p) {
  return q.phases[static_cast<int>(p)];
}

// A 128 MiB table in 2 parts (s0, s1) of skylake-4114-2s, 1000 groups, stealing denied (every
// task runs on its queue socket); clients stop issuing at 2 s and the run lasts 20 s, so every
// query completes. Per query (adaptive_query_plan_test.cpp works the plan): dictionary build
// 2 x 8 MiB (8 remote) + lookups 2 x 64 MiB (64 remote) = 144 MiB, half remote; scans 128 MiB,
// local; merges 4 x 8000 B, half remote.
TEST(AdaptivePartitioningTest, PhaseAccountingOfAnAggregationOverTwoSockets) {
  const model::Topology t = machine("skylake-4114-2s");
  AdaptiveScenario sc = base();
  sc.duration_s = 20.0;
  sc.tables = {AdaptiveTable{"T", 128.0 * kMiB, 0, 2}};
  AdaptiveQueryType q = query_type(sc, "b", AdaptiveQueryKind::kAggregation);
  q.groups = 1000.0;
  sc.query_types = {q};
  AdaptiveClientGroup g;
  g.count = 4;
  g.tables = {WeightedChoice{0, 1.0}};
  g.query_types = {WeightedChoice{0, 1.0}};
  g.stop_s = 2.0;
  sc.clients = {g};
  const AdaptiveResult r = run_adaptive(t, sc);
  ASSERT_EQ(r.query_types.size(), 1U);
  const AdaptiveQueryTypeStats& b = r.query_types[0];
  ASSERT_GT(b.queries, 4);
  EXPECT_EQ(r.queries, b.queries);
  const double n = static_cast<double>(b.queries);
  EXPECT_NEAR(phase(b, AdaptivePhase::kDictionary).bytes / n, 144.0 * kMiB, 1e-3);
  EXPECT_NEAR(phase(b, AdaptivePhase::kDictionary).remote_bytes / n, 72.0 * kMiB, 1e-3);
  EXPECT_EQ(phase(b, AdaptivePhase::kDictionary).tasks, 4 * b.queries);
  EXPECT_NEAR(phase(b, AdaptivePhase::kScan).bytes / n, 128.0 * kMiB, 1e-3);
  EXPECT_EQ(phase(b, AdaptivePhase::kScan).remote_bytes, 0.0);
  EXPECT_NEAR(phase(b, AdaptivePhase::kMerge).bytes / n, 32000.0, 1e-6);
  EXPECT_NEAR(phase(b, AdaptivePhase::kMerge).remote_bytes / n, 16000.0, 1e-6);
  EXPECT_EQ(phase(b, AdaptivePhase::kMapping).tasks, 0);
  EXPECT_EQ(phase(b, AdaptivePhase::kMaterialise).tasks, 0);
  EXPECT_GT(b.latency_s, 0.0);
}

// Four table pairs R_i (512 MiB) x S_i (128 MiB), pair i on socket i of xeon-e7-4880v2-4s, 16
// clients per pair joining R_i with S_i (selectivity 0.01), stealing denied, placer off: the
// load is even over the sockets with 1 part or k, so the ratio k parts / 1 part is what
// partitioning costs. Co-partitioned (one group per pair): the same bytes, all local, in the same
// sockets: the ratio stays within 5 % of 1. Not co-partitioned: dictionary, mapping and remote
// results are added and nothing is saved: the ratio is below 1 and below the co-partitioned one.
double join_queries_per_s(int parts, bool co_partitioned) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  AdaptiveScenario sc = base();
  sc.duration_s = 10.0;
  for (int i = 0; i < 4; ++i) {
    AdaptiveTable r("R" + std::to_string(i), 512.0 * kMiB, i, parts);
    AdaptiveTable s("S" + std::to_string(i), 128.0 * kMiB, i, parts);
    if (co_partitioned) r.group = s.group = "G" + std::to_string(i);
    sc.tables.push_back(r);
    sc.tables.push_back(s);
    AdaptiveQueryType q = query_type(sc, "c" + std::to_string(i), AdaptiveQueryKind::kJoin);
    q.selectivity = 0.01;
    q.join_table = 2 * i + 1;
    sc.query_types.push_back(q);
    AdaptiveClientGroup g;
    g.count = 16;
    g.tables = {WeightedChoice{2 * i, 1.0}};
    g.query_types = {WeightedChoice{i, 1.0}};
    sc.clients.push_back(g);
  }
  return run_adaptive(t, sc).queries_per_s;
}

TEST(AdaptivePartitioningTest,
     SplittingTablesCostsNonCoPartitionedJoinsAndSparesCoPartitionedOnes) {
  const double co1 = join_queries_per_s(1, true);
  const double co4 = join_queries_per_s(4, true);
  const double loose1 = join_queries_per_s(1, false);
  const double loose4 = join_queries_per_s(4, false);
  ASSERT_GT(co1, 0.0);
  ASSERT_GT(loose1, 0.0);
  EXPECT_NEAR(co4 / co1, 1.0, 0.05);
  EXPECT_LT(loose4 / loose1, 1.0);
  EXPECT_LT(loose4 / loose1, co4 / co1);
}

// One 256 MiB table on s0 of skylake-4114-2s (10 workers per socket), 20 clients scanning it with
// selectivity 0.25 (materialise: 0.25 x 16777216 rows x 64 B = 256 MiB, 4 tasks), adaptive
// stealing with a 1.5 GB/s threshold. Materialisation is CPU-bound at 3.125 cycles/B, at most
// 2.2e9 / 3.125 = 0.70 GB/s per task, under the threshold; the index-vector scan streams far
// above it. So s1's idle workers steal materialisation tasks and never scan tasks.
TEST(AdaptivePartitioningTest, AdaptiveStealingAllowsTheMaterialisationAndDeniesTheScan) {
  const model::Topology t = machine("skylake-4114-2s");
  AdaptiveScenario sc = base();
  sc.duration_s = 10.0;
  sc.stealing = StealingMode::kAdaptive;
  sc.stealing_threshold_bytes_per_s = 1.5e9;
  sc.tables = {AdaptiveTable{"T", 256.0 * kMiB, 0, 1}};
  AdaptiveQueryType q = query_type(sc, "a", AdaptiveQueryKind::kScan);
  q.selectivity = 0.25;
  sc.query_types = {q};
  AdaptiveClientGroup g;
  g.count = 20;
  g.tables = {WeightedChoice{0, 1.0}};
  g.query_types = {WeightedChoice{0, 1.0}};
  sc.clients = {g};
  const AdaptiveResult r = run_adaptive(t, sc);
  const AdaptiveClassStats& scan = r.classes[static_cast<std::size_t>(class_index(sc, "scan"))];
  const AdaptiveClassStats& mat =
      r.classes[static_cast<std::size_t>(class_index(sc, "materialise"))];
  ASSERT_GT(scan.ema_task_bytes_per_s, 1.5e9);
  ASSERT_LT(mat.ema_task_bytes_per_s, 0.71e9);
  EXPECT_GT(scan.tasks, 0);
  EXPECT_EQ(scan.stolen_tasks, 0);
  EXPECT_GT(mat.stolen_tasks, 0);
  EXPECT_FALSE(scan.stealing_allowed_at_end);
  EXPECT_TRUE(mat.stealing_allowed_at_end);
  EXPECT_GT(r.socket_cpu_share[1], 0.0);
  const AdaptivePhaseStats& m =
      r.query_types[0].phases[static_cast<int>(AdaptivePhase::kMaterialise)];
  EXPECT_GT(m.remote_bytes, 0.0);  // the stolen ones read s0's dictionary from s1
}

}  // namespace
}  // namespace numatwin::sim
