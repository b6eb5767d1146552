// The partitioned aggregation's state against the caches (partitioned_aggregation.cpp: cold
// misses after a move, the copy of migration & copy) and the per-phase accounting of the
// simulator (plan.hpp: Phase; result.hpp: PhaseTime), worked by hand on a tiny machine, and
// their direction on nehalem-ex-4s.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

// Two nodes of one core each (one hardware thread), 2.5 GHz, a 64 KiB L2 and a 1 MiB LLC per
// node (shared by its one core), 64-byte lines.
model::Topology two_single_core_nodes() {
  model::GeneratorParams params;
  params.nodes = 2;
  params.cores_per_node = 1;
  params.threads_per_core = 1;
  params.caches = {{1, 32 * 1024, 1}, {2, 64 * 1024, 1}, {3, 1024 * 1024, 1}};
  return model::generate_topology(params);
}

// Two workers (one per node), ring order, tight, 4e5 records: 4 pieces of a = 1e5 records.
// Ring on 2 threads: worker 0 reads its own piece (node 0), then worker 1's (node 1); worker 1
// reads its own, then worker 0's. So each worker stays home in step 0 and moves once, in step 1,
// where it is the only worker on its new node: an LLC share of the whole 1 MiB = 16384 lines.
WorkloadSpec two_workers(PartitionStrategy strategy, double groups_per_partition) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kPartitionedAggregation;
  s.threads = 2;
  s.strategy = strategy;
  s.algorithm = ShuffleAlgorithm::kRing;
  s.sync = SyncMode::kTight;
  s.data.records = 4e5;
  s.data.keys.groups = 2 * groups_per_partition;
  return s;
}

SimulationResult run(const model::Topology& t, const WorkloadSpec& spec) {
  Simulation simulation(t);
  return simulation.run(build_plan(t, spec));
}

TEST(PartitionedStateTest, ColdMissesAndCopyOfATableThatFitsTheCache) {
  const model::Topology t = two_single_core_nodes();
  // 1000 groups per partition: a table of 2048 entries (the power of two >= 2 x 1000, as the
  // kernel sizes it) x 16 = 32768 bytes = L = 512 lines, far below the 16384-line LLC share: h = 1,
  // no steady misses. After the move in step 1 every line comes in once: D(a) = L (1 - e^{-a / L})
  // = 512 (1 - e^{-195}) = 512 cold misses, 512 x 64 = 32768 bytes per worker, 65536 for both, all
  // "move state"; "update table" moves nothing.
  const SimulationResult migration = run(t, two_workers(PartitionStrategy::kMigration, 1000));
  EXPECT_NEAR(migration.phase(Phase::kMoveState).bytes, 65536.0, 65536.0 * 1e-3);
  EXPECT_NEAR(migration.phase(Phase::kUpdateTable).bytes, 0.0, 1e-9);
  // Two moves at migration_overhead_seconds (5 us) each: "migrate" is exactly 2 x 5 us.
  EXPECT_NEAR(migration.phase(Phase::kMigrate).thread_s, 2 * 5e-6, 1e-15);
  // Input: 4 pieces of 1e5 x 16 bytes, all "read input".
  EXPECT_NEAR(migration.phase(Phase::kReadInput).bytes, 6.4e6, 1e-3);

  // Migration & copy: the same cold misses (to the local copy) plus each worker's copy of its
  // 32768-byte table before the move: 65536 + 2 x 32768 = 131072 bytes of "move state".
  const SimulationResult copy = run(t, two_workers(PartitionStrategy::kMigrationAndCopy, 1000));
  EXPECT_NEAR(copy.phase(Phase::kMoveState).bytes, 131072.0, 65536.0 * 1e-3);
  EXPECT_NEAR(copy.phase(Phase::kMigrate).thread_s, 2 * 5e-6, 1e-15);

  // The shuffle never moves the thread: no state moves, no cold misses.
  const SimulationResult shuffle = run(t, two_workers(PartitionStrategy::kShuffle, 1000));
  EXPECT_EQ(shuffle.phase(Phase::kMoveState).bytes, 0.0);
  EXPECT_EQ(shuffle.phase(Phase::kMigrate).thread_s, 0.0);
}

