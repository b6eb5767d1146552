// A topology file for a discovered machine: its structure (nodes, cores, hardware threads,
// caches, memory, the link graph inferred from the SLIT) with every figure that discovery
// cannot know set to a placeholder and listed as such in the provenance, so that
// `numatwin validate calibrate` (or a person) replaces them. Never silently defaulted:
// provenance.notes starts with "Placeholders (not measured): " and the JSON pointers.
//
// Placeholder values (chosen only to pass the loader's rules and give sane predictions):
//   memory_read_bandwidth_gbps 10, local_latency_ns 100, miss_buffers_per_core 10,
//   frequency_ghz 1 (when neither the CPU model string nor /proc/cpuinfo gives it),
//   link bandwidth 10 GB/s per direction; link latency_ns = 100 x (c_1 - 10) / 10 from the
//   smallest remote SLIT class c_1 (so a remote access at class r costs about
//   100 x c_r / 10 ns, as the SLIT suggests); performance: memory_queue_ns 50,
//   link_queue_ns 20, queue_exponent 4; coherence: source_snoop with 0 probe/response bytes.
// Firmware figures (hwloc memattrs: DiscoveredNode::read_bandwidth_mibps etc.) replace the node
// placeholders where present and are listed in provenance.firmware; the placeholder list then
// names each remaining node's pointer instead of the /nodes/* wildcard. Memory-side caches get
// placeholder latency_ns 100 and read_bandwidth_gbps 10. CXL devices that are not NUMA nodes
// become CPU-less "cxl-<name>" nodes with a host-bridge link (placeholder 10 GB/s, 100 ns).
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/placeholders.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/validate/discover/link_inference.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"

namespace numatwin::validate {

inline constexpr double kPlaceholderMemoryBandwidthGbps = 10.0;
inline constexpr double kPlaceholderLocalLatencyNs = 100.0;
inline constexpr int kPlaceholderMissBuffersPerCore = 10;
inline constexpr double kPlaceholderFrequencyGhz = 1.0;
inline constexpr double kPlaceholderLinkBandwidthGbps = 10.0;

// The placeholder sentence of provenance.notes is read and written by model/placeholders.hpp.
using model::kPlaceholderNotePrefix;
using model::placeholders_of;
using model::set_placeholders;

struct TopologySkeleton {
  model::Topology topology;                // passes check_topology
  LinkInference inference;                 // what the link graph came from
  bool fully_connected_fallback = false;   // the SLIT did not determine the links
  std::vector<std::string> placeholders;   // JSON pointers of placeholder values
};

// Node ids are "n<os index>". Throws std::invalid_argument when the machine has no NUMA node,
// and model::InputError naming machine.source when its figures make no topology that passes
// check_topology (an edited or damaged export that hwloc takes).
TopologySkeleton make_topology_skeleton(const DiscoveredMachine& machine, const std::string& name);

}  // namespace numatwin::validate
