// Generated families against their graph-theory facts (link counts and diameters), worked by
// hand: e.g. a ladder of 2h nodes has 2(h-1) rail links + h rungs, and its far corners are
// h hops apart; a d-cube has d 2^(d-1) edges and diameter d.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

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

// ── Socket families (generators_sockets.cpp) ────────────────────────────────────────────────

Topology make_sockets(TopologyFamily family, int nodes_per_socket, int sockets = 0, int cxl = 0) {
  GeneratorParams p;
  p.family = family;
  p.socket = socket_family_defaults(family, nodes_per_socket);
  if (sockets > 0) p.socket.sockets = sockets;
  p.socket.cxl.per_socket = cxl;
  return generate_topology(p);
}

const Link& link_between(const Topology& t, const std::string& a, const std::string& b) {
  return t.links[*t.find_link(*t.find_node(a), *t.find_node(b))];
}

void expect_round_trip(const Topology& t) { EXPECT_EQ(parse_topology(topology_to_json_text(t), "generated.json"), t); }

TEST(GeneratorSocketsTest, StructDefaultsAreIntelSncOne) {
  EXPECT_EQ(SocketFamilyParams{}, socket_family_defaults(TopologyFamily::kIntelSnc, 1));
  EXPECT_EQ(parse_family("intel-snc"), TopologyFamily::kIntelSnc);
  EXPECT_EQ(family_name(parse_family("amd-nps")), "amd-nps");
}

TEST(GeneratorSocketsTest, IntelSnc2TwoSocketsByHand) {
  // 2 sockets x SNC2 = 4 nodes of 32 / 2 = 16 cores; s0n0, s0n1 in p0 and s1n0, s1n1 in p1.
  // Links: one die link per package (2) + one UPI link per cluster pair (2) = 4 entries.
  // Die link: one cluster's memory, 251.8921 / 2 = 125.94605 GB/s, 10 ns.
  // UPI: 3 links x 40.2247 GB/s / 2 clusters = 60.33705 GB/s per cluster pair, 127.3 ns; both
  // pairs together 120.6741 GB/s (MLC 0->1 random read, machines-2026.md line 11).
  const Topology t = make_sockets(TopologyFamily::kIntelSnc, 2);
  ASSERT_EQ(t.nodes.size(), 4u);
  EXPECT_EQ(entries(t), 4);
  EXPECT_EQ(t.total_cores(), 64);
  EXPECT_EQ(t.nodes[0].id, "s0n0");
  EXPECT_EQ(t.nodes[0].package, "p0");
  EXPECT_EQ(t.nodes[1].package, "p0");
  EXPECT_EQ(t.nodes[2].package, "p1");
  EXPECT_EQ(t.nodes[3].package, "p1");
  EXPECT_EQ(t.nodes[0].cores, 16);
  EXPECT_EQ(t.nodes[0].memory_capacity_bytes, 64LL << 30);  // 128 GiB per socket
  EXPECT_DOUBLE_EQ(t.nodes[0].memory_read_bandwidth_gbps, 125.94605);
  EXPECT_EQ(t.nodes[0].memory_kind, MemoryKind::kDram);
  // The LLC is split between the clusters: 60 MiB / 2 shared by 16 cores.
  EXPECT_EQ(t.nodes[0].caches.back(), (CacheLevel{3, 30LL << 20, 16}));
  EXPECT_DOUBLE_EQ(link_between(t, "s0n0", "s0n1").bandwidth_gbps, 125.94605);
  EXPECT_DOUBLE_EQ(link_between(t, "s0n0", "s0n1").latency_ns, 10.0);
  EXPECT_DOUBLE_EQ(link_between(t, "s0n0", "s1n0").bandwidth_gbps, 60.33705);
  EXPECT_DOUBLE_EQ(link_between(t, "s1n1", "s0n1").bandwidth_gbps, 60.33705);
  EXPECT_FALSE(t.find_link(0, 3).has_value()) << "no UPI link between different clusters";
  // s0n0 to s1n1's memory: UPI + die link, 111.3 + 127.3 + 10 = 248.6 ns.
  const Routing r(t);
  EXPECT_EQ(r.hops(0, 3), 2);
  EXPECT_DOUBLE_EQ(r.access_latency_ns(0, 3), 248.6);
  expect_round_trip(t);
}

