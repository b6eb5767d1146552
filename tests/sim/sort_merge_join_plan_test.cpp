// The whole P-MPSM sort-merge join's plan (operators/sort_merge_join.cpp, --sort-merge-phases all):
// its phase traffic worked by hand for 2 workers on 2 nodes, the sort's memory passes, and
// properties over random layouts (bytes conserved, every R tuple gathered once, every fact tuple
// merged once); the merge phase alone stays as it was.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

WorkloadSpec whole_join(int threads, const std::string& placement, double facts, double dims) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kSortMergeJoin;
  s.sort_merge_phases = SortMergePhases::kAll;
  s.threads = threads;
  s.placement = parse_placement(placement);
  s.data.records = facts;
  s.data.build_records = dims;
  return s;  // default costs (sort_cycles_per_comparison 4), first-touch
}

bool on_node(const std::vector<model::NodeShare>& spread, model::NodeIndex node) {
  return spread.size() == 1 && spread.front().node == node && spread.front().fraction == 1.0;
}

// What one worker's plan does, summed by phase.
struct Sums {
  double gather_bytes = 0.0, gather_remote_bytes = 0.0, gather_local_writes = 0.0;
  int gathers = 0;
  double partition_read_bytes = 0.0, partition_write_bytes = 0.0;
  bool partition_local = true;
  std::vector<double> sort_bytes, sort_cycles;
  double merged_fact_bytes = 0.0;
};

Sums sums_of(const ThreadPlan& tp, model::NodeIndex node) {
  Sums s;
  for (const Op& op : tp.ops) {
    const auto* t = std::get_if<Transfer>(&op);
    if (t == nullptr) continue;
    if (t->phase == Phase::kGather) {
      ++s.gathers;
      s.gather_bytes += t->bytes;
      if (!on_node(t->read_spread, node)) s.gather_remote_bytes += t->bytes;
      if (on_node(t->write_spread, node)) s.gather_local_writes += t->bytes;
    } else if (t->phase == Phase::kPartition) {
      s.partition_read_bytes += t->read_spread.empty() ? 0.0 : t->bytes;
      s.partition_write_bytes += t->write_spread.empty() ? 0.0 : t->bytes;
      s.partition_local = s.partition_local &&
                          (t->read_spread.empty() || on_node(t->read_spread, node)) &&
                          (t->write_spread.empty() || on_node(t->write_spread, node));
    } else if (t->phase == Phase::kSort) {
      s.sort_bytes.push_back(t->bytes);
      s.sort_cycles.push_back(t->bytes * t->cycles_per_byte);
    } else if (t->phase == Phase::kReadInput && t->core_phase == Phase::kSortMerge) {
      s.merged_fact_bytes += t->bytes;
    }
  }
  return s;
}

