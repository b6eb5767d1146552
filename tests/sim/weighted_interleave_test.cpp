// Weighted interleave (sim/memory_policy.hpp) and the weight search (sim/weights_search.hpp),
// worked by hand on small machines.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/sim/memory_policy.hpp"
#include "numatwin/sim/weights_search.hpp"

namespace numatwin::sim {
namespace {

// A ring of 4 nodes with 10 GiB each (s0..s3).
model::Topology ring4() {
  model::GeneratorParams p;
  p.family = model::TopologyFamily::kRing;
  p.nodes = 4;
  p.memory_per_node_bytes = 10LL << 30;
  return model::generate_topology(p);
}

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double fraction_on(const std::vector<model::NodeShare>& spread, model::NodeIndex node) {
  for (const model::NodeShare& s : spread)
    if (s.node == node) return s.fraction;
  return 0.0;
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

TEST(WeightsSearchTest, BandwidthsBecomeLinuxStyleWeights) {
  // 40 and 20 GB/s: 32 and 16, divided by their gcd 16: 2 and 1.
  EXPECT_EQ(weights_from_bandwidth({0, 1}, {40.0, 20.0}).weights, (std::vector<int>{2, 1}));
  // 90 and 30: 32 and round(10.67) = 11, gcd 1.
  EXPECT_EQ(weights_from_bandwidth({0, 1}, {90.0, 30.0}).weights, (std::vector<int>{32, 11}));
  // A tiny node still gets weight 1.
  EXPECT_EQ(weights_from_bandwidth({0, 1}, {100.0, 0.1}).weights, (std::vector<int>{32, 1}));
  EXPECT_THROW((void)weights_from_bandwidth({0, 1}, {1.0, 0.0}), std::invalid_argument);
}

TEST(WeightsSearchTest, FindsTheBandwidthProportionalSplitOfAStream) {
  // A stream of D bytes read from two nodes at once, B = 2 and 1 (bytes per second), each share
  // read at its node's rate: time = max(f0 D / 2, f1 D / 1). The minimum is at f0 / f1 = 2 (both
  // parts finish together): weights 2:1, time D / 3. From 1:1 (time D / 2) the search must get
  // there.
  const double d = 3.0;
  const PolicyTime time_of = [&](const MemoryPolicy& p) {
    const std::vector<model::NodeShare> shares = p.global.shares();
    double t = 0.0;
    for (const model::NodeShare& s : shares)
      t = std::max(t, s.fraction * d / (s.node == 0 ? 2.0 : 1.0));
    return t;
  };
  const WeightSearchResult r = search_global_weights({InterleaveWeights{{0, 1}, {1, 1}}}, time_of);
  EXPECT_EQ(r.policy.global.weights, (std::vector<int>{2, 1}));
  EXPECT_DOUBLE_EQ(r.time_s, 1.0);
  // Per node: two cpu nodes, the same answer for each.
  const WeightSearchResult per = search_per_node_weights(
      {0, 1}, InterleaveWeights{{0, 1}, {1, 1}}, [&](const MemoryPolicy& p) {
        double t = 0.0;
        for (const NodeWeights& v : p.by_node)
          for (const model::NodeShare& s : v.weights.shares())
            t = std::max(t, s.fraction * d / (s.node == 0 ? 2.0 : 1.0));
        return t;
      });
  ASSERT_EQ(per.policy.by_node.size(), 2u);
  EXPECT_EQ(per.policy.by_node[0].weights.weights, (std::vector<int>{2, 1}));
  EXPECT_DOUBLE_EQ(per.time_s, 1.0);
}

}  // namespace
}  // namespace numatwin::sim
