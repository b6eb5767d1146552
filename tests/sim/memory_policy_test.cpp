// Memory policies turned into page placements, worked by hand on small machines.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/sim/memory_policy.hpp"

namespace numatwin::sim {
namespace {

// A ring of 4 nodes with 10 GiB each.
model::Topology ring4() {
  model::GeneratorParams p;
  p.family = model::TopologyFamily::kRing;
  p.nodes = 4;
  p.memory_per_node_bytes = 10LL << 30;
  return model::generate_topology(p);
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double fraction_on(const std::vector<model::NodeShare>& spread, model::NodeIndex node) {
  for (const model::NodeShare& s : spread) {
    if (s.node == node) return s.fraction;
  }
  return 0.0;
}

TEST(MemoryPolicyTest, InterleaveSpreadsEvenlyOverItsNodes) {
  const model::Topology t = ring4();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0, 1}, 0);
  const DataPlacement all = placer.place("d", 8 * kGiB, DatasetKind::kShared, parse_memory_policy("interleave", t));
  for (model::NodeIndex n = 0; n < 4; ++n) EXPECT_DOUBLE_EQ(fraction_on(all.spread(), n), 0.25);
  // A worker's chunk of an interleaved dataset is interleaved too.
  EXPECT_DOUBLE_EQ(fraction_on(all.chunk(1, 2), 3), 0.25);
  const DataPlacement two = placer.place("e", 2 * kGiB, DatasetKind::kShared, parse_memory_policy("interleave:s1,s3", t));
  EXPECT_DOUBLE_EQ(fraction_on(two.spread(), 1), 0.5);
  EXPECT_DOUBLE_EQ(fraction_on(two.spread(), 0), 0.0);
}

TEST(MemoryPolicyTest, PreferredSpillsToTheNearestNodeWhenFull) {
  // 25 GiB preferred on s1 (10 GiB): 10 on s1, then its neighbours s0 and s2 (both one hop; s0
  // first by index) take 10 each, the last 5 GiB go to... s0 and s2 are full: s3 (two hops).
  const model::Topology t = ring4();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0}, 0);
  const DataPlacement d = placer.place("big", 25 * kGiB, DatasetKind::kShared, parse_memory_policy("preferred:s1", t));
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 1), 10.0 / 25.0);
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 0), 10.0 / 25.0);
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 2), 5.0 / 25.0);
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 3), 0.0);
  // The first 10 GiB of the address range are the preferred node's.
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(0, 10 * kGiB), 1), 1.0);
  EXPECT_DOUBLE_EQ(placer.used_bytes()[1], 10 * kGiB);
}

TEST(MemoryPolicyTest, FirstTouchFollowsTheInitialisingThreads) {
  const model::Topology t = ring4();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0, 0, 2, 3}, 1);
  const DataPlacement workers = placer.place("w", 4 * kGiB, DatasetKind::kPartitioned, parse_memory_policy("first-touch", t));
  EXPECT_DOUBLE_EQ(fraction_on(workers.chunk(0, 4), 0), 1.0);
  EXPECT_DOUBLE_EQ(fraction_on(workers.chunk(2, 4), 2), 1.0);
  EXPECT_DOUBLE_EQ(fraction_on(workers.spread(), 0), 0.5);
  const DataPlacement loader = placer.place("l", 4 * kGiB, DatasetKind::kPartitioned, parse_memory_policy("first-touch:loader", t));
  EXPECT_DOUBLE_EQ(fraction_on(loader.spread(), 1), 1.0);  // the loader runs on s1
  // localalloc: shared data where the loader allocates it, private data with its worker.
  const DataPlacement shared = placer.place("s", 1 * kGiB, DatasetKind::kShared, parse_memory_policy("localalloc", t));
  EXPECT_DOUBLE_EQ(fraction_on(shared.spread(), 1), 1.0);
  const DataPlacement priv = placer.place("p", 4 * kGiB, DatasetKind::kPrivate, parse_memory_policy("localalloc", t));
  EXPECT_DOUBLE_EQ(fraction_on(priv.chunk(3, 4), 3), 1.0);
}

TEST(MemoryPolicyTest, BindFailsWhenTheDataDoesNotFit) {
  const model::Topology t = ring4();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0}, 0);
  EXPECT_NO_THROW(placer.place("a", 15 * kGiB, DatasetKind::kShared, parse_memory_policy("bind:s0,s1", t)));
  try {
    placer.place("b", 6 * kGiB, DatasetKind::kShared, parse_memory_policy("bind:s0,s1", t));
    FAIL() << "bound data beyond the nodes' capacity";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("dataset \"b\""), std::string::npos) << e.what();
  }
  EXPECT_THROW(placer.place("c", 100 * kGiB, DatasetKind::kShared, parse_memory_policy("first-touch", t)),
               std::invalid_argument);
}

TEST(MemoryPolicyTest, ParsesPoliciesAndRejectsMissingNodes) {
  const model::Topology t = ring4();
  EXPECT_EQ(memory_policy_name(parse_memory_policy("interleave:s0,2", t), t), "interleave:s0,s2");
  EXPECT_EQ(memory_policy_name(parse_memory_policy("first-touch:loader", t), t), "first-touch:loader");
  EXPECT_THROW(parse_memory_policy("preferred:s9", t), std::invalid_argument);
  EXPECT_THROW(parse_memory_policy("preferred:s0,s1", t), std::invalid_argument);
  EXPECT_THROW(parse_memory_policy("bind", t), std::invalid_argument);
  EXPECT_THROW(parse_memory_policy("nearest", t), std::invalid_argument);
  EXPECT_THROW(parse_memory_policy("first-touch:everyone", t), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
