// What a query type's stages cost (adaptive_query_plan.hpp), worked by hand: the global
// dictionary, remote merges, value-id mapping and join results, table groups, and the two-phase
// scan. Pure plans: no engine, no timing.
//
// Common sizes: task_bytes 64 MiB, row_bytes 16, distinct values 2^20 = 1048576, line 64 B,
// value 8 B, hash entry 16 B. A 64 MiB part has 4194304 rows and one chunk.
#include "numatwin/sim/adaptive/adaptive_query_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim {
namespace {

constexpr double kMiB = 1048576.0;

AdaptiveScenario scenario() {
  AdaptiveScenario sc;
  sc.task_bytes = 64.0 * kMiB;
  sc.tables = {AdaptiveTable{"T", 128.0 * kMiB, 0, 2}, AdaptiveTable{"U", 64.0 * kMiB, 0, 2}};
  return sc;
}

// Distinct classes per phase, so the test sees which class each task got.
AdaptiveQueryType type_of(AdaptiveQueryKind kind) {
  AdaptiveQueryType q;
  q.kind = kind;
  for (int ph = 0; ph < kAdaptivePhaseCount; ++ph) q.class_of_phase[ph] = 10 + ph;
  return q;
}

struct Totals {
  double bytes = 0.0;
  double remote = 0.0;  // read socket != queue socket (where a worker takes it without stealing)
  int tasks = 0;
};

Totals phase_totals(const std::vector<PlannedTask>& tasks, const std::vector<PlanPart>& parts,
                    AdaptivePhase phase) {
  Totals t;
  for (const PlannedTask& p : tasks) {
    if (p.phase != phase) continue;
    int queue = p.queue_socket;
    int read = p.read_socket;
    for (const PlanPart& part : parts) {
      if (p.part == part.part) {
        queue = part.socket;
        if (read < 0) read = part.socket;
      }
    }
    EXPECT_EQ(p.task_class, 10 + static_cast<int>(phase));
    t.bytes += p.bytes;
    if (read != queue) t.remote += p.bytes;
    ++t.tasks;
  }
  return t;
}

const std::vector<PlanPart> kTwoParts = {PlanPart{0, 0, 64.0 * kMiB}, PlanPart{1, 1, 64.0 * kMiB}};
const std::vector<PlanPart> kOnePart = {PlanPart{0, 0, 128.0 * kMiB}};

// Aggregation, T in 2 parts on s0 and s1, 1000 groups.
//  prepare: dictionary build, 2 tasks queued at D = s0, each min(2^20, 4194304) x 8 = 8 MiB;
//           the one reading s1's part dictionary is remote: 8 of 16 MiB.
//  main:    2 chunk tasks (64 MiB each, local) + 2 lookups of min(2^20, 4194304) x 64 = 64 MiB
//           each from D: the lookup of the chunk on s1 is remote, 64 of 128 MiB.
//  finish:  R = 2 result tables, on s0 and s1; task (r, i) reads 1 x 1000 x 16 / 2 = 8000 B:
//           4 tasks, 32000 B, the two with r != i remote: 16000 B.
TEST(AdaptiveQueryPlanTest, AggregationOverTwoPartsPaysDictionaryAndRemoteMerges) {
  const AdaptiveScenario sc = scenario();
  AdaptiveQueryType q = type_of(AdaptiveQueryKind::kAggregation);
  q.groups = 1000.0;
  const auto prepare = plan_adaptive_query_stage(sc, q, 0, kTwoParts, {}, 0);
  const Totals build = phase_totals(prepare, kTwoParts, AdaptivePhase::kDictionary);
  EXPECT_EQ(build.tasks, 2);
  EXPECT_DOUBLE_EQ(build.bytes, 16.0 * kMiB);
  EXPECT_DOUBLE_EQ(build.remote, 8.0 * kMiB);
  for (const PlannedTask& t : prepare) EXPECT_EQ(t.queue_socket, 0);

  const auto main = plan_adaptive_query_stage(sc, q, 0, kTwoParts, {}, 1);
  const Totals scan = phase_totals(main, kTwoParts, AdaptivePhase::kScan);
  const Totals lookups = phase_totals(main, kTwoParts, AdaptivePhase::kDictionary);
  EXPECT_EQ(scan.tasks, 2);
  EXPECT_DOUBLE_EQ(scan.bytes, 128.0 * kMiB);
  EXPECT_DOUBLE_EQ(scan.remote, 0.0);
  EXPECT_EQ(lookups.tasks, 2);
  EXPECT_DOUBLE_EQ(lookups.bytes, 128.0 * kMiB);
  EXPECT_DOUBLE_EQ(lookups.remote, 64.0 * kMiB);

  const Totals merge = phase_totals(plan_adaptive_query_stage(sc, q, 0, kTwoParts, {}, 2),
                                    kTwoParts, AdaptivePhase::kMerge);
  EXPECT_EQ(merge.tasks, 4);
  EXPECT_DOUBLE_EQ(merge.bytes, 32000.0);
  EXPECT_DOUBLE_EQ(merge.remote, 16000.0);
}

// The same 128 MiB table in one part on s0: no global dictionary (prepare is empty, no lookups);
// 2 chunks, R = 2 result tables both on s0, task (r, 0) reads 2 x 1000 x 16 / 2 = 16000 B:
// the same 32000 B merged as with 2 parts, all local.
TEST(AdaptiveQueryPlanTest, UnpartitionedAggregationMergesTheSameBytesLocally) {
  const AdaptiveScenario sc = scenario();
  AdaptiveQueryType q = type_of(AdaptiveQueryKind::kAggregation);
  q.groups = 1000.0;
  EXPECT_TRUE(plan_adaptive_query_stage(sc, q, 0, kOnePart, {}, 0).empty());
  const auto main = plan_adaptive_query_stage(sc, q, 0, kOnePart, {}, 1);
  EXPECT_EQ(phase_totals(main, kOnePart, AdaptivePhase::kDictionary).tasks, 0);
  EXPECT_EQ(phase_totals(main, kOnePart, AdaptivePhase::kScan).tasks, 2);
  const Totals merge = phase_totals(plan_adaptive_query_stage(sc, q, 0, kOnePart, {}, 2), kOnePart,
                                    AdaptivePhase::kMerge);
  EXPECT_EQ(merge.tasks, 2);
  EXPECT_DOUBLE_EQ(merge.bytes, 32000.0);
  EXPECT_DOUBLE_EQ(merge.remote, 0.0);
}

// Merge bytes grow with the groups until a chunk's hash table holds every row: 1 part of
// 128 MiB, 2 chunks of 4194304 rows: g x 16 x 2 for g <= 4194304, then capped.
TEST(AdaptiveQueryPlanTest, MergeBytesGrowWithGroupsUpToTheChunkRows) {
  const AdaptiveScenario sc = scenario();
  AdaptiveQueryType q = type_of(AdaptiveQueryKind::kAggregation);
  for (double g : {1.0, 1000.0, 1e6, 4194304.0, 1e8}) {
    q.groups = g;
    const double expected = std::min(g, 4194304.0) * 16.0 * 2.0;
    EXPECT_DOUBLE_EQ(phase_totals(plan_adaptive_query_stage(sc, q, 0, kOnePart, {}, 2), kOnePart,
                                  AdaptivePhase::kMerge)
                         .bytes,
                     expected)
        << g;
  }
}

// Join of T (2 parts, s0 and s1, 64 MiB each) with U (2 parts, 32 MiB each = 2097152 rows,
// so d_Uj = 2^20: 8 MiB dictionaries), selectivity 0.01.
//  not co-partitioned: mapping 2 x 2 tasks of 8 MiB, the pairs (0,1), (1,0) remote: 16 of 32 MiB;
//    plus T's dictionary build (2 tasks) and lookups (2 tasks); results: 0.01 x 4194304 x 64 =
//    2684354.56 B per T part, split over U's 2 parts: 4 tasks, half of the bytes remote.
//  co-partitioned (group G, pairs on the same socket): no dictionary, no mapping, 2 result tasks
//    of 2684354.56 B, local.
TEST(AdaptiveQueryPlanTest, OnlyJoinsThatAreNotCoPartitionedPayMappingAndRemoteResults) {
  AdaptiveScenario sc = scenario();
  AdaptiveQueryType q = type_of(AdaptiveQueryKind::kJoin);
  q.selectivity = 0.01;
  q.join_table = 1;
  const std::vector<PlanPart> u = {PlanPart{2, 0, 32.0 * kMiB}, PlanPart{3, 1, 32.0 * kMiB}};
  std::vector<PlanPart> all = kTwoParts;
  all.insert(all.end(), u.begin(), u.end());
  const double results = 0.01 * 4194304.0 * 64.0;

  ASSERT_FALSE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, u));
  const auto prepare = plan_adaptive_query_stage(sc, q, 0, kTwoParts, u, 0);
  const Totals mapping = phase_totals(prepare, all, AdaptivePhase::kMapping);
  EXPECT_EQ(mapping.tasks, 4);
  EXPECT_DOUBLE_EQ(mapping.bytes, 32.0 * kMiB);
  EXPECT_DOUBLE_EQ(mapping.remote, 16.0 * kMiB);
  EXPECT_EQ(phase_totals(prepare, all, AdaptivePhase::kDictionary).tasks, 2);
  EXPECT_EQ(phase_totals(plan_adaptive_query_stage(sc, q, 0, kTwoParts, u, 1), all,
                         AdaptivePhase::kDictionary)
                .tasks,
            2);
  const Totals loose = phase_totals(plan_adaptive_query_stage(sc, q, 0, kTwoParts, u, 2), all,
                                    AdaptivePhase::kMaterialise);
  EXPECT_EQ(loose.tasks, 4);
  EXPECT_NEAR(loose.bytes, 2.0 * results, 1e-6);
  EXPECT_NEAR(loose.remote, results, 1e-6);

  sc.tables[0].group = sc.tables[1].group = "G";
  ASSERT_TRUE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, u));
  EXPECT_TRUE(plan_adaptive_query_stage(sc, q, 0, kTwoParts, u, 0).empty());
  const auto main = plan_adaptive_query_stage(sc, q, 0, kTwoParts, u, 1);
  EXPECT_EQ(phase_totals(main, all, AdaptivePhase::kDictionary).tasks, 0);
  EXPECT_EQ(phase_totals(main, all, AdaptivePhase::kScan).tasks, 2);
  const Totals paired = phase_totals(plan_adaptive_query_stage(sc, q, 0, kTwoParts, u, 2), all,
                                     AdaptivePhase::kMaterialise);
  EXPECT_EQ(paired.tasks, 2);
  EXPECT_NEAR(paired.bytes, 2.0 * results, 1e-6);
  EXPECT_DOUBLE_EQ(paired.remote, 0.0);
}

