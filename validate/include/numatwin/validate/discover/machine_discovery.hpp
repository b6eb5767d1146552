// What a machine is made of, as hwloc (and, on the live machine, libnuma) sees it: NUMA nodes
// with their CPUs, cores, caches and memory, the SLIT distance matrix, and which CPUs and
// memory nodes this process may actually use (cgroup cpusets, offline CPUs). Read from the
// running machine or from an hwloc XML export (lstopo --of xml).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::validate {

struct DiscoveredNode {
  int os_index = 0;                  // Linux node number
  std::vector<int> cpus;             // OS indices of its hardware threads (online ones)
  std::vector<int> allowed_cpus;     // ... that this process may run on
  bool memory_allowed = true;        // this process may allocate here (cpuset.mems)
  int cores = 0;
  int hardware_threads = 0;
  std::vector<model::CacheLevel> caches;  // data and unified caches seen from its first core
  std::int64_t memory_bytes = 0;
  std::optional<std::int64_t> free_memory_bytes;  // live machine only
  // Memory tiers. hwloc gives every NUMA node the cpuset of the object it hangs from, so a
  // package's DRAM and HBM nodes (or a CPU-less CXL node under a package) share CPUs; each CPU
  // is given to ONE node: the node with the smallest cpuset containing it, then the DRAM-like one
  // (no subtype or "DRAM" before HBM/CXL/NVM), then the lowest OS index. `cpus`, `cores` and
  // `hardware_threads` count only the CPUs given to this node; the others are CPU-less.
  std::vector<int> local_cpus;           // hwloc's cpuset of the node (the initiators near it)
  std::string subtype;                   // hwloc's subtype: "DRAM", "HBM", "CXL", "NVM", ... or empty
  int package = -1;                      // logical index of the enclosing Package, or -1
  std::int64_t memory_side_cache_bytes = 0;  // a memory-side cache in front of this node, or 0
  // Firmware figures (hwloc memattrs, ACPI HMAT on Linux) from the initiator nearest the node:
  // the smallest initiator cpuset that meets local_cpus. Bandwidth in MiB/s, latency in ns.
  std::optional<double> read_bandwidth_mibps;   // ReadBandwidth, else Bandwidth
  std::optional<double> write_bandwidth_mibps;  // WriteBandwidth
  std::optional<double> read_latency_ns;        // ReadLatency, else Latency
  std::vector<std::string> memattr_notes;       // every value read, "Bandwidth 22500 from cpus 0-3"
};

// A CXL memory device (hwloc OS device of subtype "CXLMem") that the source does not show as a
// NUMA node (its memory is not onlined).
struct CxlMemoryDevice {
  std::string name;                   // "mem2"
  std::int64_t ram_bytes = 0;         // CXLRAMSize (volatile)
  std::int64_t pmem_bytes = 0;        // CXLPMEMSize (persistent)
  std::vector<int> local_cpus;        // cpuset of its nearest non-I/O ancestor
};

struct DiscoveredMachine {
  std::string source;       // "this machine" or the XML path
  std::string description;  // CPU model and product name when known
  std::string hwloc_version;
  int packages = 0;
  std::optional<double> frequency_ghz;  // from the CPU model string or /proc/cpuinfo
  std::vector<DiscoveredNode> nodes;    // ascending OS index
  std::vector<std::vector<int>> distances;  // SLIT over `nodes`; empty when the source has none
  std::string distances_source;             // "hwloc NUMALatency", "libnuma", or "none"
  std::vector<int> offline_cpus;            // present but offline
  std::vector<int> disallowed_cpus;         // online but outside this process's cpuset
  std::vector<int> disallowed_nodes;        // outside this process's cpuset.mems
  std::vector<std::string> notes;           // disagreements and gaps, one sentence each
  std::vector<CxlMemoryDevice> cxl_devices;  // XML import only (I/O objects are kept there)

  // Index in `nodes` of the node with this OS index, or nullopt.
  [[nodiscard]] std::optional<int> node_with_os_index(int os_index) const;
};

// The running machine. Throws std::runtime_error when hwloc cannot load it.
DiscoveredMachine discover_machine();

// An hwloc XML export. Throws model::InputError naming the file when it cannot be read or
// hwloc rejects it.
DiscoveredMachine import_hwloc_xml(const std::filesystem::path& path);
// The same for the text of such an export (what import_hwloc_xml hands to hwloc after reading
// the file); `file` names it in errors and in DiscoveredMachine::source.
DiscoveredMachine import_hwloc_xml_text(std::string text, const std::string& file);

}  // namespace numatwin::validate
