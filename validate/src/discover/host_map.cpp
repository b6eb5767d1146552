#include "numatwin/validate/discover/host_map.hpp"

#include <stdexcept>

#include "numatwin/validate/host/memory_placement.hpp"

namespace numatwin::validate {

int HostMap::os_cpu(const sim::PlacedThread& thread) const {
  const auto node = static_cast<std::size_t>(thread.node);
  if (thread.node < 0 || node >= node_cpus.size() || node_os_index[node] < 0)
    throw std::invalid_argument("thread placed on node " + std::to_string(thread.node) + ", which has no Linux node here");
  const int local_core = thread.core - first_core[node];
  // node_cpus lists hardware thread 0 of every core, then hardware thread 1, ...
  const int index = thread.hardware_thread * cores[node] + local_core;
  if (local_core < 0 || local_core >= cores[node] || index >= static_cast<int>(node_cpus[node].size()))
    throw std::invalid_argument("the model's CPU " + std::to_string(thread.cpu) + " (node " + std::to_string(thread.node) +
                                ", core " + std::to_string(local_core) + ", hardware thread " +
                                std::to_string(thread.hardware_thread) + ") has no usable CPU on this machine");
  return node_cpus[node][static_cast<std::size_t>(index)];
}

std::vector<int> HostMap::os_nodes(const std::vector<model::NodeIndex>& nodes) const {
  std::vector<int> out;
  for (model::NodeIndex n : nodes) {
    if (n < 0 || static_cast<std::size_t>(n) >= node_os_index.size() || node_os_index[static_cast<std::size_t>(n)] < 0)
      throw std::invalid_argument("memory policy names node " + std::to_string(n) + ", which has no Linux node here");
    out.push_back(node_os_index[static_cast<std::size_t>(n)]);
  }
  return out;
}

HostMap map_host(const model::Topology& topology, const DiscoveredMachine& machine,
                 const std::vector<std::vector<int>>& node_cpus_in_order) {
  if (node_cpus_in_order.size() != machine.nodes.size())
    throw std::invalid_argument("map_host: one CPU list per discovered node expected");
  int numa_nodes = 0;
  for (const model::Node& node : topology.nodes) numa_nodes += node.has_cores() || node.has_memory() ? 1 : 0;
  if (numa_nodes != static_cast<int>(machine.nodes.size()))
    throw std::invalid_argument("the topology \"" + topology.name + "\" has " + std::to_string(numa_nodes) + " NUMA nodes, this machine " +
                                std::to_string(machine.nodes.size()) +
                                ": run on a topology of this machine (numatwin validate discover, then calibrate)");
  HostMap map;
  std::size_t next = 0;
  int core = 0;
  for (std::size_t i = 0; i < topology.nodes.size(); ++i) {
    const model::Node& node = topology.nodes[i];
    map.first_core.push_back(core);
    map.cores.push_back(node.cores);
    core += node.cores;
    if (!node.has_cores() && !node.has_memory()) {
      map.node_os_index.push_back(-1);
      map.node_cpus.emplace_back();
      continue;
    }
    if (next >= machine.nodes.size()) {
      map.node_os_index.push_back(-1);
      map.node_cpus.emplace_back();
      continue;
    }
    const DiscoveredNode& real = machine.nodes[next];
    map.node_os_index.push_back(real.os_index);
    map.node_cpus.push_back(node_cpus_in_order[next]);
    if (node.cores > 0 && real.cores > 0 && node.cores > real.cores)
      throw std::invalid_argument("topology node \"" + node.id + "\" has " + std::to_string(node.cores) + " cores, Linux node " +
                                  std::to_string(real.os_index) + " of this machine " + std::to_string(real.cores));
    ++next;
  }
  for (const DiscoveredNode& real : machine.nodes)
    if (real.memory_allowed && real.memory_bytes > 0) map.memory_os_nodes.push_back(real.os_index);
  return map;
}

HostMap map_this_host(const model::Topology& topology) {
  const DiscoveredMachine machine = discover_machine();
  const ThreadPinner pinner;
  std::vector<std::vector<int>> cpus;
  for (const DiscoveredNode& node : machine.nodes) cpus.push_back(pinner.node_cpus(node.os_index));
  return map_host(topology, machine, cpus);
}

}  // namespace numatwin::validate