// A table group whose parts do not pair up on the same sockets is not co-partitioned, and
// neither are two tables without a group or with different part counts.
TEST(AdaptiveQueryPlanTest, CoPartitioningNeedsOneGroupAndAlignedParts) {
  AdaptiveScenario sc = scenario();
  const std::vector<PlanPart> swapped = {PlanPart{2, 1, 32.0 * kMiB}, PlanPart{3, 0, 32.0 * kMiB}};
  const std::vector<PlanPart> aligned = {PlanPart{2, 0, 32.0 * kMiB}, PlanPart{3, 1, 32.0 * kMiB}};
  EXPECT_FALSE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, aligned));  // no group
  sc.tables[0].group = "G";
  sc.tables[1].group = "H";
  EXPECT_FALSE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, aligned));  // different groups
  sc.tables[1].group = "G";
  EXPECT_TRUE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, aligned));
  EXPECT_FALSE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, swapped));
  EXPECT_FALSE(adaptive_co_partitioned(sc, 0, 1, kTwoParts, {aligned[0]}));
}

// Value-id mapping grows with k_T x k_U: k parts of each of two 64 MiB tables (on sockets
// i mod 2), every U part's dictionary min(2^20, 4194304 / k) x 8 B: k = 1: 8 MiB; k = 2:
// 4 x 8 MiB; k = 4: 16 x min(2^20, 1048576) x 8 = 128 MiB; k = 8: 64 x 524288 x 8 = 256 MiB.
TEST(AdaptiveQueryPlanTest, MappingGrowsWithThePartsOfBothTables) {
  AdaptiveScenario sc = scenario();
  sc.tables[0].size_bytes = sc.tables[1].size_bytes = 64.0 * kMiB;
  AdaptiveQueryType q = type_of(AdaptiveQueryKind::kJoin);
  q.join_table = 1;
  const std::pair<int, double> cases[] = {{1, 8.0}, {2, 32.0}, {4, 128.0}, {8, 256.0}};
  for (const auto& [k, mib] : cases) {
    std::vector<PlanPart> t;
    std::vector<PlanPart> u;
    for (int i = 0; i < k; ++i) {
      t.push_back(PlanPart{i, i % 2, 64.0 * kMiB / k});
      u.push_back(PlanPart{k + i, (i + 1) % 2, 64.0 * kMiB / k});
    }
    std::vector<PlanPart> all = t;
    all.insert(all.end(), u.begin(), u.end());
    const Totals mapping =
        phase_totals(plan_adaptive_query_stage(sc, q, 0, t, u, 0), all, AdaptivePhase::kMapping);
    EXPECT_EQ(mapping.tasks, k * k);
    EXPECT_DOUBLE_EQ(mapping.bytes, mib * kMiB) << k;
  }
}

