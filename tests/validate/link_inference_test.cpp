#include "numatwin/validate/discover/link_inference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/routing.hpp"

namespace numatwin::validate {
namespace {

std::set<std::pair<int, int>> as_set(const std::vector<std::pair<int, int>>& links) {
  return {links.begin(), links.end()};
}

// The 8-node twisted ladder of the emulated guest (tests/emu/topologies/8-twisted-ladder.txt):
// rails 0-1-2-3 and 4-5-6-7, middle rungs 1-5 and 2-6, crossed end rungs 0-7 and 3-4;
// SLIT = 10 + 2 x hops.
const std::vector<std::vector<int>> kTwistedLadder = {
    {10, 12, 14, 16, 16, 14, 14, 12}, {12, 10, 12, 14, 14, 12, 14, 14}, {14, 12, 10, 12, 14, 14, 12, 14},
    {16, 14, 12, 10, 12, 14, 14, 16}, {16, 14, 14, 12, 10, 12, 14, 16}, {14, 12, 14, 14, 12, 10, 12, 14},
    {14, 14, 12, 14, 14, 12, 10, 12}, {12, 14, 14, 16, 16, 14, 12, 10}};

TEST(LinkInferenceTest, TwistedLadderSlitGivesItsTenLinks) {
  const LinkInference inference = infer_links(kTwistedLadder);
  EXPECT_TRUE(inference.consistent) << inference.explanation;
  EXPECT_EQ(inference.distance_classes, (std::vector<int>{12, 14, 16}));
  const std::set<std::pair<int, int>> expected{{0, 1}, {1, 2}, {2, 3}, {4, 5}, {5, 6},
                                               {6, 7}, {1, 5}, {2, 6}, {0, 7}, {3, 4}};
  EXPECT_EQ(as_set(inference.links), expected);
  EXPECT_EQ(inference.hop_matrix[0][3], 3);
  EXPECT_EQ(inference.hop_matrix[0][2], 2);
}

TEST(LinkInferenceTest, OneRemoteClassIsFullyConnected) {
  const LinkInference inference =
      infer_links({{10, 20, 20, 20}, {20, 10, 20, 20}, {20, 20, 10, 20}, {20, 20, 20, 10}});
  EXPECT_TRUE(inference.consistent);
  EXPECT_EQ(inference.links.size(), 6u);
}

TEST(LinkInferenceTest, SubNumaClusterPairsDoNotDetermineTheLinks) {
  // Two sockets with SNC2: siblings at 11, cross-socket at 21. The 11-pairs form two
  // disconnected edges, so the 21-pairs cannot be hop counts.
  const LinkInference inference =
      infer_links({{10, 21, 11, 21}, {21, 10, 21, 11}, {11, 21, 10, 21}, {21, 11, 21, 10}});
  EXPECT_FALSE(inference.consistent);
  EXPECT_NE(inference.explanation.find("does not connect 0 and 1"), std::string::npos) << inference.explanation;
}

TEST(LinkInferenceTest, ClassThatIsNotTheHopCountIsReported) {
  // A star: node 3 at 14 from everyone, others at 17 from each other. The 14-star puts 0 and 1
  // two hops apart and 17 is class 2: consistent. Make 0-1 class 3 (20) instead: not.
  EXPECT_TRUE(infer_links({{10, 17, 17, 14}, {17, 10, 17, 14}, {17, 17, 10, 14}, {14, 14, 14, 10}}).consistent);
  const LinkInference broken = infer_links({{10, 20, 17, 14}, {20, 10, 17, 14}, {17, 17, 10, 14}, {14, 14, 14, 10}});
  EXPECT_FALSE(broken.consistent);
  EXPECT_NE(broken.explanation.find("d(0,1) = 20 is distance class 3"), std::string::npos) << broken.explanation;
}

TEST(LinkInferenceTest, AsymmetricMatrixIsReported) {
  const LinkInference inference = infer_links({{10, 16}, {20, 10}});
  EXPECT_FALSE(inference.consistent);
  EXPECT_NE(inference.explanation.find("asymmetric"), std::string::npos);
}

TEST(LinkInferenceTest, OneNodeHasNoLinksAndBadShapesThrow) {
  EXPECT_TRUE(infer_links({{10}}).consistent);
  EXPECT_TRUE(infer_links({{10}}).links.empty());
  EXPECT_THROW(infer_links({}), std::invalid_argument);
  EXPECT_THROW(infer_links({{10, 20}, {20}}), std::invalid_argument);
  EXPECT_THROW(hop_matrix_of(2, {{0, 2}}), std::invalid_argument);
}

// Property: for every generator family with one link latency, the model's own SLIT-like
// distance matrix determines the links, and inference gives back exactly the generated graph.
TEST(LinkInferenceTest, RecoversEveryGeneratedFamilyFromItsDistanceMatrix) {
  const std::vector<std::pair<model::TopologyFamily, int>> cases = {
      {model::TopologyFamily::kFullyConnected, 4}, {model::TopologyFamily::kRing, 6},
      {model::TopologyFamily::kLadder, 8},         {model::TopologyFamily::kTwistedLadder, 8},
      {model::TopologyFamily::kMobiusLadder, 8},   {model::TopologyFamily::kHypercube, 8}};
  for (const auto& [family, nodes] : cases) {
    model::GeneratorParams params;
    params.family = family;
    params.nodes = nodes;
    const model::Topology topology = model::generate_topology(params);
    const model::Routing routing(topology);
    const LinkInference inference = infer_links(routing.distance_matrix());
    EXPECT_TRUE(inference.consistent) << model::family_name(family) << ": " << inference.explanation;
    std::set<std::pair<int, int>> expected;
    for (const model::Link& link : topology.links) expected.insert({std::min(link.from, link.to), std::max(link.from, link.to)});
    EXPECT_EQ(as_set(inference.links), expected) << model::family_name(family);
    EXPECT_EQ(inference.hop_matrix, routing.hop_matrix()) << model::family_name(family);
  }
}

// Memory-only nodes (worked by hand): sockets 0 and 1 at 20, a CXL node 2 at 14 from socket 0 and
// 24 from socket 1. The plain rule takes the pairs at 14 (only 0-2) and fails on d(0,1); knowing
// that node 2 has no CPUs, the sockets' own matrix (one class, 20) gives 0-1 and node 2 hangs off
// its nearest socket, 0: links 0-1, 0-2, and 1 reaches 2 in two hops.
TEST(LinkInferenceTest, MemoryOnlyNodesHangOffTheirNearestSocket) {
  const std::vector<std::vector<int>> d = {{10, 20, 14}, {20, 10, 24}, {14, 24, 10}};
  EXPECT_FALSE(infer_links(d).consistent);
  const LinkInference r = infer_links(d, {true, true, false});
  ASSERT_TRUE(r.consistent) << r.explanation;
  EXPECT_EQ(r.links, (std::vector<std::pair<int, int>>{{0, 1}, {0, 2}}));
  EXPECT_EQ(r.hop_matrix[1][2], 2);
  EXPECT_NE(r.explanation.find("2 to 0 (d = 14)"), std::string::npos) << r.explanation;
  // Equally near to both sockets: which one it hangs off is not in the matrix.
  const LinkInference tie = infer_links({{10, 20, 17}, {20, 10, 17}, {17, 17, 10}}, {true, true, false});
  EXPECT_FALSE(tie.consistent);
  EXPECT_NE(tie.explanation.find("equally near"), std::string::npos) << tie.explanation;
  // Every node with CPUs: the plain rule.
  EXPECT_EQ(infer_links(d, {true, true, true}).consistent, infer_links(d).consistent);
  EXPECT_THROW(infer_links(d, {true, false}), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
