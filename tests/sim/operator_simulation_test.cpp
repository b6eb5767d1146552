// Directions that follow from the model for operators and policies (not numbers from studies):
// interleaving over n nodes gives LAR 1/n, a loader thread's first touch concentrates traffic
// on one node, small partition state favours moving the computation and large state moving the
// data, unpinned threads vary with the seed, "shared" puts threads next to their data.
#include <gtest/gtest.h>

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

WorkloadSpec op(const model::Topology& t, WorkloadKind kind, const std::string& memory) {
  WorkloadSpec s;
  s.kind = kind;
  s.threads = t.total_cores();
  s.memory = parse_memory_policy(memory, t);
  s.data.records = 2e7;
  s.data.build_records = 2e6;
  s.data.keys.groups = 1e8;  // a table far larger than any LLC: every access goes to memory
  return s;
}

// One node of 2 cores (one hardware thread each) with the generator's caches: a private 256 KiB
// L2 per core.
model::Topology one_node_two_cores() {
  model::GeneratorParams params;
  params.nodes = 1;
  params.cores_per_node = 2;
  params.threads_per_core = 1;
  return model::generate_topology(params);
}

SimulationResult run(const model::Topology& t, const WorkloadSpec& spec, PlanReport* report = nullptr) {
  Simulation simulation(t);
  return simulation.run(build_plan(t, spec, report));
}

TEST(OperatorSimulationTest, InterleaveOverNNodesGivesLocalAccessRatioOneOverN) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  for (WorkloadKind kind : {WorkloadKind::kCountAggregation, WorkloadKind::kHashJoin, WorkloadKind::kIndexJoin}) {
    EXPECT_NEAR(run(t, op(t, kind, "interleave")).local_access_ratio(), 0.25, 1e-9) << workload_kind_name(kind);
    EXPECT_NEAR(run(t, op(t, kind, "interleave:s0,s1")).local_access_ratio(), 0.25, 1e-9);  // 1/2 of threads see 1/2
  }
}

TEST(OperatorSimulationTest, LoaderFirstTouchPutsEverythingOnOneNodeAndIsSlower) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  PlanReport report;
  const SimulationResult loader = run(t, op(t, WorkloadKind::kCountAggregation, "first-touch:loader"), &report);
  for (const DataPlacement& d : report.datasets) {
    ASSERT_EQ(d.spread().size(), 1u) << d.name;
    EXPECT_EQ(d.spread()[0].node, 0);
  }
  const SimulationResult workers = run(t, op(t, WorkloadKind::kCountAggregation, "first-touch"));
  const SimulationResult interleave = run(t, op(t, WorkloadKind::kCountAggregation, "interleave"));
  EXPECT_GT(loader.time_s, workers.time_s);
  EXPECT_GT(loader.time_s, interleave.time_s);
  EXPECT_NEAR(loader.local_access_ratio(), 0.25, 1e-9);  // only s0's quarter of the threads is local
}

TEST(OperatorSimulationTest, TablesThatFitInCacheCauseNoTableTraffic) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec small = op(t, WorkloadKind::kCountAggregation, "first-touch");
  small.data.keys.groups = 1000;
  const SimulationResult r = run(t, small);
  // Only the input is read: every byte moved is a scan byte.
  EXPECT_NEAR(r.bytes, small.data.records * small.data.tuple_bytes, 1e-6 * r.bytes);
  // On one thread, a table in cache is faster than one in memory. (With all 60 threads of the
  // machine updating one small shared table, it need not be: see the next test.)
  small.threads = 1;
  WorkloadSpec large = small;
  large.data.keys.groups = 1e8;
  EXPECT_GT(run(t, large).time_s, run(t, small).time_s);
}