// Two-phase scan of one 64 MiB part (4194304 rows): selectivity 0.5 materialises 2097152
// values x 64 B = 128 MiB in 2 parallel tasks of 64 MiB; 0.01 gives 2684354.56 B in one task;
// 0 has no second phase. The scan phase is one 64 MiB chunk whatever the selectivity.
TEST(AdaptiveQueryPlanTest, ScanMaterialisesWithTheSelectivityInParallelWhenLarge) {
  const AdaptiveScenario sc = scenario();
  const std::vector<PlanPart> one = {PlanPart{0, 1, 64.0 * kMiB}};
  AdaptiveQueryType q = type_of(AdaptiveQueryKind::kScan);
  const std::pair<double, int> cases[] = {{0.5, 2}, {0.01, 1}, {0.0, 0}};
  for (const auto& [sigma, tasks] : cases) {
    q.selectivity = sigma;
    EXPECT_TRUE(plan_adaptive_query_stage(sc, q, 0, one, {}, 0).empty());
    const Totals scan =
        phase_totals(plan_adaptive_query_stage(sc, q, 0, one, {}, 1), one, AdaptivePhase::kScan);
    EXPECT_EQ(scan.tasks, 1);
    EXPECT_DOUBLE_EQ(scan.bytes, 64.0 * kMiB);
    const Totals mat = phase_totals(plan_adaptive_query_stage(sc, q, 0, one, {}, 2), one,
                                    AdaptivePhase::kMaterialise);
    EXPECT_EQ(mat.tasks, tasks) << sigma;
    EXPECT_NEAR(mat.bytes, sigma * 4194304.0 * 64.0, 1e-6);
    EXPECT_DOUBLE_EQ(mat.remote, 0.0);
  }
}

}  // namespace
}  // namespace numatwin::sim