TEST(GeneratorSocketsTest, IntelSncModesAndSocketCounts) {
  // S sockets x SNC n: S n nodes; S C(n, 2) die links; C(S, 2) n UPI entries.
  struct Case { int sockets, snc, links; };
  for (const Case c : {Case{1, 1, 0}, Case{2, 1, 1}, Case{1, 4, 6}, Case{4, 2, 4 + 6 * 2}, Case{8, 4, 8 * 6 + 28 * 4}, Case{2, 3, 6 + 3}}) {
    GeneratorParams p;
    p.family = TopologyFamily::kIntelSnc;
    p.socket = socket_family_defaults(p.family, c.snc);
    p.socket.sockets = c.sockets;
    if (c.snc == 3) p.socket.memory_channels_per_socket = 12;  // SNC3 needs whole channels per cluster
    if (c.snc == 3) p.socket.cores_per_socket = 30;
    const Topology t = generate_topology(p);
    EXPECT_EQ(static_cast<int>(t.nodes.size()), c.sockets * c.snc) << c.sockets << "x" << c.snc;
    EXPECT_EQ(entries(t), c.links) << c.sockets << "x" << c.snc;
    expect_round_trip(t);
  }
}

TEST(GeneratorSocketsTest, IntelSnc3SplitsCoresUnevenlyTheFirstNodesOneMore) {
  // Issue 39 D: 128 cores in SNC3 (Granite Rapids: 12 channels, 4 per cluster) were refused as
  // "not a multiple of --snc". 128 = 3 x 42 + 2: s0n0 and s0n1 get 43 cores, s0n2 42. The LLC
  // goes with the cores (a slice per core): 60 MiB x 43 / 128 = 21135360 B, 60 MiB x 42 / 128 =
  // 20643840 B; 2 x 21135360 + 20643840 = 62914560 B = 60 MiB.
  GeneratorParams p;
  p.family = TopologyFamily::kIntelSnc;
  p.socket = socket_family_defaults(p.family, 3);
  p.socket.cores_per_socket = 128;
  p.socket.memory_channels_per_socket = 12;
  const Topology t = generate_topology(p);
  ASSERT_EQ(t.nodes.size(), 6u);
  EXPECT_EQ(t.total_cores(), 256);
  for (int s = 0; s < 2; ++s) {
    EXPECT_EQ(t.nodes[3 * s].cores, 43);
    EXPECT_EQ(t.nodes[3 * s + 1].cores, 43);
    EXPECT_EQ(t.nodes[3 * s + 2].cores, 42);
    EXPECT_EQ(t.nodes[3 * s].caches.back(), (CacheLevel{3, 21135360, 43}));
    EXPECT_EQ(t.nodes[3 * s + 2].caches.back(), (CacheLevel{3, 20643840, 42}));
    EXPECT_EQ(t.nodes[3 * s].memory_capacity_bytes, t.nodes[3 * s + 2].memory_capacity_bytes);  // channels split evenly
  }
  EXPECT_NE(t.provenance.notes.find("split with the cores (the first nodes one core more)"), std::string::npos);
  expect_round_trip(t);
  // An even split is what it was: 60 MiB / 2 over 16 cores each (IntelSnc2TwoSocketsByHand).
  EXPECT_EQ(make_sockets(TopologyFamily::kIntelSnc, 2).nodes[1].caches.back(), (CacheLevel{3, 30LL << 20, 16}));
}

TEST(GeneratorSocketsTest, IntelTwoSocketSncOneIsOneSummedUpiLink) {
  // SNC1: one node per socket and one link of 3 x 40.2247 = 120.6741 GB/s each way.
  const Topology t = make_sockets(TopologyFamily::kIntelSnc, 1);
  ASSERT_EQ(t.links.size(), 2u);
  EXPECT_DOUBLE_EQ(t.links[0].bandwidth_gbps, 120.6741);
  EXPECT_DOUBLE_EQ(t.links[1].bandwidth_gbps, 120.6741);
  EXPECT_NE(t.nodes[0].package, t.nodes[1].package);
}