TEST(OperatorSimulationTest, SharedTableUpdatesPayTheLineTransferWorkedByHand) {
  // One node, 2 cores, private 256 KiB L2: COUNT of 1e6 records over 100 groups. The table
  // (100 x 16 bytes) sits in every private cache, so h_private = 1 and half of each worker's
  // 5e5 updates find the line modified by the other worker: 2.5e5 transfers per worker, which
  // add 2.5e5 x X ns to each worker's (compute-only) table phases and nothing else.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = op(t, WorkloadKind::kCountAggregation, "first-touch");
  s.data.records = 1e6;
  s.data.keys.groups = 100;
  s.costs.shared_line_transfer_ns = 0.0;
  const double without = run(t, s).time_s;
  s.costs.shared_line_transfer_ns = 100.0;
  EXPECT_NEAR(run(t, s).time_s - without, 2.5e5 * 100e-9, 1e-9);
  // One worker has nobody to take lines from.
  s.threads = 1;
  const double one = run(t, s).time_s;
  s.costs.shared_line_transfer_ns = 0.0;
  EXPECT_DOUBLE_EQ(run(t, s).time_s, one);
  // Every update hits the private cache: 1e6 x private_hit_ns / 4 lines in flight.
  s.costs.private_hit_ns = 0.0;
  const double free_hits = run(t, s).time_s;
  s.costs.private_hit_ns = 40.0;
  EXPECT_NEAR(run(t, s).time_s - free_hits, 1e6 * 40e-9 / 4.0, 1e-9);
}

TEST(OperatorSimulationTest, CoreWorkOverlapsTheInputStreamWorkedByHand) {
  // One thread, COUNT of 1e6 records over 100 groups: the table sits in the private cache, so
  // no table traffic. With no core work the loop is the input stream alone (time S); with core
  // work W per tuple the loop takes max(S, 1e6 W), not their sum.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = op(t, WorkloadKind::kCountAggregation, "first-touch");
  s.threads = 1;
  s.data.records = 1e6;
  s.data.keys.groups = 100;
  s.costs.scan_cycles_per_tuple = 0.0;
  s.costs.hash_cycles_per_tuple = 0.0;
  s.costs.private_hit_ns = 0.0;
  s.costs.llc_hit_ns = 0.0;
  const double stream_s = run(t, s).time_s;
  const double f = t.nodes[0].frequency_ghz * 1e9;
  // Heavy: 40 + 60 cycles and a 40 ns hit over 4 lines in flight per tuple, far above the stream.
  s.costs.scan_cycles_per_tuple = 40.0;
  s.costs.hash_cycles_per_tuple = 60.0;
  s.costs.private_hit_ns = 40.0;
  const double work_s = 1e6 * (100.0 / f + 40e-9 / 4.0);
  ASSERT_GT(work_s, 2.0 * stream_s);
  EXPECT_NEAR(run(t, s).time_s, work_s, 1e-9);
  // Light: 1 cycle per tuple, far below the stream: the stream's time.
  s.costs.scan_cycles_per_tuple = 0.5;
  s.costs.hash_cycles_per_tuple = 0.5;
  s.costs.private_hit_ns = 0.0;
  ASSERT_LT(1e6 / f, 0.5 * stream_s);
  EXPECT_NEAR(run(t, s).time_s, stream_s, 1e-9);
}

TEST(OperatorSimulationTest, SharedTableUpdatesByTwoWorkersAreAtomicWorkedByHand) {
  // Two workers, COUNT of 1e6 records over 100 groups, compute-bound (as in the shared-line
  // test): each of a worker's 5e5 updates is a locked read-modify-write, + 5e5 x A ns per worker.
  // One worker updates with plain stores: A does not matter.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = op(t, WorkloadKind::kCountAggregation, "first-touch");
  s.data.records = 1e6;
  s.data.keys.groups = 100;
  s.costs.atomic_update_ns = 0.0;
  const double without = run(t, s).time_s;
  s.costs.atomic_update_ns = 30.0;
  EXPECT_NEAR(run(t, s).time_s - without, 5e5 * 30e-9, 1e-9);
  s.threads = 1;
  const double one = run(t, s).time_s;
  s.costs.atomic_update_ns = 0.0;
  EXPECT_DOUBLE_EQ(run(t, s).time_s, one);
}

TEST(OperatorSimulationTest, RadixPartitionBitsWorkedByHand) {
  // 256 KiB private cache, 16-byte entries, 2 per tuple, half the cache: 4096 tuples a partition.
  const double cache = 256.0 * 1024;
  EXPECT_EQ(radix_partition_bits(4096, cache, 16), 0);
  EXPECT_EQ(radix_partition_bits(4097, cache, 16), 1);
  EXPECT_EQ(radix_partition_bits(1e6, cache, 16), 8);  // 1e6 / 2^8 = 3906 <= 4096 < 1e6 / 2^7
  EXPECT_EQ(radix_partition_bits(1e12, cache, 16), kMaxRadixBits);
  EXPECT_EQ(radix_partition_bits(1e6, 0.0, 16), kMaxRadixBits);  // no private cache: as fine as allowed
}