namespace numatwin::sim {
namespace {

// Properties over random layouts (fixed seed): k_T, k_U parts on random sockets of 4, random
// sizes, selectivity and groups.
//  - every kind's main stage streams exactly the table's bytes;
//  - a co-partitioned join reads nothing remotely in any stage (no task's read socket differs
//    from the socket it is queued on) and has no mapping or dictionary tasks;
//  - a join that is not co-partitioned has k_T x k_U mapping tasks;
//  - an aggregation merges (total chunks) x g x e bytes while g <= every chunk's rows, whatever
//    the number of parts.
TEST(AdaptiveQueryPlanTest, PropertiesOverRandomLayouts) {
  std::mt19937_64 rng(19);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 200; ++trial) {
    AdaptiveScenario sc = scenario();
    const int kt = uniform(1, 8);
    const bool co = uniform(0, 1) == 1;
    const int ku = co ? kt : uniform(1, 8);
    std::vector<PlanPart> t;
    std::vector<PlanPart> u;
    double t_bytes = 0.0;
    for (int i = 0; i < kt; ++i) {
      t.push_back(PlanPart{i, uniform(0, 3), uniform(1, 300) * kMiB});
      t_bytes += t.back().bytes;
    }
    for (int j = 0; j < ku; ++j) {
      const int socket = co ? t[static_cast<std::size_t>(j)].socket : uniform(0, 3);
      u.push_back(PlanPart{kt + j, socket, uniform(1, 100) * kMiB});
    }
    if (co) sc.tables[0].group = sc.tables[1].group = "G";
    std::vector<PlanPart> all = t;
    all.insert(all.end(), u.begin(), u.end());

    AdaptiveQueryType join = type_of(AdaptiveQueryKind::kJoin);
    join.join_table = 1;
    join.selectivity = uniform(0, 100) / 100.0;
    const bool aligned = adaptive_co_partitioned(sc, 0, 1, t, u);
    EXPECT_EQ(aligned, co) << trial;
    for (int stage = 0; stage < kAdaptiveQueryStages; ++stage) {
      const auto tasks = plan_adaptive_query_stage(sc, join, 0, t, u, stage);
      if (stage == 1) {
        EXPECT_NEAR(phase_totals(tasks, all, AdaptivePhase::kScan).bytes, t_bytes, 1e-3) << trial;
      }
      if (co) {
        for (AdaptivePhase ph : {AdaptivePhase::kScan, AdaptivePhase::kMaterialise}) {
          EXPECT_EQ(phase_totals(tasks, all, ph).remote, 0.0) << trial;
        }
        EXPECT_EQ(phase_totals(tasks, all, AdaptivePhase::kMapping).tasks, 0) << trial;
        EXPECT_EQ(phase_totals(tasks, all, AdaptivePhase::kDictionary).tasks, 0) << trial;
      } else if (stage == 0) {
        EXPECT_EQ(phase_totals(tasks, all, AdaptivePhase::kMapping).tasks, kt * ku) << trial;
      }
    }

    AdaptiveQueryType agg = type_of(AdaptiveQueryKind::kAggregation);
    agg.groups = uniform(1, 1000);  // far below a chunk's rows (>= 65536 here)
    int chunks = 0;
    for (const PlanPart& p : t)
      chunks += static_cast<int>(std::ceil(p.bytes / sc.task_bytes - 1e-9));
    EXPECT_NEAR(
        phase_totals(plan_adaptive_query_stage(sc, agg, 0, t, {}, 1), t, AdaptivePhase::kScan)
            .bytes,
        t_bytes, 1e-3);
    EXPECT_NEAR(
        phase_totals(plan_adaptive_query_stage(sc, agg, 0, t, {}, 2), t, AdaptivePhase::kMerge)
            .bytes,
        chunks * agg.groups * 16.0, 1e-6)
        << trial;
  }
}

}  // namespace
}  // namespace numatwin::sim