TEST(GeneratorSocketsTest, AmdNps4OneSocketByHand) {
  // EPYC 9354P, NPS4: 4 quadrant nodes of 8 cores (2 CCDs of 4), all in p0, 6 quadrant links.
  // Bandwidth 369.3 / 4 = 92.325 GB/s per node (and per quadrant link); latency 105.55 ns local,
  // 105.55 + 10.2 = 115.75 ns from another quadrant (the midpoints of machines-2026.md line 37).
  const Topology t = make_sockets(TopologyFamily::kAmdNps, 4);
  ASSERT_EQ(t.nodes.size(), 4u);
  EXPECT_EQ(entries(t), 6);
  for (const Node& n : t.nodes) {
    EXPECT_EQ(n.package, "p0");
    EXPECT_EQ(n.cores, 8);
    EXPECT_DOUBLE_EQ(n.memory_read_bandwidth_gbps, 92.325);
    EXPECT_EQ(n.caches.back(), (CacheLevel{3, 32LL << 20, 4})) << "one L3 of 32 MiB per CCD of 4 cores";
  }
  EXPECT_DOUBLE_EQ(link_between(t, "s0n0", "s0n3").bandwidth_gbps, 92.325);
  EXPECT_DOUBLE_EQ(Routing(t).access_latency_ns(0, 3), 115.75);
  expect_round_trip(t);
}

TEST(GeneratorSocketsTest, AmdTwoSocketsNps2ByHand) {
  // 2 x NPS2: 4 nodes; 1 quadrant link per socket + 2 xGMI entries; xGMI 4 x 64 / 2 = 128 GB/s
  // per quadrant pair (Lenovo's 512 GB/s over both directions, machines-2026.md line 44).
  const Topology t = make_sockets(TopologyFamily::kAmdNps, 2, 2);
  ASSERT_EQ(t.nodes.size(), 4u);
  EXPECT_EQ(entries(t), 4);
  EXPECT_EQ(t.nodes[1].package, "p0");
  EXPECT_EQ(t.nodes[2].package, "p1");
  EXPECT_DOUBLE_EQ(link_between(t, "s0n1", "s1n1").bandwidth_gbps, 128.0);
  EXPECT_DOUBLE_EQ(t.nodes[0].memory_read_bandwidth_gbps, 352.6 / 2);
  expect_round_trip(t);
}

TEST(GeneratorSocketsTest, CxlExpandersAreCpuLessNodesBehindHostBridges) {
  // intel-snc SNC2, 2 expanders per socket: 4 + 4 nodes; expander e of socket s hangs off
  // s<s>n<e mod 2>. Default bandwidth: half the socket's DRAM over its 2 expanders,
  // 0.5 x 251.8921 / 2 = 62.973025 GB/s, link the same; latency 111.3 + 80 = 191.3 ns from
  // the host node (Meta's "about 80 ns higher").
  const Topology t = make_sockets(TopologyFamily::kIntelSnc, 2, 2, 2);
  ASSERT_EQ(t.nodes.size(), 8u);
  EXPECT_EQ(entries(t), 4 + 4);
  std::set<std::string> cxl;
  for (const Node& n : t.nodes) {
    if (n.memory_kind == MemoryKind::kCxl) {
      cxl.insert(n.id);
      EXPECT_FALSE(n.has_cores());
      EXPECT_TRUE(n.has_memory());
      EXPECT_TRUE(n.package.empty());
      EXPECT_DOUBLE_EQ(n.memory_read_bandwidth_gbps, 62.973025);
    }
  }
  EXPECT_EQ(cxl, (std::set<std::string>{"s0cxl0", "s0cxl1", "s1cxl0", "s1cxl1"}));
  EXPECT_DOUBLE_EQ(link_between(t, "s0n1", "s0cxl1").bandwidth_gbps, 62.973025);
  EXPECT_DOUBLE_EQ(link_between(t, "s0cxl1", "s0n1").latency_ns, 80.0);
  const Routing r(t);
  EXPECT_DOUBLE_EQ(r.access_latency_ns(*t.find_node("s0n1"), *t.find_node("s0cxl1")), 191.3);
  EXPECT_EQ(r.hops(*t.find_node("s0n0"), *t.find_node("s0cxl1")), 2);
  expect_round_trip(t);
  // AMD too; explicit figures replace the defaults.
  GeneratorParams p;
  p.family = TopologyFamily::kAmdNps;
  p.socket = socket_family_defaults(p.family, 1);
  p.socket.cxl.per_socket = 1;
  p.socket.cxl.bandwidth_gbps = 30.0;
  p.socket.cxl.link_bandwidth_gbps = 28.0;
  p.socket.cxl.latency_ns = 250.0;
  const Topology a = generate_topology(p);
  ASSERT_EQ(a.nodes.size(), 2u);
  EXPECT_DOUBLE_EQ(a.nodes[1].local_latency_ns, 250.0);
  EXPECT_DOUBLE_EQ(link_between(a, "s0n0", "s0cxl0").bandwidth_gbps, 28.0);
  expect_round_trip(a);
}