TEST(PartitionedStateTest, ColdMissesOfATableLargerThanTheCacheShare) {
  const model::Topology t = two_single_core_nodes();
  // 131072 groups per partition: 4 MiB = L = 65536 lines against an LLC share of C = 16384
  // lines; uniform keys: h = 32768 entries / 131072 = 1/4, hit(D lines) = D / L.
  // Steady misses: a (1 - h) = 75000 per step, in all 4 worker-steps: 300000 x 64 bytes of
  // "update table" (the cold misses are counted apart).
  // After the move: dD/di = 1 - D / L reaches C at i_f = -L ln(1 - C / L) = 65536 ln(4/3)
  // = 18853.5 < a, so the step misses C + (a - i_f)(1 - h); the cold misses are that minus the
  // steady a (1 - h): C - (1 - h) i_f = 16384 - 0.75 x 18853.53 = 2243.85 lines per worker:
  // 2 x 2243.85 x 64 = 287213 bytes of "move state".
  const double i_f = 65536.0 * std::log(4.0 / 3.0);
  const double cold_lines = 16384.0 - 0.75 * i_f;
  const SimulationResult migration = run(t, two_workers(PartitionStrategy::kMigration, 131072));
  EXPECT_NEAR(migration.phase(Phase::kUpdateTable).bytes, 300000.0 * 64.0, 1e-6);
  EXPECT_NEAR(migration.phase(Phase::kMoveState).bytes, 2 * cold_lines * 64.0, 2 * cold_lines * 64.0 * 5e-3);

  // Migration & copy adds the copy of each 4 MiB table: 2 x 4194304 bytes.
  const SimulationResult copy = run(t, two_workers(PartitionStrategy::kMigrationAndCopy, 131072));
  EXPECT_NEAR(copy.phase(Phase::kMoveState).bytes, 2 * 4194304.0 + 2 * cold_lines * 64.0, 2 * cold_lines * 64.0 * 5e-3);
  EXPECT_NEAR(copy.phase(Phase::kUpdateTable).bytes, 300000.0 * 64.0, 1e-6);
}

// One core of the generator's node (2.5 GHz, 10 miss buffers, 100 ns) and one transfer: a read of
// 1e6 bytes at 100 cycles per byte carrying "update table" work as a quarter of its cycles.
model::Topology one_core() {
  model::GeneratorParams params;
  params.nodes = 1;
  params.cores_per_node = 1;
  params.threads_per_core = 1;
  return model::generate_topology(params);
}

Transfer scan_carrying_a_quarter() {
  Transfer tr;
  tr.read_node = 0;
  tr.bytes = 1e6;
  tr.cycles_per_byte = 100.0;
  tr.phase = Phase::kReadInput;
  tr.core_phase = Phase::kUpdateTable;
  tr.core_phase_share = 0.25;
  return tr;
}

TEST(PartitionedStateTest, ACoreBoundScanSplitsItsTimeByCycles) {
  // One thread, one read of 1e6 bytes at 100 cycles per byte on a 2.5 GHz core: 2.5e7 bytes/s,
  // far below what memory gives one core, so the core limits it: 0.04 s, all core-bound; a
  // quarter of the cycles are "update table", the rest "read input".
  const model::Topology t = one_core();
  Plan plan;
  plan.threads.resize(1);
  Transfer tr = scan_carrying_a_quarter();
  plan.threads[0].ops.emplace_back(tr);
  plan.threads[0].ops.emplace_back(Compute{0.01, Phase::kSortMerge});
  Simulation simulation(t);
  const SimulationResult r = simulation.run(plan);
  EXPECT_NEAR(r.time_s, 0.05, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kReadInput).thread_s, 0.03, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kReadInput).core_s, 0.03, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kReadInput).memory_s, 0.0, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kUpdateTable).thread_s, 0.01, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kSortMerge).core_s, 0.01, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kReadInput).bytes, 1e6, 1e-6);
  // One thread, always working: its wall-clock split is its thread-seconds.
  EXPECT_NEAR(r.phase(Phase::kReadInput).wall_s, 0.03, 1e-12);
  EXPECT_NEAR(r.phase(Phase::kUpdateTable).wall_s, 0.01, 1e-12);
}