// 2 workers on 2 nodes (sparse on nehalem-ex-4s: nodes s0 and s1), first-touch, S = R = 1e6
// tuples of 16 bytes (16e6 bytes each):
//  (1) each worker's fact run, 5e5 tuples = 8e6 bytes, fits its node's 24 MiB LLC (one worker
//      per node): one memory pass, a transfer of 8e6 bytes with 5e5 x log2(5e5) comparisons x 4
//      cycles of core work;
//  (2) each worker reads its dimension chunk (8e6 bytes) twice (histogram, scatter) and writes its
//      pieces (8e6 bytes), all on its own node;
//  (3) worker w gathers piece p -> w of 2.5e5 tuples (4e6 bytes) from p = 0 and 1: its own piece
//      locally, the other's remotely: 4e6 remote bytes each, 8e6 in all = half of R's 16e6;
//      all 8e6 written to its own run, locally; then sorts its run (8e6 bytes, one pass);
//  (4) merges S / 2 = 8e6 bytes of facts.
TEST(SortMergeJoinPlanTest, TwoWorkersOnTwoNodesGatherHalfOfRRemotely) {
  const model::Topology t = machine("nehalem-ex-4s");
  PlanReport report;
  const Plan plan = build_plan(t, whole_join(2, "sparse", 1e6, 1e6), &report);
  ASSERT_EQ(plan.threads.size(), 2u);
  ASSERT_NE(report.threads[0].node, report.threads[1].node);
  double remote = 0.0;
  for (int w = 0; w < 2; ++w) {
    const Sums s = sums_of(plan.threads[w], report.threads[w].node);
    EXPECT_EQ(s.gathers, 2);
    EXPECT_DOUBLE_EQ(s.gather_bytes, 8e6);
    EXPECT_DOUBLE_EQ(s.gather_remote_bytes, 4e6);
    EXPECT_DOUBLE_EQ(s.gather_local_writes, 8e6);
    EXPECT_DOUBLE_EQ(s.partition_read_bytes, 16e6);
    EXPECT_DOUBLE_EQ(s.partition_write_bytes, 8e6);
    EXPECT_TRUE(s.partition_local);
    ASSERT_EQ(s.sort_bytes.size(), 2u);  // the fact run, then the dimension run
    EXPECT_DOUBLE_EQ(s.sort_bytes[0], 8e6);
    EXPECT_DOUBLE_EQ(s.sort_bytes[1], 8e6);
    EXPECT_NEAR(s.sort_cycles[0], 5e5 * std::log2(5e5) * 4.0, 1e-3);
    EXPECT_DOUBLE_EQ(s.merged_fact_bytes, 8e6);
    remote += s.gather_remote_bytes;
  }
  EXPECT_DOUBLE_EQ(remote, 16e6 / 2);
}

// A run larger than the cache: passes = 1 + log2(run / cache), so doubling the run adds exactly
// one pass: bytes(2X) / 2X - bytes(X) / X = 1.
TEST(SortMergeJoinPlanTest, DoublingARunBeyondTheCacheAddsOneMemoryPass) {
  const model::Topology t = machine("nehalem-ex-4s");
  PlanReport report;
  const auto fact_sort_bytes = [&](double facts) {
    const Plan plan = build_plan(t, whole_join(2, "sparse", facts, 1e6), &report);
    return sums_of(plan.threads[0], report.threads[0].node).sort_bytes.at(0);
  };
  const double x = 2e9 / 2 * 16;  // worker 0's fact run of 2e9 facts: 16 GB
  EXPECT_NEAR(fact_sort_bytes(4e9) / (2 * x) - fact_sort_bytes(2e9) / x, 1.0, 1e-9);
  EXPECT_GT(fact_sort_bytes(2e9) / x, 2.0);  // 16 GB against 24 MiB: many passes
}

// Over random layouts: the gather moves R once (each worker n pieces of R / n^2 tuples), the
// scatter writes R once, every worker sorts two runs, the merge reads every fact once.
TEST(SortMergeJoinPlanTest, BytesAreConservedOverRandomLayouts) {
  std::mt19937_64 random(18);
  const char* machines[] = {"nehalem-ex-4s", "nehalem-ex-8s", "opteron-8220-8s-twisted-ladder"};
  const char* placements[] = {"dense", "sparse"};
  const char* policies[] = {"first-touch", "interleave"};
  for (int c = 0; c < 40; ++c) {
    const model::Topology t = machine(machines[random() % 3]);
    const int n = 1 + static_cast<int>(random() % std::min(24, t.total_cores()));
    WorkloadSpec s =
        whole_join(n, placements[random() % 2], 3e7, 1e6 + static_cast<double>(random() % 1000));
    s.memory = parse_memory_policy(policies[random() % 2], t);
    s.algorithm = random() % 2 ? ShuffleAlgorithm::kRing : ShuffleAlgorithm::kCoordinatedRandom;
    s.sync = random() % 2 ? SyncMode::kTight : SyncMode::kLoose;
    PlanReport report;
    const Plan plan = build_plan(t, s, &report);
    const double r_bytes = s.data.build_records * 16;
    double gathered = 0.0, scattered = 0.0, merged = 0.0;
    for (int w = 0; w < n; ++w) {
      const Sums sums = sums_of(plan.threads[w], report.threads[w].node);
      EXPECT_EQ(sums.gathers, n) << c;
      EXPECT_NEAR(sums.gather_bytes, r_bytes / n, 1e-6 * r_bytes) << c;
      EXPECT_EQ(sums.sort_bytes.size(), 2u) << c;
      gathered += sums.gather_bytes;
      scattered += sums.partition_write_bytes;
      merged += sums.merged_fact_bytes;
    }
    EXPECT_NEAR(gathered, r_bytes, 1e-9 * r_bytes) << c;
    EXPECT_NEAR(scattered, r_bytes, 1e-9 * r_bytes) << c;
    EXPECT_NEAR(merged, s.data.records * 16, 1e-9 * s.data.records * 16) << c;
  }
}

