// The subarray filter and the placement space of distinct threads (distinct_placements.hpp),
// counts and classes worked by hand.
#include <gtest/gtest.h>

#include <filesystem>
#include <numeric>
#include <random>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/search/distinct_placements.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

WorkloadSpec subarray(int threads) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kSubarray;
  s.threads = threads;
  s.data.records = 1.6e7;  // 128 MB of doubles
  s.data.chunks = 240;
  s.data.threads_per_chunk = 2;
  s.data.selectivity = 0.1;
  return s;
}

TEST(DistinctPlacementsTest, CountsTheStudysSpaces) {
  // 12 distinct threads on 2 x 6 cores: C(12, 6) = 924 assignments; the swap of the two
  // sockets fixes none of them (a fixed one would put every thread on both), so 462 classes.
  const DistinctPlacementResult sandy = search_distinct_placements(machine("sandybridge-e5-2630-2s"), subarray(12));
  EXPECT_NEAR(sandy.assignments, 924.0, 1e-6);
  EXPECT_NEAR(sandy.machine_classes, 462.0, 1e-6);
  EXPECT_EQ(sandy.automorphisms, 2);
  // 20 threads on 2 x 10 cores: C(20, 10) = 184756, halved: 92378.
  const DistinctPlacementResult sky = search_distinct_placements(machine("skylake-4114-2s"), subarray(20));
  EXPECT_NEAR(sky.assignments, 184756.0, 1e-3);
  EXPECT_NEAR(sky.machine_classes, 92378.0, 1e-3);
  // Fewer threads than cores: 3 threads on 2 x 6: sum over k0 of C(3, k0) = 2^3 = 8; no
  // assignment is its own mirror: 4.
  const DistinctPlacementResult few = search_distinct_placements(machine("sandybridge-e5-2630-2s"), subarray(3));
  EXPECT_NEAR(few.assignments, 8.0, 1e-9);
  EXPECT_NEAR(few.machine_classes, 4.0, 1e-9);
}

TEST(DistinctPlacementsTest, ClassesOfChunkGroupsWorkedByHand) {
  // Six chunk groups of two threads (40 chunks each). A group is on s0 (both threads), split,
  // or on s1; a placement has a groups on s0, b split, c on s1 with a + b + c = 6 and
  // 2a + b = 6 (six cores per socket): b = 0, 2, 4, 6. Each is its own mirror (a = c), so four
  // classes. They stand for 6! / (a! b! c!) x 2^b assignments: 20, 360, 480 and 64 (sum 924).
  const DistinctPlacementResult r = search_distinct_placements(machine("sandybridge-e5-2630-2s"), subarray(12));
  ASSERT_TRUE(r.exhaustive);
  EXPECT_EQ(r.classes, 4.0);
  EXPECT_EQ(r.simulations, 4);
  ASSERT_EQ(r.ranked.size(), 4u);
  double sum = 0.0;
  for (const DistinctPlacement& p : r.ranked) sum += p.assignments;
  EXPECT_NEAR(sum, 924.0, 1e-6);
  // Under first touch a member reads half of what it reads from its partner's share: a split
  // group's two threads read half remotely. Local ratio = 1 - b / 12; the ranking follows b.
  const double expected_assignments[] = {20.0, 360.0, 480.0, 64.0};
  for (std::size_t i = 0; i < 4; ++i) {
    const double split = 2.0 * static_cast<double>(i);
    EXPECT_NEAR(r.ranked[i].local_access_ratio, 1.0 - split / 12.0, 1e-9) << r.ranked[i].text;
    EXPECT_NEAR(r.ranked[i].assignments, expected_assignments[i], 1e-6) << r.ranked[i].text;
    if (i > 0) {
      EXPECT_GT(r.ranked[i].time_s, r.ranked[i - 1].time_s);
    }
  }
  EXPECT_EQ(r.ranked.front().text, "{s0:2} x3, {s1:2} x3");
}

