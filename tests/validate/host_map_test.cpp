// HostMap: a hand-written topology mapped onto a fake discovered machine.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "numatwin/validate/discover/host_map.hpp"

namespace numatwin::validate {
namespace {

// Two nodes of 2 cores x 2 hardware threads, and a router between them (no Linux node).
model::Topology two_nodes_and_a_router() {
  model::Topology t;
  for (const char* id : {"n0", "router", "n1"}) {
    model::Node node;
    node.id = id;
    if (std::string(id) != "router") {
      node.cores = 2;
      node.threads_per_core = 2;
      node.memory_capacity_bytes = std::int64_t{1} << 30;
    } else {
      node.kind = model::NodeKind::kRouter;
    }
    t.nodes.push_back(node);
  }
  return t;
}

DiscoveredMachine fake_machine(int nodes) {
  DiscoveredMachine m;
  for (int i = 0; i < nodes; ++i) {
    DiscoveredNode n;
    n.os_index = 2 * i;  // Linux nodes 0 and 2: numbering need not be dense
    n.cores = 2;
    n.hardware_threads = 4;
    n.memory_bytes = std::int64_t{1} << 30;
    m.nodes.push_back(n);
  }
  return m;
}

TEST(HostMapTest, MapsNodesAndCpusInPlacementOrder) {
  const model::Topology t = two_nodes_and_a_router();
  // CPUs in placement order: hardware thread 0 of both cores, then hardware thread 1.
  const HostMap map = map_host(t, fake_machine(2), {{0, 1, 4, 5}, {2, 3, 6, 7}});
  EXPECT_EQ(map.node_os_index, (std::vector<int>{0, -1, 2}));
  EXPECT_EQ(map.first_core, (std::vector<int>{0, 2, 2}));
  EXPECT_EQ(map.cores, (std::vector<int>{2, 0, 2}));
  EXPECT_EQ(map.memory_os_nodes, (std::vector<int>{0, 2}));
  // Node 1 (index 2), core 3 (its second), hardware thread 1 -> 7.
  sim::PlacedThread thread;
  thread.node = 2;
  thread.core = 3;
  thread.hardware_thread = 1;
  EXPECT_EQ(map.os_cpu(thread), 7);
  thread.hardware_thread = 0;
  EXPECT_EQ(map.os_cpu(thread), 3);
  thread.node = 0;
  thread.core = 1;
  EXPECT_EQ(map.os_cpu(thread), 1);
  EXPECT_EQ(map.os_nodes({0, 2}), (std::vector<int>{0, 2}));
  EXPECT_THROW(map.os_nodes({1}), std::invalid_argument);  // the router
}

TEST(HostMapTest, RejectsANodeCountMismatchNamingBothCounts) {
  const model::Topology t = two_nodes_and_a_router();
  try {
    map_host(t, fake_machine(1), {{0, 1, 2, 3}});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("has 2 NUMA nodes"), std::string::npos) << message;
    EXPECT_NE(message.find("this machine 1"), std::string::npos) << message;
  }
  try {
    map_host(t, fake_machine(3), {{0}, {1}, {2}});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("has 2 NUMA nodes"), std::string::npos) << message;
    EXPECT_NE(message.find("this machine 3"), std::string::npos) << message;
  }
}

TEST(HostMapTest, RejectsMoreCoresThanTheMachineAndReportsHiddenCpus) {
  model::Topology t = two_nodes_and_a_router();
  t.nodes[2].cores = 4;
  EXPECT_THROW(map_host(t, fake_machine(2), {{0, 1, 4, 5}, {2, 3, 6, 7}}), std::invalid_argument);
  // A cpuset hides the second hardware threads of node 1: its model CPUs there have no OS CPU.
  const HostMap map = map_host(two_nodes_and_a_router(), fake_machine(2), {{0, 1, 4, 5}, {2, 3}});
  sim::PlacedThread thread;
  thread.node = 2;
  thread.core = 2;
  thread.hardware_thread = 1;
  thread.cpu = 6;
  EXPECT_THROW((void)map.os_cpu(thread), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