TEST(OperatorSimulationTest, IndexLevelsWorkedByHand) {
  // 125000 keys: 15625 leaves, then 1953, 244, 30.5, 3.8 nodes: depth 6. Cumulative sizes from
  // the root: 64, 576, 4672, 37440, 299584, 2396736 bytes. A 2 MiB private cache (2097152) holds
  // the top five levels, a 300 MB LLC all six; a 32 KiB cache the top three, a 4 MB LLC all.
  EXPECT_EQ(index_depth(125000), 6);
  EXPECT_EQ(index_depth(8), 1);
  EXPECT_EQ(index_depth(64), 2);
  const IndexLevels host = index_levels(6, 2097152.0, 300e6);
  EXPECT_EQ(host.in_private, 5);
  EXPECT_EQ(host.in_llc, 6);
  const IndexLevels small = index_levels(6, 32768.0, 4e6);
  EXPECT_EQ(small.in_private, 3);
  EXPECT_EQ(small.in_llc, 6);
  // An LLC share smaller than the private cache bounds the private levels too: 100 kB holds four.
  const IndexLevels starved = index_levels(6, 2097152.0, 1e5);
  EXPECT_EQ(starved.in_llc, 4);
  EXPECT_EQ(starved.in_private, 4);
}

TEST(OperatorSimulationTest, RadixJoinMovesItsInputsThreeTimesAndNoTableLines) {
  // One worker, partitions sized to its private cache: the histogram reads R and S, the scatter
  // copies them (one payload byte per byte copied), the join reads the copies; the partitions'
  // tables never leave the cache. So 3 (|R| + |S|) x 16 bytes move in all.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = op(t, WorkloadKind::kHashJoin, "first-touch");
  s.join_algorithm = JoinAlgorithm::kRadix;
  s.threads = 1;
  s.data.records = 1e6;
  s.data.build_records = 1e5;
  s.data.keys.groups = 1e5;
  PlanReport report;
  const SimulationResult r = run(t, s, &report);
  EXPECT_NEAR(r.bytes, 3.0 * (1e6 + 1e5) * 16.0, 1e-6 * r.bytes);
  std::vector<std::string> names;
  for (const DataPlacement& d : report.datasets) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"R", "S", "R partitions", "S partitions"}));
}

TEST(OperatorSimulationTest, RadixJoinWinsOnLargeBuildSidesAndLosesOnCacheSizedOnes) {
  // Balkesen et al. (ICDE 2013): partitioning pays when the build side's table is far larger
  // than the caches; a table that fits in the LLC is probed faster in place.
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  auto time_of = [&](JoinAlgorithm algorithm, double build) {
    WorkloadSpec s = op(t, WorkloadKind::kHashJoin, "first-touch");
    s.join_algorithm = algorithm;
    s.data.records = 1e8;
    s.data.build_records = build;
    s.data.keys.groups = build;
    return run(t, s).time_s;
  };
  EXPECT_LT(time_of(JoinAlgorithm::kRadix, 1.6e7), time_of(JoinAlgorithm::kNonPartitioned, 1.6e7));
  EXPECT_GT(time_of(JoinAlgorithm::kRadix, 1e5), time_of(JoinAlgorithm::kNonPartitioned, 1e5));
}

TEST(OperatorSimulationTest, ManyThreadsOnAFewGroupsOfASharedTableAreSlowedByLineTransfers) {
  // The effect the real COUNT kernel shows (validate suite): more threads on 1000 groups of a
  // shared table take longer than fewer, while on 1e6 uniform groups they share the work.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s = op(t, WorkloadKind::kCountAggregation, "first-touch");
  s.data.keys.groups = 1000;
  s.threads = 1;
  const double one_few = run(t, s).time_s;
  s.threads = 2;
  EXPECT_GT(run(t, s).time_s, one_few);
  s.data.keys.groups = 1e7;
  const double two_many = run(t, s).time_s;
  s.threads = 1;
  EXPECT_LT(two_many, run(t, s).time_s);
}