TEST(DistinctPlacementsTest, EveryAssignmentOfAClassPredictsTheSameTime) {
  // The premise of evaluating one representative per class: relabelling threads within their
  // groups, swapping whole groups of the same kind and mirroring the sockets change nothing.
  const model::Topology t = machine("sandybridge-e5-2630-2s");
  WorkloadSpec spec = subarray(9);  // groups of 2, 2, 2, 2, 1: chunks 48 x 5 -> two kinds
  spec.data.threads_per_chunk = 2;
  const DistinctPlacementResult r = search_distinct_placements(t, spec);
  ASSERT_TRUE(r.exhaustive);
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 12; ++trial) {
    // A random assignment of the 9 threads to the 12 cores.
    std::vector<int> slots;
    for (int c = 0; c < 12; ++c) slots.push_back(c < 6 ? 0 : 1);
    std::shuffle(slots.begin(), slots.end(), random);
    std::vector<int> cpus;
    std::vector<int> used(2, 0);
    for (int w = 0; w < 9; ++w) cpus.push_back(slots[w] * 6 + used[slots[w]]++);
    const DistinctPlacement p = evaluate_placement(t, spec, cpus);
    // Its class: the class with the same (sorted) multiset of per-group states up to the swap.
    bool found = false;
    for (const DistinctPlacement& c : r.ranked) {
      if (std::abs(c.time_s - p.time_s) <= 1e-9 * p.time_s && std::abs(c.local_access_ratio - p.local_access_ratio) < 1e-12) found = true;
    }
    EXPECT_TRUE(found) << "trial " << trial;
  }
}

TEST(DistinctPlacementsTest, SharingMakesSplitGroupsSlowerUnlessTheArrayIsInterleaved) {
  const model::Topology t = machine("skylake-4114-2s");
  const DistinctPlacementResult first_touch = search_distinct_placements(t, subarray(20));
  ASSERT_GE(first_touch.ranked.size(), 2u);
  // Best: no group split (all local); worst: every group split (half remote).
  EXPECT_NEAR(first_touch.ranked.front().local_access_ratio, 1.0, 1e-12);
  EXPECT_NEAR(first_touch.ranked.back().local_access_ratio, 0.5, 1e-12);
  EXPECT_GT(first_touch.ranked.back().time_s, 1.2 * first_touch.ranked.front().time_s);
  // Interleaved pages: every placement reads half remotely, and only the result cursor's
  // transfers tell split groups apart: the spread of times is far narrower.
  WorkloadSpec spec = subarray(20);
  spec.memory = parse_memory_policy("interleave", t);
  const DistinctPlacementResult interleaved = search_distinct_placements(t, spec);
  for (const DistinctPlacement& p : interleaved.ranked) EXPECT_NEAR(p.local_access_ratio, 0.5, 1e-9);
  EXPECT_LT(interleaved.ranked.back().time_s / interleaved.ranked.front().time_s,
            first_touch.ranked.back().time_s / first_touch.ranked.front().time_s);
}

TEST(DistinctPlacementsTest, SamplingFindsTheCompactClassWhenTheSpaceIsTooLarge) {
  // Forced into the sampling search (at most 2 classes enumerated): it starts from the compact
  // assignment (groups whole, all local), so its best is the exhaustive search's best, and it
  // evaluates no class twice.
  const model::Topology t = machine("sandybridge-e5-2630-2s");
  DistinctPlacementOptions options;
  options.max_classes = 2;
  options.stop = [](int simulations) { return simulations >= 3; };
  const DistinctPlacementResult sampled = search_distinct_placements(t, subarray(12), options);
  EXPECT_FALSE(sampled.exhaustive);
  EXPECT_EQ(sampled.simulations, 3);
  EXPECT_EQ(sampled.ranked.size(), 3u);
  const DistinctPlacementResult all = search_distinct_placements(t, subarray(12));
  EXPECT_EQ(sampled.ranked.front().text, all.ranked.front().text);
  EXPECT_DOUBLE_EQ(sampled.ranked.front().time_s, all.ranked.front().time_s);
}

