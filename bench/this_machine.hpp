// The machine the benchmarks run on, as the validator describes it: the discovered topology
// skeleton and its host map (host_map.hpp), for run_operator_workload and friends.
#pragma once

#include <vector>

#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace numatwin::bench {

struct ThisMachine {
  model::Topology topology;
  validate::HostMap host;
};

inline ThisMachine this_machine() {
  const validate::DiscoveredMachine found = validate::discover_machine();
  ThisMachine m;
  m.topology = validate::make_topology_skeleton(found, "host").topology;
  const validate::ThreadPinner pinner;
  std::vector<std::vector<int>> cpus;
  for (const validate::DiscoveredNode& n : found.nodes)
    cpus.push_back(pinner.node_cpus(n.os_index));
  m.host = validate::map_host(m.topology, found, cpus);
  return m;
}

}  // namespace numatwin::bench
