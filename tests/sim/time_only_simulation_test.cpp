// SimulationOptions::time_only (sim/engine/simulation.hpp): the run without its bookkeeping must end at
// the same time, bit for bit, after the same events and solver rounds as the full run, and leave
// the bookkeeping it skips at 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology shipped(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

void expect_same_time(const model::Topology& t, const Plan& plan) {
  const SimulationResult full = Simulation(t).run(plan, SimulationOptions{.record_timeline = false, .time_only = false});
  const SimulationResult quick = Simulation(t).run(plan, SimulationOptions{.record_timeline = false, .time_only = true});
  ASSERT_GT(full.time_s, 0.0);
  EXPECT_EQ(quick.time_s, full.time_s);  // bit for bit
  EXPECT_EQ(quick.events, full.events);
  EXPECT_EQ(quick.solver_rounds, full.solver_rounds);
  EXPECT_EQ(quick.stages.size(), full.stages.size());
  // What time_only skips: the full run has it, the quick one leaves it at 0.
  EXPECT_GT(full.bytes, 0.0);
  EXPECT_EQ(quick.bytes, 0.0);
  EXPECT_EQ(quick.local_bytes + quick.remote_bytes, 0.0);
  double thread_s = 0.0;
  for (const PhaseTime& p : quick.phases) thread_s += p.thread_s;
  EXPECT_EQ(thread_s, 0.0);
}

// The weights command's case: the sort-merge join (all four phases, so Binds-free barriers and
// named stages too) with its data spread 1:1:4:4 over DDR and HBM, tight and loose.
TEST(TimeOnlySimulationTest, SortMergeJoinWeightedInterleaveEndsAtTheSameTime) {
  const model::Topology t = shipped("xeon-max-9462-2s");
  for (const SyncMode sync : {SyncMode::kTight, SyncMode::kLoose}) {
    WorkloadSpec spec;
    spec.kind = WorkloadKind::kSortMergeJoin;
    spec.sort_merge_phases = SortMergePhases::kAll;
    spec.sync = sync;
    spec.threads = 12;
    spec.data.records = 1e7;
    spec.data.build_records = 1.6e6;
    spec.costs = operator_costs_of(machine_cost_basis(t));
    spec.memory.kind = MemoryPolicyKind::kWeightedInterleave;
    spec.memory.global = InterleaveWeights{{0, 1, 2, 3}, {1, 1, 4, 4}};
    expect_same_time(t, build_plan(t, spec));
  }
}

// A loose shuffle: pieces that end at their own times, many events with partial advances.
TEST(TimeOnlySimulationTest, LooseRingShuffleEndsAtTheSameTime) {
  const model::Topology t = shipped("nehalem-ex-4s");
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kShuffle;
  spec.algorithm = ShuffleAlgorithm::kRing;
  spec.sync = SyncMode::kLoose;
  spec.threads = 13;
  spec.total_bytes = 1e9;
  expect_same_time(t, build_shuffle_plan(t, spec));
}

}  // namespace
}  // namespace numatwin::sim