TEST(SortMergeJoinPlanTest, TheMergePhaseAloneHasNoSortPartitionOrGather) {
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec s = whole_join(8, "sparse", 1e7, 1e6);
  s.sort_merge_phases = SortMergePhases::kMerge;
  const Plan plan = build_plan(t, s);
  for (const ThreadPlan& tp : plan.threads) {
    for (const Op& op : tp.ops) {
      if (const auto* tr = std::get_if<Transfer>(&op)) {
        EXPECT_NE(tr->phase, Phase::kSort);
        EXPECT_NE(tr->phase, Phase::kGather);
        EXPECT_NE(tr->phase, Phase::kPartition);
      }
    }
  }
  EXPECT_EQ(WorkloadSpec{}.sort_merge_phases, SortMergePhases::kMerge);  // the default, as before
}

// The whole join on 32 threads of a 4-socket machine: the ring's gather and merge spread the
// reads over every memory controller, the naive order queues them on one at a time.
TEST(SortMergeJoinPlanTest, RingOrderMakesTheWholeJoinFasterThanNaive) {
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec s = whole_join(32, "dense", 1.6e8, 1.6e6);
  s.algorithm = ShuffleAlgorithm::kNaive;
  const SimulationResult naive = Simulation(t).run(build_plan(t, s));
  s.algorithm = ShuffleAlgorithm::kRing;
  const SimulationResult ring = Simulation(t).run(build_plan(t, s));
  EXPECT_LT(ring.time_s, naive.time_s);
  EXPECT_LT(ring.phase(Phase::kGather).wall_s, naive.phase(Phase::kGather).wall_s);
  EXPECT_GT(naive.phase(Phase::kSort).wall_s, 0.0);
  // The sorts are local and come after a barrier: the order does not touch them.
  EXPECT_NEAR(ring.phase(Phase::kSort).wall_s, naive.phase(Phase::kSort).wall_s,
              1e-9 * naive.phase(Phase::kSort).wall_s);
}

// Named stages (plan.hpp: Barrier::ends_stage, Plan::final_stage) on a hand-made plan: thread 0
// computes 1 s, thread 1 2 s, then a barrier that ends stage "one"; both compute 0.5 s more, an
// unnamed barrier, 0.25 s more, and the plan's final stage "two" runs to the end. By hand: "one"
// is [0, 2] (the barrier releases when the slower thread arrives), "two" is [2, 2.75].
TEST(SortMergeJoinPlanTest, NamedBarriersSplitTheRunIntoStages) {
  const model::Topology t = machine("nehalem-ex-4s");
  Plan plan;
  plan.threads.resize(2);
  plan.threads[1].core = 1;
  for (int i = 0; i < 2; ++i) {
    ThreadPlan& tp = plan.threads[static_cast<std::size_t>(i)];
    tp.ops.emplace_back(Compute{i == 0 ? 1.0 : 2.0, Phase::kSort});
    tp.ops.emplace_back(Barrier{"one"});
    tp.ops.emplace_back(Compute{0.5, Phase::kSort});
    tp.ops.emplace_back(Barrier{});
    tp.ops.emplace_back(Compute{0.25, Phase::kSort});
  }
  plan.final_stage = "two";
  const SimulationResult r = Simulation(t).run(plan);
  EXPECT_NEAR(r.time_s, 2.75, 1e-12);
  ASSERT_EQ(r.stages.size(), 2U);
  EXPECT_EQ(r.stages[0].name, "one");
  EXPECT_NEAR(r.stages[0].begin_s, 0.0, 1e-12);
  EXPECT_NEAR(r.stages[0].end_s, 2.0, 1e-12);
  EXPECT_EQ(r.stages[1].name, "two");
  EXPECT_NEAR(r.stages[1].begin_s, 2.0, 1e-12);
  EXPECT_NEAR(r.stages[1].end_s, 2.75, 1e-12);
  // Without names, no stages.
  plan.final_stage = {};
  for (ThreadPlan& tp : plan.threads) tp.ops[1] = Barrier{};
  EXPECT_TRUE(Simulation(t).run(plan).stages.empty());
}