void expect_error(const GeneratorParams& p, const std::string& option) {
  try {
    generate_topology(p);
    ADD_FAILURE() << "expected an error naming " << option;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
  }
}

TEST(GeneratorSocketsTest, ErrorsNameTheParameter) {
  GeneratorParams intel;
  intel.family = TopologyFamily::kIntelSnc;
  GeneratorParams p = intel;
  p.socket.nodes_per_socket = 5;
  expect_error(p, "--snc");
  p = intel;
  p.socket.sockets = 9;
  expect_error(p, "--sockets");
  p = intel;
  p.socket.nodes_per_socket = 3;  // 8 channels do not split in 3 (32 cores do: 11/11/10)
  expect_error(p, "--memory-channels-per-socket");
  p.socket.memory_channels_per_socket = 12;
  p.socket.cores_per_socket = 2;  // a node without a core
  expect_error(p, "--cores-per-socket");
  p = intel;
  p.socket.socket_link_bandwidth_gbps = 0.0;
  expect_error(p, "--socket-link-bandwidth-gbps");
  p = intel;
  p.socket.cxl.per_socket = 1;
  p.socket.cxl.bandwidth_gbps = -1.0;
  expect_error(p, "--cxl-bandwidth-gbps");
  p = intel;
  p.socket.ccds_per_socket = 8;
  expect_error(p, "--ccds-per-socket");
  GeneratorParams amd;
  amd.family = TopologyFamily::kAmdNps;
  amd.socket = socket_family_defaults(amd.family, 3);
  expect_error(amd, "--nps");
  amd.socket.nodes_per_socket = 4;
  amd.socket.sockets = 3;
  expect_error(amd, "--sockets");
  amd.socket.sockets = 1;
  amd.socket.ccds_per_socket = 6;  // 6 CCDs do not split into 4 quadrants
  amd.socket.cores_per_socket = 24;
  expect_error(amd, "--ccds-per-socket");
  GeneratorParams ring;
  ring.family = TopologyFamily::kRing;
  ring.socket.cxl.per_socket = 1;
  expect_error(ring, "--cxl-per-socket");
  EXPECT_THROW(socket_family_defaults(TopologyFamily::kRing, 1), std::invalid_argument);
}

TEST(GeneratorSocketsTest, CxlExpandersCanDifferPerSocket) {
  // --cxl-per-socket 4,0: four expanders on socket 0 (s0cxl0..3, on s0n0 as SNC1 has one node),
  // none on socket 1. Default bandwidth: half of socket 0's DRAM over its 4 expanders,
  // 0.5 x 251.8921 / 4 = 31.4865125 GB/s.
  GeneratorParams p;
  p.family = TopologyFamily::kIntelSnc;
  p.socket = socket_family_defaults(p.family, 1);
  p.socket.cxl.by_socket = {4, 0};
  const Topology t = generate_topology(p);
  ASSERT_EQ(t.nodes.size(), 2u + 4u);
  EXPECT_EQ(t.name, "intel-snc1-2s-cxl4-0");
  for (int e = 0; e < 4; ++e) {
    const Node& n = t.nodes[2 + e];
    EXPECT_EQ(n.id, "s0cxl" + std::to_string(e));
    EXPECT_DOUBLE_EQ(n.memory_read_bandwidth_gbps, 31.4865125);
    EXPECT_TRUE(t.find_link(0, 2 + e).has_value());
    EXPECT_FALSE(t.find_link(1, 2 + e).has_value());
  }
  EXPECT_NE(t.description.find("4,0 CXL expander(s) per socket"), std::string::npos) << t.description;
  expect_round_trip(t);
  // One count per socket: 3 counts for 2 sockets are refused, naming the option.
  p.socket.cxl.by_socket = {4, 0, 1};
  expect_error(p, "--cxl-per-socket lists 3 counts for 2 sockets");
  p.socket.cxl.by_socket = {4, 17};
  expect_error(p, "--cxl-per-socket");
  // A list of equal counts is the single number.
  p.socket.cxl.by_socket = {2, 2};
  const Topology listed = generate_topology(p);
  p.socket.cxl.by_socket.clear();
  p.socket.cxl.per_socket = 2;
  const Topology each = generate_topology(p);
  EXPECT_EQ(listed.nodes, each.nodes);
  EXPECT_EQ(listed.links, each.links);
}

}  // namespace
}  // namespace numatwin::model
