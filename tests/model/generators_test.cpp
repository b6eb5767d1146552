// Generated families against their graph-theory facts (link counts and diameters), worked by
// hand: e.g. a ladder of 2h nodes has 2(h-1) rail links + h rungs, and its far corners are
// h hops apart; a d-cube has d 2^(d-1) edges and diameter d.
#include <gtest/gtest.h>

#include <stdexcept>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

int entries(const Topology& t) { return t.links.empty() ? 0 : t.links.back().spec_index + 1; }

Topology make(TopologyFamily family, int nodes) {
  GeneratorParams p;
  p.family = family;
  p.nodes = nodes;
  return generate_topology(p);
}

struct FamilyCase {
  TopologyFamily family;
  int nodes;
  int links;
  int diameter;
};

class GeneratorFamilyTest : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(GeneratorFamilyTest, LinkCountAndDiameterMatchTheFamily) {
  const FamilyCase c = GetParam();
  const Topology t = make(c.family, c.nodes);
  EXPECT_EQ(static_cast<int>(t.numa_nodes().size()), c.nodes);
  EXPECT_EQ(entries(t), c.links);
  EXPECT_EQ(Routing(t).diameter(), c.diameter);
  // Every generated file is a valid file and survives a round trip.
  EXPECT_EQ(parse_topology(topology_to_json_text(t), "generated.json"), t);
}

INSTANTIATE_TEST_SUITE_P(
    Families, GeneratorFamilyTest,
    ::testing::Values(FamilyCase{TopologyFamily::kFullyConnected, 4, 6, 1},   // n(n-1)/2
                      FamilyCase{TopologyFamily::kFullyConnected, 1, 0, 0},   // one socket, no links
                      FamilyCase{TopologyFamily::kRing, 8, 8, 4},             // n links, floor(n/2)
                      FamilyCase{TopologyFamily::kRing, 5, 5, 2},
                      FamilyCase{TopologyFamily::kLadder, 8, 10, 4},          // 2*3 rails + 4 rungs; corner to corner 3 + 1
                      FamilyCase{TopologyFamily::kTwistedLadder, 8, 10, 3},   // Memarzia Machine A
                      FamilyCase{TopologyFamily::kMobiusLadder, 8, 12, 2},    // Wagner graph: 8 + 4, diameter 2
                      FamilyCase{TopologyFamily::kHypercube, 8, 12, 3},       // 3 * 2^2
                      FamilyCase{TopologyFamily::kHypercube, 16, 32, 4}));    // 4 * 2^3

TEST(GeneratorsTest, TwistedLadderMatchesTheReconstructedMachineA) {
  // Hop counts of Memarzia's Machine A as reconstructed in machines.md (rails 0-1-2-3 and
  // 4-5-6-7, rungs 1-5 and 2-6, crossed ends 0-7 and 3-4); row 0: 0 is next to 1 and 7,
  // 2 hops from 2 (via 1), 5 (via 1) and 6 (via 7), 3 hops from 3 and 4.
  const Topology t = make(TopologyFamily::kTwistedLadder, 8);
  const std::vector<std::vector<int>> expected = {
      {0, 1, 2, 3, 3, 2, 2, 1}, {1, 0, 1, 2, 2, 1, 2, 2}, {2, 1, 0, 1, 2, 2, 1, 2}, {3, 2, 1, 0, 1, 2, 2, 3},
      {3, 2, 2, 1, 0, 1, 2, 3}, {2, 1, 2, 2, 1, 0, 1, 2}, {2, 2, 1, 2, 2, 1, 0, 1}, {1, 2, 2, 3, 3, 2, 1, 0}};
  EXPECT_EQ(Routing(t).hop_matrix(), expected);
}

TEST(GeneratorsTest, ChassisHasRoutersAndThreeHopsBetweenChassis) {
  // 32 sockets in 8 chassis of 4: 8 x 6 in-chassis links, 32 socket-router links, 8*7/2
  // router-router links; socket -> router -> router -> socket is 3 hops.
  GeneratorParams p;
  p.family = TopologyFamily::kChassis;
  p.nodes = 32;
  p.sockets_per_chassis = 4;
  const Topology t = generate_topology(p);
  EXPECT_EQ(t.nodes.size(), 40u);
  EXPECT_EQ(t.numa_nodes().size(), 32u);
  EXPECT_EQ(entries(t), 48 + 32 + 28);
  const Routing r(t);
  EXPECT_EQ(r.diameter(), 3);
  EXPECT_EQ(r.hops(0, 1), 1);
  EXPECT_EQ(r.hops(0, 4), 3);
}

TEST(GeneratorsTest, RejectsSizesThatDoNotFitTheFamily) {
  GeneratorParams p;
  p.family = TopologyFamily::kLadder;
  p.nodes = 7;
  EXPECT_THROW(generate_topology(p), std::invalid_argument);
  p.family = TopologyFamily::kHypercube;
  p.nodes = 12;
  EXPECT_THROW(generate_topology(p), std::invalid_argument);
  p.family = TopologyFamily::kChassis;
  p.nodes = 10;
  p.sockets_per_chassis = 4;
  EXPECT_THROW(generate_topology(p), std::invalid_argument);
  p.family = TopologyFamily::kRing;
  p.nodes = 8;
  p.link_bandwidth_gbps = 0.0;
  EXPECT_THROW(generate_topology(p), std::invalid_argument);
}

TEST(GeneratorsTest, ParsesFamilyNamesAndRejectsUnknownOnes) {
  EXPECT_EQ(parse_family("twisted-ladder"), TopologyFamily::kTwistedLadder);
  EXPECT_EQ(family_name(parse_family("mobius-ladder")), "mobius-ladder");
  try {
    parse_family("torus");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("hypercube"), std::string::npos) << "message should list the families";
  }
}

}  // namespace
}  // namespace numatwin::model