TEST(PartitionedStateTest, MemoryTimeHiddenUnderCoreWorkIsStillReported) {
  // The core-bound scan of ACoreBoundScanSplitsItsTimeByCycles: 1e6 bytes at 2.5e7 bytes/s. Its
  // memory alone would move them at the miss buffers' 10 x 64 B / 100 ns = 6.4e9 bytes/s (the
  // generator's node; at a utilisation of 2.5e7 / 4e10 the queue adds nothing measurable), so
  // read input shows 1e6 / 6.4e9 = 1.5625e-4 s of memory time beside 0.03 s of core work, and
  // 0.01 s of update-table work carried. A quarter of the carried cycles wait on cache hits.
  // Then a compute of 0.02 s: 0.005 s cache hits, 0.01 s dependent misses, 0.005 s execution.
  const model::Topology t = one_core();
  Plan plan;
  plan.threads.resize(1);
  Transfer tr = scan_carrying_a_quarter();
  tr.set_cache_share(0.25 * 0.25);
  plan.threads[0].ops.emplace_back(tr);
  plan.threads[0].ops.emplace_back(Compute{0.02, Phase::kSortMerge, 0.25, 0.5});
  Simulation simulation(t);
  const SimulationResult r = simulation.run(plan);
  EXPECT_NEAR(r.time_s, 0.06, 1e-12);
  const PhaseTime& read = r.phase(Phase::kReadInput);
  EXPECT_NEAR(read.core_s, 0.03, 1e-12);
  EXPECT_NEAR(read.memory_s, 0.0, 1e-12);
  EXPECT_NEAR(read.memory_alone_s, 1.5625e-4, 1e-9);
  EXPECT_NEAR(read.core_carried_s, 0.01, 1e-12);
  EXPECT_NEAR(read.cache_s, 0.0, 1e-12);
  EXPECT_EQ(phase_bound(read), PhaseBound::kCore);
  const PhaseTime& table = r.phase(Phase::kUpdateTable);
  EXPECT_NEAR(table.core_s, 0.01, 1e-12);
  // 0.0625 of the transfer's cycles, all of them the table's: 0.0625 x 0.04 s = 0.0025 s (the
  // share is stored to 1/65535).
  EXPECT_NEAR(table.cache_s, 0.0025, 0.04 / 65535.0);
  EXPECT_NEAR(table.memory_alone_s, 0.0, 1e-12);
  EXPECT_EQ(phase_bound(table), PhaseBound::kCore);
  const PhaseTime& merge = r.phase(Phase::kSortMerge);
  EXPECT_NEAR(merge.thread_s, 0.02, 1e-12);
  EXPECT_NEAR(merge.core_s, 0.01, 1e-12);
  EXPECT_NEAR(merge.cache_s, 0.005, 1e-12);
  EXPECT_NEAR(merge.memory_s, 0.01, 1e-12);
  EXPECT_NEAR(merge.memory_alone_s, 0.01, 1e-12);
  EXPECT_EQ(phase_bound(merge), PhaseBound::kMemory);  // 0.01 memory >= 0.01 core
  // The run's bound: 0.05 s of core work, 0.01 s of one dependent miss at a time.
  EXPECT_NEAR(r.bound.core_s, 0.05, 1e-12);
  EXPECT_NEAR(r.bound.miss_buffers_s, 0.01, 1e-12);
}

TEST(PartitionedStateTest, APhasesBoundIsItsLargestTime) {
  PhaseTime p;
  EXPECT_EQ(phase_bound(p), PhaseBound::kNone);
  p.core_s = 2.0;
  p.cache_s = 0.5;
  p.memory_alone_s = 1.0;
  EXPECT_EQ(phase_bound(p), PhaseBound::kCore);
  p.cache_s = 1.5;  // most of the core's time waits on cache hits
  EXPECT_EQ(phase_bound(p), PhaseBound::kCache);
  p.memory_alone_s = 2.0;  // a tie goes to memory
  EXPECT_EQ(phase_bound(p), PhaseBound::kMemory);
  p.core_carried_s = 3.0;  // 5 s of core work, most of it another phase's
  EXPECT_EQ(phase_bound(p), PhaseBound::kCarried);
  EXPECT_STREQ(phase_bound_name(PhaseBound::kCarried), "carried");
  EXPECT_STREQ(phase_bound_name(PhaseBound::kNone), "-");
}

