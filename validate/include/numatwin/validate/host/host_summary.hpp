// What this process can see of the real machine, in one line: NUMA nodes, cores and hardware
// threads (from hwloc) and whether the kernel offers a NUMA API (from libnuma).
#pragma once

#include <string>

namespace numatwin::validate {

struct HostSummary {
  int numa_nodes = 0;
  int packages = 0;
  int cores = 0;
  int hardware_threads = 0;
  std::string hwloc_api_version;  // e.g. "2.9"
  bool libnuma_available = false;  // numa_available() >= 0
};

// Throws std::runtime_error when hwloc cannot build the topology of this machine.
HostSummary read_host_summary();

}  // namespace numatwin::validate
