// Routing worked by hand on small graphs: hop counts, tie-breaks, explicit routes, latency
// and SLIT-like distances. Every expected value is derived in the comment next to it.
#include <gtest/gtest.h>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::model {
namespace {

Node socket(const std::string& id, double local_latency_ns = 100.0) {
  Node n;
  n.id = id;
  n.cores = 1;
  n.threads_per_core = 1;
  n.frequency_ghz = 2.0;
  n.memory_capacity_bytes = 1 << 30;
  n.memory_read_bandwidth_gbps = 10.0;
  n.local_latency_ns = local_latency_ns;
  n.miss_buffers_per_core = 10;
  return n;
}

void link(Topology& t, int a, int b, double latency_ns) {
  const int spec = t.links.empty() ? 0 : t.links.back().spec_index + 1;
  t.links.push_back(Link{a, b, 10.0, latency_ns, spec});
  t.links.push_back(Link{b, a, 10.0, latency_ns, spec});
}

// Square 0-1-2-3-0: 0 to 2 has two 2-hop paths, via 1 and via 3.
Topology square(double latency_01, double latency_03) {
  Topology t;
  t.name = "square";
  for (int i = 0; i < 4; ++i) t.nodes.push_back(socket("n" + std::to_string(i)));
  link(t, 0, 1, latency_01);
  link(t, 1, 2, 10.0);
  link(t, 2, 3, 10.0);
  link(t, 3, 0, latency_03);
  t.provenance.source = "test";
  check_topology(t, "square");
  return t;
}

std::vector<NodeIndex> nodes_on(const Topology& t, const Routing& r, NodeIndex from, NodeIndex to) {
  std::vector<NodeIndex> path{from};
  for (LinkIndex l : r.route(from, to)) path.push_back(t.links[l].to);
  return path;
}

TEST(RoutingTest, EqualPathsTieBreakToTheLowerPredecessor) {
  // Both 0->1->2 and 0->3->2 cost 2 hops and 20 ns: node 1 settles before node 3, so via 1.
  const Topology t = square(10.0, 10.0);
  const Routing r(t);
  EXPECT_EQ(nodes_on(t, r, 0, 2), (std::vector<NodeIndex>{0, 1, 2}));
  EXPECT_EQ(r.hops(0, 2), 2);
  EXPECT_EQ(r.hops(2, 2), 0);
  EXPECT_TRUE(r.route(2, 2).empty());
}

TEST(RoutingTest, EqualHopsTieBreakToLowerLatency) {
  // 0->1->2 costs 50 + 10 = 60 ns, 0->3->2 costs 20 + 10 = 30 ns: via 3.
  const Topology t = square(50.0, 20.0);
  const Routing r(t);
  EXPECT_EQ(nodes_on(t, r, 0, 2), (std::vector<NodeIndex>{0, 3, 2}));
  // Access latency 0 -> 2: local 100 + 20 + 10 = 130 ns.
  EXPECT_DOUBLE_EQ(r.access_latency_ns(0, 2), 130.0);
}

TEST(RoutingTest, FewerHopsWinOverLowerLatency) {
  // 0->1 directly costs 500 ns; 0->3->2->1 costs 3 x 10 = 30 ns but 3 hops: the direct link wins.
  Topology t = square(500.0, 10.0);
  const Routing r(t);
  EXPECT_EQ(r.hops(0, 1), 1);
  EXPECT_DOUBLE_EQ(r.access_latency_ns(0, 1), 600.0);
}

TEST(RoutingTest, ExplicitRouteReplacesTheDefaultForItsPairOnly) {
  Topology t = square(10.0, 10.0);
  t.routes.push_back(ExplicitRoute{{0, 3, 2}});
  check_topology(t, "square");
  const Routing r(t);
  EXPECT_EQ(nodes_on(t, r, 0, 2), (std::vector<NodeIndex>{0, 3, 2}));
  EXPECT_EQ(nodes_on(t, r, 2, 0), (std::vector<NodeIndex>{2, 1, 0}));  // reverse keeps the default
}

TEST(RoutingTest, DistanceMatrixScalesLatencyToTen) {
  // Line 0 - 1 with local latency 100 ns and link latency 50 ns: remote = 150 ns -> 15.
  Topology t;
  t.name = "pair";
  t.nodes = {socket("a"), socket("b")};
  link(t, 0, 1, 50.0);
  t.provenance.source = "test";
  const Routing r(t);
  EXPECT_EQ(r.distance_matrix(), (std::vector<std::vector<int>>{{10, 15}, {15, 10}}));
  EXPECT_EQ(r.hop_matrix(), (std::vector<std::vector<int>>{{0, 1}, {1, 0}}));
  EXPECT_EQ(r.diameter(), 1);
}

TEST(RoutingTest, RoutersAreLeftOutOfTheMatricesButCountAsHops) {
  // Two sockets joined only through a router: a -> r -> b is 2 hops.
  Topology t;
  t.name = "router";
  t.nodes = {socket("a"), socket("b")};
  Node router;
  router.id = "r";
  router.kind = NodeKind::kRouter;
  t.nodes.push_back(router);
  link(t, 0, 2, 25.0);
  link(t, 2, 1, 25.0);
  t.provenance.source = "test";
  check_topology(t, "router");
  const Routing r(t);
  EXPECT_EQ(r.hop_matrix(), (std::vector<std::vector<int>>{{0, 2}, {2, 0}}));
  EXPECT_EQ(r.diameter(), 2);
  EXPECT_DOUBLE_EQ(r.access_latency_ns(0, 1), 150.0);
}

TEST(RoutingTest, DirectedLinksGiveAsymmetricRoutes) {
  // Directed cycle 0 -> 1 -> 2 -> 0: 0 reaches 2 in 2 hops, 2 reaches 0 in 1.
  Topology t;
  t.name = "cycle";
  t.nodes = {socket("a"), socket("b"), socket("c")};
  t.links = {Link{0, 1, 5.0, 1.0, 0}, Link{1, 2, 5.0, 1.0, 1}, Link{2, 0, 5.0, 1.0, 2}};
  t.provenance.source = "test";
  check_topology(t, "cycle");
  const Routing r(t);
  EXPECT_EQ(r.hops(0, 2), 2);
  EXPECT_EQ(r.hops(2, 0), 1);
}

}  // namespace
}  // namespace numatwin::model
