#include "numatwin/validate/host/host_summary.hpp"

#include <hwloc.h>
#include <numa.h>

#include <memory>
#include <stdexcept>

namespace numatwin::validate {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* topology) const { hwloc_topology_destroy(topology); }
};

int count(hwloc_topology_t topology, hwloc_obj_type_t type) {
  const int n = hwloc_get_nbobjs_by_type(topology, type);
  return n < 0 ? 0 : n;
}

}  // namespace

HostSummary read_host_summary() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) throw std::runtime_error("hwloc: cannot initialise a topology");
  std::unique_ptr<hwloc_topology, TopologyDeleter> topology(raw);
  if (hwloc_topology_load(topology.get()) != 0) throw std::runtime_error("hwloc: cannot load this machine's topology");
  HostSummary summary;
  summary.numa_nodes = count(topology.get(), HWLOC_OBJ_NUMANODE);
  summary.packages = count(topology.get(), HWLOC_OBJ_PACKAGE);
  summary.cores = count(topology.get(), HWLOC_OBJ_CORE);
  summary.hardware_threads = count(topology.get(), HWLOC_OBJ_PU);
  const unsigned version = hwloc_get_api_version();
  summary.hwloc_api_version = std::to_string(version >> 16) + "." + std::to_string((version >> 8) & 0xff);
  summary.libnuma_available = numa_available() >= 0;
  return summary;
}

}  // namespace numatwin::validate