// The whole join's four phases as stages, tight and loose: in order, one after another, adding up
// to the run; the merge begins when its first step does; the merge phase alone names none.
TEST(SortMergeJoinPlanTest, TheWholeJoinsPhasesAreItsStages) {
  const model::Topology t = machine("nehalem-ex-4s");
  for (const SyncMode sync : {SyncMode::kTight, SyncMode::kLoose}) {
    WorkloadSpec s = whole_join(8, "sparse", 1e7, 1e6);
    s.algorithm = ShuffleAlgorithm::kRing;
    s.sync = sync;
    const SimulationResult r = Simulation(t).run(build_plan(t, s));
    ASSERT_EQ(r.stages.size(), 4U);
    const char* names[] = {"sort facts", "partition dimension", "gather + sort dimension", "merge"};
    double at = 0.0;
    for (std::size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(r.stages[i].name, names[i]);
      EXPECT_NEAR(r.stages[i].begin_s, at, 1e-12);
      EXPECT_GT(r.stages[i].end_s, r.stages[i].begin_s);
      at = r.stages[i].end_s;
    }
    EXPECT_NEAR(at, r.time_s, 1e-12);
    ASSERT_FALSE(r.steps.empty());
    EXPECT_NEAR(r.stages[3].begin_s, r.steps[0].begin_s, 1e-12);
    // Every thread sorts, partitions and gathers the same amounts, so the stages' spans are the
    // phases' wall seconds: sort = the fact sort + the dimension sort, gather within its stage.
    EXPECT_NEAR(r.stages[1].end_s - r.stages[1].begin_s, r.phase(Phase::kPartition).wall_s, 1e-9 * r.time_s);
    EXPECT_LT(r.phase(Phase::kGather).wall_s, r.stages[2].end_s - r.stages[2].begin_s);
    EXPECT_NEAR(r.stages[0].end_s + (r.stages[2].end_s - r.stages[2].begin_s) - r.phase(Phase::kGather).wall_s,
                r.phase(Phase::kSort).wall_s, 1e-9 * r.time_s);
  }
  WorkloadSpec merge_only = whole_join(8, "sparse", 1e7, 1e6);
  merge_only.sort_merge_phases = SortMergePhases::kMerge;
  EXPECT_TRUE(Simulation(t).run(build_plan(t, merge_only)).stages.empty());
}

TEST(SortMergeJoinPlanTest, UnknownPhasesValueNamesTheOption) {
  try {
    (void)parse_sort_merge_phases("both");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("--sort-merge-phases"), std::string::npos) << text;
    EXPECT_NE(text.find("merge, all"), std::string::npos) << text;
  }
  EXPECT_EQ(parse_sort_merge_phases("all"), SortMergePhases::kAll);
  EXPECT_EQ(sort_merge_phases_name(SortMergePhases::kMerge), "merge");
}

}  // namespace
}  // namespace numatwin::sim
