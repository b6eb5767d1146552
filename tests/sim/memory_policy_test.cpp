// Memory policies turned into page placements, worked by hand on small machines.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <vector>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"

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

TEST(WeightedInterleaveTest, PagesFollowTheWeights) {
  const model::Topology t = ring4();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0, 1}, 0);
  // 3:1 over s0 and s2: 3/4 and 1/4 of every chunk.
  const DataPlacement d = placer.place("d", 8 * kGiB, DatasetKind::kPartitioned,
                                       parse_memory_policy("weighted-interleave:s0=3,s2=1", t));
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 0), 0.75);
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 2), 0.25);
  EXPECT_DOUBLE_EQ(fraction_on(d.chunk(1, 2), 2), 0.25);
  // 6 GiB on s0, 2 GiB on s2.
  EXPECT_DOUBLE_EQ(placer.used_bytes()[0], 6 * kGiB);
  EXPECT_DOUBLE_EQ(placer.used_bytes()[2], 2 * kGiB);
  // Per node: worker 0 (on s0) spreads its chunk 1:1 over s0, s1; worker 1 (on s1) puts its all on
  // s1.
  const DataPlacement p =
      placer.place("p", 4 * kGiB, DatasetKind::kPartitioned,
                   parse_memory_policy("weighted-interleave:s0[s0=1,s1=1];s1[s1=5]", t));
  EXPECT_DOUBLE_EQ(fraction_on(p.chunk(0, 2), 0), 0.5);
  EXPECT_DOUBLE_EQ(fraction_on(p.chunk(0, 2), 1), 0.5);
  EXPECT_DOUBLE_EQ(fraction_on(p.chunk(1, 2), 1), 1.0);
  // The whole: s0 1 GiB, s1 1 + 2 GiB: 1/4 and 3/4.
  EXPECT_DOUBLE_EQ(fraction_on(p.spread(), 1), 0.75);
  // A worker on a node without a vector is an error naming the node.
  MemoryPlacer other(t, r, {0, 3}, 0);
  try {
    (void)other.place("q", kGiB, DatasetKind::kPartitioned,
                      parse_memory_policy("weighted-interleave:s0[s0=1]", t));
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("node s3"), std::string::npos) << e.what();
  }
  // Capacity: 24 GiB at 3:1 needs 18 GiB on s0 (10 GiB).
  MemoryPlacer full(t, r, {0}, 0);
  EXPECT_THROW((void)full.place("f", 24 * kGiB, DatasetKind::kShared,
                                parse_memory_policy("weighted-interleave:s0=3,s1=1", t)),
               std::invalid_argument);
}

// Operators read a dataset's whole spread from the builder (worked out once per plan): the table
// loops of COUNT must read the shared table's pages, not the input's. localalloc puts the shared
// table on the loader's node s0 and each worker's input chunk on its own node (sparse: s0, s1).
TEST(MemoryPolicyTest, OperatorTableAccessesReadTheTablesPages) {
  const model::Topology t = ring4();
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kCountAggregation;
  spec.threads = 2;
  spec.placement = parse_placement("sparse");
  spec.memory = parse_memory_policy("localalloc", t);
  spec.data.records = 1e7;
  spec.data.keys.groups = 1e8;  // 3.2 GB of table: far beyond the caches, so its accesses miss
  const Plan plan = build_plan(t, spec, nullptr);
  ASSERT_EQ(plan.threads.size(), 2U);
  int random = 0;
  std::vector<double> scanned(4, 0.0);  // bytes streamed per node
  for (const ThreadPlan& tp : plan.threads) {
    for (const Op& op : tp.ops) {
      const auto* tr = std::get_if<Transfer>(&op);
      if (tr == nullptr) continue;
      std::vector<model::NodeShare> nodes = tr->read_spread;
      if (tr->read_node >= 0) nodes.push_back(model::NodeShare{tr->read_node, 1.0});
      if (tr->lines_in_flight > 0.0) {  // a table access (read or update): only s0
        ++random;
        nodes.insert(nodes.end(), tr->write_spread.begin(), tr->write_spread.end());
        if (tr->write_node >= 0) nodes.push_back(model::NodeShare{tr->write_node, 1.0});
        ASSERT_FALSE(nodes.empty());
        for (const model::NodeShare& n : nodes) EXPECT_EQ(n.node, 0);
      } else {
        for (const model::NodeShare& n : nodes) scanned[n.node] += tr->bytes * n.fraction;
      }
    }
  }
  EXPECT_GT(random, 0);
  // Worker 1's half of the input (1e7 tuples of 16 bytes) is all that is streamed from s1.
  EXPECT_NEAR(scanned[1], 0.8e8, 1e-6 * 0.8e8);
  EXPECT_GE(scanned[0], 0.8e8 * (1 - 1e-6));
  EXPECT_EQ(scanned[2] + scanned[3], 0.0);
}

