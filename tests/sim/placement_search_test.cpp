// Placement search: automorphisms of small machines and the count of distinct placements,
// worked by hand.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/search/placement_search.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

model::Topology generated(model::TopologyFamily family, int nodes, int cores, int threads_per_core) {
  model::GeneratorParams p;
  p.family = family;
  p.nodes = nodes;
  p.cores_per_node = cores;
  p.threads_per_core = threads_per_core;
  return model::generate_topology(p);
}

TEST(PlacementSearchTest, AutomorphismGroupsOfSmallMachines) {
  bool complete = false;
  // Two identical sockets: identity and the swap.
  EXPECT_EQ(machine_automorphisms(machine("sandybridge-e5-2630-2s"), {}, 1000, complete).size(), 2u);
  EXPECT_TRUE(complete);
  // Fully connected 4 sockets: all 4! permutations; a 4-ring: the 8 symmetries of a square.
  EXPECT_EQ(machine_automorphisms(machine("nehalem-ex-4s"), {}, 1000, complete).size(), 24u);
  EXPECT_EQ(machine_automorphisms(machine("nehalem-ex-4s-4link"), {}, 1000, complete).size(), 8u);
  // The twisted ladder: the degree-3 sockets 1, 2, 6, 5 form a square (1-2, 2-6, 6-5, 5-1) whose
  // diagonals are replaced by the paths 1-0-7-6 and 2-3-4-5. Every symmetry of the square maps
  // diagonals to diagonals, so the machine has the square's 8 symmetries.
  const auto ladder = machine_automorphisms(machine("opteron-8220-8s-twisted-ladder"), {}, 1000, complete);
  for (const auto& image : ladder) EXPECT_EQ(image.size(), 8u);
  EXPECT_EQ(ladder.size(), 8u);
  // Fixing a node of the square leaves the reflection through it.
  EXPECT_EQ(machine_automorphisms(machine("nehalem-ex-4s-4link"), {0}, 1000, complete).size(), 2u);
  // The limit is honoured and reported.
  EXPECT_EQ(machine_automorphisms(machine("nehalem-ex-4s"), {}, 5, complete).size(), 5u);
  EXPECT_FALSE(complete);
}

TEST(PlacementSearchTest, CountsDistinctPlacementsOnTwoSockets) {
  // 2 nodes x 2 cores, 1 thread per core, 2 threads: per node 0, 1 or 2 threads ->
  // (2,0), (1,1), (0,2) = 3 placements; the swap merges (2,0) with (0,2): 2 distinct.
  const model::Topology t = generated(model::TopologyFamily::kFullyConnected, 2, 2, 1);
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kCountAggregation;
  spec.threads = 2;
  spec.data.records = 1e5;
  const PlacementSearchResult r = search_placements(t, spec);
  EXPECT_TRUE(r.exhaustive);
  EXPECT_EQ(r.space_size, 3.0);
  EXPECT_EQ(r.distinct_placements, 2.0);
  ASSERT_EQ(r.ranked.size(), 2u);
  EXPECT_LE(r.ranked[0].time_s, r.ranked[1].time_s);
  // With SMT (2 threads per core) a node of 2 cores holds 2 threads as (2 cores x 1) or
  // (1 core x 2): per node patterns 0; 1 (1x1); 2 (2x1 or 1x2) -> pairs summing to 2:
  // (2,0) x2 patterns, (1,1), (0,2) x2 = 5; under the swap: {(2a,0),(0,2a)}, {(2b,0),(0,2b)},
  // {(1,1)} = 3 distinct.
  const model::Topology smt = generated(model::TopologyFamily::kFullyConnected, 2, 2, 2);
  const PlacementSearchResult s = search_placements(smt, spec);
  EXPECT_EQ(s.space_size, 5.0);
  EXPECT_EQ(s.distinct_placements, 3.0);
}

TEST(PlacementSearchTest, PolicyNodesBreakTheSymmetry) {
  // Binding the data to s0 makes the two sockets different: nothing merges.
  const model::Topology t = generated(model::TopologyFamily::kFullyConnected, 2, 2, 1);
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kCountAggregation;
  spec.threads = 2;
  spec.data.records = 1e5;
  spec.memory = parse_memory_policy("bind:s0", t);
  // A light loop, which the memory system limits (the core's work, cache hits, atomics and
  // shared-line transfers overlap the input stream and would hide where it comes from).
  spec.costs.scan_cycles_per_tuple = 1.0;
  spec.costs.hash_cycles_per_tuple = 1.0;
  spec.costs.atomic_update_ns = 0.0;
  spec.costs.shared_line_transfer_ns = 0.0;
  spec.costs.llc_hit_ns = 0.0;
  spec.costs.private_hit_ns = 0.0;
  const PlacementSearchResult r = search_placements(t, spec);
  EXPECT_EQ(r.distinct_placements, 3.0);
  // Both threads next to the bound data is the fastest.
  EXPECT_EQ(occupancy_text(t, r.ranked.front().occupancy), "s0: 2 (2x1)");
}

TEST(PlacementSearchTest, LargeSpacesAreSampledWithinTheBudget) {
  const model::Topology t = machine("sgi-uv300h-32s");
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kCountAggregation;
  spec.threads = 64;
  spec.data.records = 1e6;
  PlacementSearchOptions options;
  options.max_automorphisms = 100;
  options.stop = [](int evaluated) { return evaluated >= 8; };
  const PlacementSearchResult r = search_placements(t, spec, options);
  EXPECT_FALSE(r.exhaustive);
  EXPECT_GT(r.space_size, 1e20);
  EXPECT_EQ(r.evaluated, 8);
  EXPECT_FALSE(r.symmetry_complete);
}

}  // namespace
}  // namespace numatwin::sim
