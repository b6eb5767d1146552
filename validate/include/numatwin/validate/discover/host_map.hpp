// How a topology describes the machine we run on: topology node i is the i-th discovered node
// (ascending Linux node number) among the nodes that have cores or memory, and the model's CPU
// numbering (sim/workload/thread_placement.hpp: global core c, hardware thread h) is mapped onto the OS
// CPUs of that node in placement order (first hardware thread of every core, then the second...).
// Routers (nodes with neither cores nor memory) have no Linux node and are skipped.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"

namespace numatwin::validate {

struct HostMap {
  std::vector<int> node_os_index;           // topology node -> Linux node, -1 for routers
  std::vector<std::vector<int>> node_cpus;  // topology node -> usable OS CPUs in placement order
  std::vector<int> first_core;              // topology node -> its first global core index
  std::vector<int> cores;                   // topology node -> its cores in the topology

  // The OS CPU of a thread placed by sim::place_threads on the same topology. Throws
  // std::invalid_argument when this machine lacks that CPU (e.g. a cpuset hides it).
  [[nodiscard]] int os_cpu(const sim::PlacedThread& thread) const;
  // Linux nodes of topology nodes (bind, preferred and interleave lists).
  [[nodiscard]] std::vector<int> os_nodes(const std::vector<model::NodeIndex>& nodes) const;

  std::vector<int> memory_os_nodes;  // every Linux node with memory this process may use
};

// Throws std::invalid_argument, naming both counts, when the topology's nodes with cores or memory
// do not match the machine's nodes one to one, or a node has more cores in the topology than
// the machine offers. `node_cpus_in_order[k]` are the usable CPUs of machine.nodes[k] in
// placement order (ThreadPinner::node_cpus).
HostMap map_host(const model::Topology& topology, const DiscoveredMachine& machine,
                 const std::vector<std::vector<int>>& node_cpus_in_order);

// The running machine: discovery (hwloc, libnuma) and ThreadPinner's CPU order, then map_host.
HostMap map_this_host(const model::Topology& topology);

}  // namespace numatwin::validate
