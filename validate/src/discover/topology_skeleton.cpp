#include "numatwin/validate/discover/topology_skeleton.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::validate {
namespace {

constexpr double kBytesPerMiB = 1048576.0;  // hwloc memattr bandwidths are in MiB/s

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : separator) + items[i];
  return out;
}

}  // namespace

TopologySkeleton make_topology_skeleton(const DiscoveredMachine& machine, const std::string& name) {
  if (machine.nodes.empty()) throw std::invalid_argument("make_topology_skeleton: the machine has no NUMA node");
  TopologySkeleton skeleton;
  model::Topology& t = skeleton.topology;
  t.name = name;
  t.description = machine.description.empty() ? "discovered from " + machine.source
                                              : machine.description + " (discovered from " + machine.source + ")";
  const int n = static_cast<int>(machine.nodes.size());
  const int drawn = n + static_cast<int>(machine.cxl_devices.size());
  const auto place = [drawn](int i) {
    const double angle = drawn == 1 ? 0.0 : 2.0 * 3.14159265358979323846 * i / drawn;
    return model::Position{std::round(100.0 * std::cos(angle)) / 100.0 * 3.0, std::round(100.0 * std::sin(angle)) / 100.0 * 3.0};
  };
  bool any_core_node = false;
  std::vector<std::string> bandwidth_placeholders, latency_placeholders, firmware;
  for (int i = 0; i < n; ++i) {
    const DiscoveredNode& d = machine.nodes[i];
    const std::string p = "/nodes/" + std::to_string(i);
    model::Node node;
    node.id = "n" + std::to_string(d.os_index);
    node.label = "NUMA node " + std::to_string(d.os_index) + (d.subtype.empty() ? "" : " (" + d.subtype + ")");
    if (d.package >= 0) node.package = "p" + std::to_string(d.package);
    node.cores = d.cores;
    node.threads_per_core = d.cores > 0 ? std::max(1, d.hardware_threads / d.cores) : 1;
    node.frequency_ghz = machine.frequency_ghz.value_or(kPlaceholderFrequencyGhz);
    node.caches = d.caches;
    node.memory_capacity_bytes = d.memory_bytes;
    node.memory_kind = model::parse_memory_kind(d.subtype);
    if (d.memory_bytes > 0) {
      node.memory_read_bandwidth_gbps = kPlaceholderMemoryBandwidthGbps;
      node.local_latency_ns = kPlaceholderLocalLatencyNs;
      if (d.read_bandwidth_mibps && *d.read_bandwidth_mibps > 0) {
        node.memory_read_bandwidth_gbps = *d.read_bandwidth_mibps * kBytesPerMiB / 1e9;
        firmware.push_back(p + "/memory_read_bandwidth_gbps");
      } else {
        bandwidth_placeholders.push_back(p + "/memory_read_bandwidth_gbps");
      }
      if (d.write_bandwidth_mibps && *d.write_bandwidth_mibps > 0) {
        node.memory_write_bandwidth_gbps = *d.write_bandwidth_mibps * kBytesPerMiB / 1e9;
        firmware.push_back(p + "/memory_write_bandwidth_gbps");
      }
      if (d.read_latency_ns && *d.read_latency_ns > 0) {
        node.local_latency_ns = *d.read_latency_ns;
        firmware.push_back(p + "/local_latency_ns");
      } else {
        latency_placeholders.push_back(p + "/local_latency_ns");
      }
      if (d.memory_side_cache_bytes > 0) {
        node.memory_side_cache = model::MemorySideCache{d.memory_side_cache_bytes, kPlaceholderLocalLatencyNs,
                                                        kPlaceholderMemoryBandwidthGbps};
        skeleton.placeholders.push_back(p + "/memory_side_cache/latency_ns");
        skeleton.placeholders.push_back(p + "/memory_side_cache/read_bandwidth_gbps");
      }
    }
    node.miss_buffers_per_core = d.cores > 0 ? kPlaceholderMissBuffersPerCore : 0;
    node.position = place(i);
    any_core_node = any_core_node || d.cores > 0;
    t.nodes.push_back(node);
  }
  if (!any_core_node) throw std::invalid_argument("make_topology_skeleton: no NUMA node has cores");
  // CXL memory devices the source does not show as NUMA nodes: CPU-less CXL nodes behind a
  // host-bridge link from the node that owns the device's nearest CPUs (or the first core node).
  std::vector<std::pair<int, int>> host_bridges;
  for (const CxlMemoryDevice& device : machine.cxl_devices) {
    const std::int64_t bytes = device.ram_bytes + device.pmem_bytes;
    if (bytes <= 0) continue;
    model::Node node;
    node.id = "cxl-" + device.name;
    node.label = "CXL memory device " + device.name + " (" + std::to_string(device.ram_bytes >> 20) + " MiB volatile, " +
                 std::to_string(device.pmem_bytes >> 20) + " MiB persistent; not onlined in the source)";
    node.threads_per_core = 1;
    node.frequency_ghz = machine.frequency_ghz.value_or(kPlaceholderFrequencyGhz);
    node.memory_capacity_bytes = bytes;
    node.memory_kind = model::MemoryKind::kCxl;
    node.memory_read_bandwidth_gbps = kPlaceholderMemoryBandwidthGbps;
    node.local_latency_ns = kPlaceholderLocalLatencyNs;
    node.position = place(static_cast<int>(t.nodes.size()));
    const std::string p = "/nodes/" + std::to_string(t.nodes.size());
    bandwidth_placeholders.push_back(p + "/memory_read_bandwidth_gbps");
    latency_placeholders.push_back(p + "/local_latency_ns");
    int near = -1;
    for (int i = 0; i < n && near < 0; ++i) {
      for (int cpu : machine.nodes[i].cpus) {
        if (std::find(device.local_cpus.begin(), device.local_cpus.end(), cpu) != device.local_cpus.end()) near = i;
      }
    }
    for (int i = 0; i < n && near < 0; ++i) {
      if (machine.nodes[i].cores > 0) near = i;
    }
    host_bridges.emplace_back(near, static_cast<int>(t.nodes.size()));
    t.nodes.push_back(node);
  }
  if (!machine.frequency_ghz) skeleton.placeholders.push_back("/nodes/*/frequency_ghz");
  // Wildcards when no node has a firmware figure (as before); otherwise each node's pointer.
  const auto add_placeholders = [&](const std::vector<std::string>& pointers, const std::string& field) {
    const bool none_from_firmware =
        std::none_of(firmware.begin(), firmware.end(), [&](const std::string& f) { return f.ends_with("/" + field); });
    if (none_from_firmware && !pointers.empty()) {
      skeleton.placeholders.push_back("/nodes/*/" + field);
    } else {
      skeleton.placeholders.insert(skeleton.placeholders.end(), pointers.begin(), pointers.end());
    }
  };
  add_placeholders(bandwidth_placeholders, "memory_read_bandwidth_gbps");
  add_placeholders(latency_placeholders, "local_latency_ns");
  skeleton.placeholders.push_back("/nodes/*/miss_buffers_per_core");

  std::vector<std::vector<int>> distances = machine.distances;
  if (distances.size() != machine.nodes.size()) distances.assign(machine.nodes.size(), std::vector<int>(machine.nodes.size(), 20));
  for (int i = 0; i < n; ++i) distances[i][i] = machine.distances.empty() ? 10 : distances[i][i];
  std::vector<bool> has_cpus;
  for (const auto& node : machine.nodes) has_cpus.push_back(node.cores > 0);
  skeleton.inference = infer_links(distances, has_cpus);
  if (machine.distances.size() != machine.nodes.size()) {
    skeleton.inference.consistent = false;
    skeleton.inference.explanation = "the source has no distance matrix, so it does not determine the links";
  }
  std::vector<std::pair<int, int>> links = skeleton.inference.links;
  double link_latency_ns = 0.0;
  if (n > 1) {
    const int nearest = skeleton.inference.distance_classes.empty() ? 20 : skeleton.inference.distance_classes.front();
    link_latency_ns = std::max(0.0, kPlaceholderLocalLatencyNs * (nearest - 10) / 10.0);
    if (!skeleton.inference.consistent) {
      skeleton.fully_connected_fallback = true;
      links.clear();
      for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n; ++j) links.emplace_back(i, j);
      }
    }
  }
  int spec = 0;
  for (const auto& [a, b] : links) {
    double latency_ns = link_latency_ns;
    if (skeleton.fully_connected_fallback && machine.distances.size() == machine.nodes.size()) {
      latency_ns = std::max(0.0, kPlaceholderLocalLatencyNs * (distances[a][b] - 10) / 10.0);
    }
    t.links.push_back(model::Link{a, b, kPlaceholderLinkBandwidthGbps, latency_ns, spec});
    t.links.push_back(model::Link{b, a, kPlaceholderLinkBandwidthGbps, latency_ns, spec});
    ++spec;
  }
  for (const auto& [a, b] : host_bridges) {
    const double latency_ns = kPlaceholderLocalLatencyNs;
    t.links.push_back(model::Link{a, b, kPlaceholderLinkBandwidthGbps, latency_ns, spec});
    t.links.push_back(model::Link{b, a, kPlaceholderLinkBandwidthGbps, latency_ns, spec});
    ++spec;
    links.emplace_back(a, b);
  }
  if (!links.empty()) {
    skeleton.placeholders.push_back("/links/*/bandwidth_per_direction_gbps");
    skeleton.placeholders.push_back("/links/*/latency_ns");
  }
  t.coherence.protocol = model::CoherenceProtocol::kSourceSnoop;
  t.performance = model::PerformanceParameters{64, 50.0, 20.0, 4.0};
  skeleton.placeholders.push_back("/coherence/probe_bytes_per_line");
  skeleton.placeholders.push_back("/coherence/response_bytes_per_line");
  skeleton.placeholders.push_back("/coherence/remote_access_overhead_ns");
  skeleton.placeholders.push_back("/performance/memory_queue_ns");
  skeleton.placeholders.push_back("/performance/link_queue_ns");
  skeleton.placeholders.push_back("/performance/queue_exponent");

  t.provenance.source = "numatwin validate: hwloc API " + machine.hwloc_version + " discovery of " + machine.source;
  t.provenance.measured = {"/nodes/*/cores", "/nodes/*/threads_per_core", "/nodes/*/caches",
                           "/nodes/*/memory_capacity_bytes"};
  if (machine.frequency_ghz) t.provenance.measured.push_back("/nodes/*/frequency_ghz");
  t.provenance.firmware = firmware;
  if (!firmware.empty()) t.provenance.source += "; node figures listed under firmware: firmware (HMAT) via hwloc memattrs";
  if (n > 1) {
    t.provenance.reconstructed.push_back(
        skeleton.fully_connected_fallback
            ? "/links: fully connected fallback, " + skeleton.inference.explanation
            : "/links: inferred from SLIT distance classes (" + machine.distances_source + "): " +
                  skeleton.inference.explanation);
  }
  std::string notes = "Discovered structure; the figures listed as placeholders are not measured: run `numatwin validate "
                      "measure` and `numatwin validate calibrate`.";
  std::string distance_text;
  for (const auto& row : machine.distances) {
    distance_text += distance_text.empty() ? "" : "; ";
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) distance_text += ' ';
      distance_text += std::to_string(row[j]);
    }
  }
  if (!distance_text.empty()) notes += " SLIT (" + machine.distances_source + "): " + distance_text + ".";
  for (const std::string& note : machine.notes) notes += " " + note + ".";
  for (const DiscoveredNode& d : machine.nodes) {
    if (!d.memattr_notes.empty()) notes += " hwloc memattrs of n" + std::to_string(d.os_index) + " (MiB/s, ns): " + join(d.memattr_notes, "; ") + ".";
    if (!d.subtype.empty() && !model::parse_memory_kind(d.subtype)) {
      notes += " n" + std::to_string(d.os_index) + " has hwloc subtype " + d.subtype + ", which is not a memory kind of the format.";
    }
  }
  if (!machine.cxl_devices.empty()) {
    notes += " The CXL memory devices are not NUMA nodes in the source (their memory is not onlined); the cxl-* nodes show "
             "them as they would appear once onlined.";
  }
  t.provenance.notes = notes;
  set_placeholders(t, skeleton.placeholders);
  try {
    model::check_topology(t, "<discovered " + name + ">");
  } catch (const model::InputError& e) {
    // Figures of an edited or damaged source that hwloc takes: named against the source, as
    // the import's own errors are.
    throw model::InputError(machine.source, "",
                            "its topology skeleton fails the topology checks at " + e.json_pointer() + ": " + e.expectation());
  }
  return skeleton;
}

}  // namespace numatwin::validate