TEST(WeightedInterleaveTest, ParsingNamesWhatIsWrong) {
  const model::Topology t = ring4();
  const auto error_of = [&](const std::string& text) {
    try {
      (void)parse_memory_policy(text, t);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("weighted-interleave:s0=0").find("1..255"), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:s0=256").find("1..255"), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:s0").find("NODE=W"), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:s0=1,s0=2").find("twice"), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:s9=1").find("no node \"s9\""), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:").find("no weights"), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:s0[s0=1]s1[s1=1]").find("';'"), std::string::npos);
  EXPECT_NE(error_of("weighted-interleave:s0[s0=1];s0[s1=1]").find("two vectors"),
            std::string::npos);
  // The name round-trips.
  EXPECT_EQ(memory_policy_name(parse_memory_policy("weighted-interleave:0=3,2=1", t), t),
            "weighted-interleave:s0=3,s2=1");
  EXPECT_EQ(
      memory_policy_name(parse_memory_policy("weighted-interleave:s0[s0=1,s1=1];s1[s1=5]", t), t),
      "weighted-interleave:s0[s0=1,s1=1];s1[s1=5]");
}

// The weights search looks a policy's time up by its key: two policies that differ in any one
// field must have different keys, and a copy the same key.
TEST(MemoryPolicyTest, KeyTellsEveryFieldApart) {
  MemoryPolicy base;
  base.kind = MemoryPolicyKind::kWeightedInterleave;
  base.global = InterleaveWeights{{0, 1}, {2, 1}};
  std::vector<MemoryPolicy> policies{base};
  const auto with = [&](auto change) {
    MemoryPolicy p = base;
    change(p);
    policies.push_back(p);
  };
  with([](MemoryPolicy& p) { p.kind = MemoryPolicyKind::kInterleave; });
  with([](MemoryPolicy& p) { p.init = InitThreads::kLoader; });
  with([](MemoryPolicy& p) { p.nodes = {1}; });
  with([](MemoryPolicy& p) { p.global.weights = {1, 2}; });
  with([](MemoryPolicy& p) { p.global.nodes = {0, 2}; });
  with([](MemoryPolicy& p) { p.global = InterleaveWeights{{0, 1, 2}, {2, 1, 1}}; });
  // The base's numbers in the same order, one moved into the field before (without the sizes
  // in the key, both would read kind, init, 0, 1, 2, 1).
  with([](MemoryPolicy& p) {
    p.nodes = {0};
    p.global.nodes = {1};
  });
  with([](MemoryPolicy& p) { p.by_node = {NodeWeights{0, InterleaveWeights{{0, 1}, {2, 1}}}}; });
  with([](MemoryPolicy& p) { p.by_node = {NodeWeights{1, InterleaveWeights{{0, 1}, {2, 1}}}}; });
  with([](MemoryPolicy& p) { p.by_node = {NodeWeights{0, InterleaveWeights{{0, 1}, {1, 1}}}}; });
  with([](MemoryPolicy& p) {
    p.by_node = {NodeWeights{0, InterleaveWeights{{0, 1}, {2, 1}}}, NodeWeights{1, InterleaveWeights{{0, 1}, {2, 1}}}};
  });
  std::set<std::vector<int>> keys;
  for (const MemoryPolicy& p : policies) keys.insert(memory_policy_key(p));
  EXPECT_EQ(keys.size(), policies.size());
  const MemoryPolicy copy = base;
  EXPECT_EQ(memory_policy_key(copy), memory_policy_key(base));
}

}  // namespace
}  // namespace numatwin::sim