TEST(PartitionedStateTest, PhasesAddUpToTheRunsThreadSeconds) {
  const model::Topology t = machine("nehalem-ex-4s");
  std::vector<WorkloadSpec> specs;
  for (PartitionStrategy strategy : {PartitionStrategy::kShuffle, PartitionStrategy::kMigration, PartitionStrategy::kMigrationAndCopy}) {
    for (SyncMode sync : {SyncMode::kTight, SyncMode::kLoose}) {
      WorkloadSpec s;
      s.kind = WorkloadKind::kPartitionedAggregation;
      s.threads = 32;
      s.strategy = strategy;
      s.sync = sync;
      s.algorithm = ShuffleAlgorithm::kNaive;
      s.data.records = 1e7;
      s.data.keys.groups = 32e5;
      specs.push_back(s);
    }
  }
  for (WorkloadKind kind : {WorkloadKind::kShuffle, WorkloadKind::kMigration, WorkloadKind::kMigrationAndCopy}) {
    WorkloadSpec s;
    s.kind = kind;
    s.threads = 32;
    s.sync = SyncMode::kLoose;
    s.total_bytes = 1e9;
    specs.push_back(s);
  }
  for (WorkloadKind kind : {WorkloadKind::kCountAggregation, WorkloadKind::kMedianAggregation, WorkloadKind::kHashJoin,
                            WorkloadKind::kIndexJoin, WorkloadKind::kSortMergeJoin}) {
    WorkloadSpec s;
    s.kind = kind;
    s.threads = 24;
    s.data.records = 4e6;
    s.data.build_records = 1e6;
    specs.push_back(s);
  }
  WorkloadSpec radix = specs.back();
  radix.kind = WorkloadKind::kHashJoin;
  radix.join_algorithm = JoinAlgorithm::kRadix;
  specs.push_back(radix);
  for (const WorkloadSpec& s : specs) {
    const SimulationResult r = run(t, s);
    ASSERT_EQ(r.phases.size(), static_cast<std::size_t>(kPhaseCount));
    // Every thread is in one phase at every instant: threads x time.
    EXPECT_NEAR(r.thread_seconds(), s.threads * r.time_s, 1e-9 * s.threads * r.time_s) << workload_kind_name(s.kind);
    double bytes = 0.0;
    double wall = 0.0;
    for (const PhaseTime& p : r.phases) {
      bytes += p.bytes;
      wall += p.wall_s;
      EXPECT_LE(p.core_s + p.memory_s, p.thread_s * (1 + 1e-9) + 1e-15) << phase_name(p.phase);
    }
    EXPECT_NEAR(bytes, r.bytes, 1e-9 * r.bytes) << workload_kind_name(s.kind);
    // Some thread works in every interval: the wall-clock split adds up to the run's time, and
    // nobody works while waiting or finished.
    EXPECT_NEAR(wall, r.time_s, 1e-9 * r.time_s) << workload_kind_name(s.kind);
    EXPECT_EQ(r.phase(Phase::kBarrierWait).wall_s, 0.0);
    EXPECT_EQ(r.phase(Phase::kFinished).wall_s, 0.0);
    EXPECT_EQ(r.phase(Phase::kOther).thread_s, 0.0) << workload_kind_name(s.kind) << ": an op without a phase";
    EXPECT_GT(r.phase(Phase::kReadInput).thread_s, 0.0) << workload_kind_name(s.kind);
  }
}

TEST(PartitionedStateTest, LargerStateGrowsTheCopyAndTheTablesMisses) {
  // nehalem-ex-4s, 32 threads (8 per socket: an LLC share of 3 MiB, a 256 KiB L2 each), groups
  // per partition from 1e3 to 1e7: migration & copy copies a table 10 times larger at each
  // point, so "move state" grows; the table phase's memory-bound share grows as the LLC hit
  // ratio falls (h = 1 up to 98304 groups per partition, then 98304 / groups).
  const model::Topology t = machine("nehalem-ex-4s");
  double last_state = 0.0;
  double last_miss_share = -1.0;
  double first_miss_share = -1.0;
  for (double per_partition = 1e3; per_partition <= 1e7 * 1.0001; per_partition *= 10.0) {
    WorkloadSpec s;
    s.kind = WorkloadKind::kPartitionedAggregation;
    s.threads = 32;
    s.strategy = PartitionStrategy::kMigrationAndCopy;
    s.data.keys.groups = per_partition * 32;
    const SimulationResult r = run(t, s);
    const PhaseTime& table = r.phase(Phase::kUpdateTable);
    const double miss_share = table.memory_s / table.thread_s;
    EXPECT_GT(r.phase(Phase::kMoveState).thread_s, last_state) << per_partition;
    EXPECT_GE(miss_share, last_miss_share - 1e-12) << per_partition;
    last_state = r.phase(Phase::kMoveState).thread_s;
    last_miss_share = miss_share;
    if (first_miss_share < 0.0) first_miss_share = miss_share;
  }
  EXPECT_GT(last_miss_share, first_miss_share + 0.5);
}

}  // namespace
}  // namespace numatwin::sim