TEST(DistinctPlacementsTest, BadInputIsNamed) {
  const model::Topology t = machine("sandybridge-e5-2630-2s");
  try {
    search_distinct_placements(t, subarray(13));
    FAIL() << "13 threads on 12 cores";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("one thread per core"), std::string::npos) << e.what();
  }
  WorkloadSpec few_chunks = subarray(12);
  few_chunks.data.chunks = 5;
  EXPECT_THROW(search_distinct_placements(t, few_chunks), std::invalid_argument);
  WorkloadSpec bad = subarray(12);
  bad.data.selectivity = 1.5;
  EXPECT_THROW(evaluate_placement(t, bad, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}), std::invalid_argument);
  bad = subarray(12);
  bad.data.threads_per_chunk = 0;
  EXPECT_THROW(search_distinct_placements(t, bad), std::invalid_argument);
}

TEST(DistinctPlacementsTest, SubarrayTrafficWorkedByHand) {
  // One group of two threads on one socket, first touch: 1.6e7 cells x 8 B read once in all
  // (each thread a half), 10 % of it written: 128 MB + 12.8 MB of memory traffic, all local.
  const model::Topology t = machine("sandybridge-e5-2630-2s");
  WorkloadSpec spec = subarray(2);
  Simulation simulation(t);
  const SimulationResult local = simulation.run(build_plan(t, [&] {
    WorkloadSpec s = spec;
    s.placement = parse_placement("0,1");
    return s;
  }()));
  EXPECT_NEAR(local.bytes, 1.6e7 * 8.0 * 1.1, 1.0);
  EXPECT_NEAR(local.local_access_ratio(), 1.0, 1e-12);
  // Split over the sockets: each thread reads half of its reads from the other's share.
  WorkloadSpec split = spec;
  split.placement = parse_placement("0,6");
  const SimulationResult remote = simulation.run(build_plan(t, split));
  EXPECT_NEAR(remote.local_access_ratio(), 0.5, 1e-12);
}

}  // namespace
}  // namespace numatwin::sim

namespace numatwin::sim {
namespace {

TEST(EnergyEstimateTest, WorkedByHandWithTheDefaults) {
  // Two threads of one chunk group on one socket: the memory controllers serve 1.6e7 x 8 B =
  // 1.28e8 B read and 1.28e7 B written, a written byte counting twice (its ownership read and its
  // write-back): 1.536e8 B, all local: E_dram = 160 pJ/B x 1.536e8 B = 24.58 mJ; no remote
  // bytes; the background is 3 W x 2 memory nodes x the run's time.
  const model::Topology t = machine("sandybridge-e5-2630-2s");
  ASSERT_FALSE(t.energy.has_value());
  WorkloadSpec spec = subarray(2);
  const DistinctPlacement p = evaluate_placement(t, spec, {0, 1});
  EXPECT_TRUE(p.energy.defaults);
  EXPECT_NEAR(p.energy.dram_j, 160e-12 * 1.536e8, 1e-6);
  EXPECT_EQ(p.energy.remote_j, 0.0);
  EXPECT_NEAR(p.energy.background_j, 3.0 * 2.0 * p.time_s, 1e-12);
  // Split: half of the payload (1.408e8 B) is remote, 20 pJ/B more; the link carries at least the
  // remote reads (0.64e8 B) and the remote writes' ownership reads and write-backs (2 x 0.64e7 B).
  const DistinctPlacement split = evaluate_placement(t, spec, {0, 6});
  EXPECT_NEAR(split.energy.remote_j, 20e-12 * 0.5 * 1.408e8, 1e-6);
  EXPECT_GE(split.energy.link_j, p.energy.link_j + 50e-12 * (0.64e8 + 2.0 * 0.64e7) * (1.0 - 1e-9));
  // A file's figures replace the defaults.
  model::Topology given = t;
  given.energy = model::EnergyParameters{100.0, 0.0, 0.0, 0.0, "test"};
  const DistinctPlacement q = evaluate_placement(given, spec, {0, 1});
  EXPECT_FALSE(q.energy.defaults);
  EXPECT_NEAR(q.energy.total_j(), 100e-12 * 1.536e8, 1e-6);
}

}  // namespace
}  // namespace numatwin::sim