TEST(OperatorSimulationTest, SkewedKeysHitTheCacheMoreOften) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec uniform = op(t, WorkloadKind::kCountAggregation, "first-touch");
  WorkloadSpec zipf = uniform;
  zipf.data.keys.distribution = KeyDistribution::kZipf;
  zipf.data.keys.zipf_exponent = 1.0;
  EXPECT_LT(run(t, zipf).bytes, run(t, uniform).bytes);
}

TEST(OperatorSimulationTest, SmallStateFavoursMigrationLargeStateFavoursShuffle) {
  // Partitioned aggregation on nehalem-ex-4s: with few groups per partition the state is tiny and
  // moving the thread avoids pulling 3/4 of the pieces over the links; with huge tables every
  // update after a move is a remote miss and shuffling the data wins. A light loop (2 cycles per
  // tuple in all): the memory system, not the core, limits it (the core's work overlaps the
  // stream, so a heavy loop hides where the pieces are).
  const model::Topology t = machine("nehalem-ex-4s");
  auto time_of = [&](PartitionStrategy strategy, double groups) {
    WorkloadSpec s = op(t, WorkloadKind::kPartitionedAggregation, "first-touch");
    s.costs.scan_cycles_per_tuple = 1.0;
    s.costs.group_cycles_per_tuple = 1.0;
    s.algorithm = ShuffleAlgorithm::kRing;
    s.strategy = strategy;
    s.data.records = 1e8;
    s.data.keys.groups = groups;
    return run(t, s).time_s;
  };
  EXPECT_LT(time_of(PartitionStrategy::kMigration, 1e3), time_of(PartitionStrategy::kShuffle, 1e3));
  EXPECT_LT(time_of(PartitionStrategy::kShuffle, 1e9), time_of(PartitionStrategy::kMigration, 1e9));
  EXPECT_LT(time_of(PartitionStrategy::kShuffle, 1e9), time_of(PartitionStrategy::kMigrationAndCopy, 1e9));
}

TEST(OperatorSimulationTest, RingMergeBeatsNaiveMerge) {
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec s = op(t, WorkloadKind::kSortMergeJoin, "first-touch");
  s.data.records = 1.6e8;
  s.data.build_records = 1.6e6;
  s.algorithm = ShuffleAlgorithm::kNaive;
  const double naive = run(t, s).time_s;
  s.algorithm = ShuffleAlgorithm::kRing;
  EXPECT_LT(run(t, s).time_s, naive);
}

TEST(OperatorSimulationTest, UnpinnedThreadsDependOnTheSeedAndLoseLocality) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec s = op(t, WorkloadKind::kHashJoin, "first-touch");
  s.threads = 16;
  s.placement = parse_placement("none");
  s.placement.os_move_probability = 0.5;
  s.placement.seed = 1;
  const SimulationResult a = run(t, s);
  s.placement.seed = 2;
  const SimulationResult b = run(t, s);
  EXPECT_NE(a.time_s, b.time_s);
  WorkloadSpec pinned = s;
  pinned.placement = parse_placement("dense");
  EXPECT_GT(run(t, pinned).local_access_ratio(), a.local_access_ratio());
}

TEST(OperatorSimulationTest, SharedPlacementPutsThreadsWithTheirData) {
  // All data on s0 (loader first touch): "shared" fills s0's 30 hardware threads first.
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec s = op(t, WorkloadKind::kCountAggregation, "first-touch:loader");
  s.threads = 20;
  s.placement = parse_placement("shared");
  PlanReport report;
  run(t, s, &report);
  for (const PlacedThread& p : report.threads) EXPECT_EQ(p.node, 0);
}

TEST(OperatorSimulationTest, RejectsBadOperatorInput) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec s = op(t, WorkloadKind::kHashJoin, "first-touch");
  s.data.records = 0;
  EXPECT_THROW(build_plan(t, s), std::invalid_argument);
  s = op(t, WorkloadKind::kCountAggregation, "first-touch");
  s.data.records = 1e13;  // 160 TB of input on a 512 GiB machine
  EXPECT_THROW(build_plan(t, s), std::invalid_argument);
  s = op(t, WorkloadKind::kCountAggregation, "bind:s1");
  s.data.records = 1e10;  // 160 GB bound to one 128 GiB node
  EXPECT_THROW(build_plan(t, s), std::invalid_argument);
  EXPECT_THROW(parse_memory_policy("preferred:s7", t), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
