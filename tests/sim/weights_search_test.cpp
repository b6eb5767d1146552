// The weight search (sim/search/weights_search.hpp), worked by hand.
#include "numatwin/sim/search/weights_search.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "numatwin/sim/workload/memory_policy.hpp"

namespace numatwin::sim {
namespace {

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
