// The calibration's parameters (calibration_problem.hpp): where each lives in a topology, and which
// of them a set of measured points can determine.
#include <algorithm>
#include <cmath>
#include <set>

#include "calibration_problem.hpp"

namespace numatwin::validate::calibration_internal {
namespace {

bool symmetric_entry(const model::Topology& t, int spec) {
  int count = 0;
  for (const model::Link& l : t.links) count += l.spec_index == spec ? 1 : 0;
  return count == 2;
}

}  // namespace

double get(const model::Topology& t, const Parameter& p) {
  switch (p.kind) {
    case Kind::kMemoryBandwidth: return t.nodes[p.index].memory_read_bandwidth_gbps;
    case Kind::kLocalLatency: return t.nodes[p.index].local_latency_ns;
    case Kind::kMissBuffers:
      for (const model::Node& n : t.nodes) {
        if (n.has_cores()) return n.miss_buffers_per_core;
      }
      return 1.0;
    case Kind::kLinkBandwidth:
    case Kind::kLinkLatency:
      for (const model::Link& l : t.links) {
        if (l.spec_index == p.index) return p.kind == Kind::kLinkBandwidth ? l.bandwidth_gbps : l.latency_ns;
      }
      return 0.0;
    case Kind::kRemoteOverhead: return t.coherence.remote_access_overhead_ns;
    case Kind::kMemoryQueue: return t.performance.memory_queue_ns;
    case Kind::kLinkQueue: return t.performance.link_queue_ns;
    case Kind::kQueueExponent: return t.performance.queue_exponent;
    case Kind::kProbeBytes: return t.coherence.probe_bytes_per_line;
    case Kind::kResponseBytes: return t.coherence.response_bytes_per_line;
  }
  return 0.0;
}

void set(model::Topology& t, const Parameter& p, double value) {
  switch (p.kind) {
    case Kind::kMemoryBandwidth: t.nodes[p.index].memory_read_bandwidth_gbps = value; break;
    case Kind::kLocalLatency: t.nodes[p.index].local_latency_ns = value; break;
    case Kind::kMissBuffers:
      for (model::Node& n : t.nodes) {
        if (n.has_cores()) n.miss_buffers_per_core = std::max(1, static_cast<int>(std::lround(value)));
      }
      break;
    case Kind::kLinkBandwidth:
    case Kind::kLinkLatency:
      for (model::Link& l : t.links) {
        if (l.spec_index != p.index) continue;
        (p.kind == Kind::kLinkBandwidth ? l.bandwidth_gbps : l.latency_ns) = value;
      }
      break;
    case Kind::kRemoteOverhead: t.coherence.remote_access_overhead_ns = value; break;
    case Kind::kMemoryQueue: t.performance.memory_queue_ns = value; break;
    case Kind::kLinkQueue: t.performance.link_queue_ns = value; break;
    case Kind::kQueueExponent: t.performance.queue_exponent = value; break;
    case Kind::kProbeBytes: t.coherence.probe_bytes_per_line = value; break;
    case Kind::kResponseBytes: t.coherence.response_bytes_per_line = value; break;
  }
}

std::vector<Parameter> candidate_parameters(const model::Topology& t, const CalibrationData& data) {
  bool any_bandwidth = false, any_latency = false, any_loaded = false, any_remote = false;
  std::set<int> memory_nodes_read, latency_nodes;
  for (const CalibrationPoint& p : data.points) {
    if (p.metric == CalibrationMetric::kReadBandwidthGbps) any_bandwidth = true;
    if (p.metric != CalibrationMetric::kReadBandwidthGbps) {
      any_latency = true;
      latency_nodes.insert(p.chaser.memory_node);
      if (p.chaser.cpu_node != p.chaser.memory_node) any_remote = true;
    }
    if (p.metric == CalibrationMetric::kLoadedLatencyNs) any_loaded = true;
    for (const model::MeasurementStream& s : p.streams) {
      memory_nodes_read.insert(s.memory_node);
      if (s.cpu_node != s.memory_node) any_remote = true;
    }
  }
  std::vector<Parameter> out;
  for (int n = 0; n < static_cast<int>(t.nodes.size()); ++n) {
    if (!t.nodes[n].has_memory()) continue;
    const std::string base = "/nodes/" + std::to_string(n) + "/";
    if (memory_nodes_read.count(n) != 0) out.push_back({Kind::kMemoryBandwidth, n, base + "memory_read_bandwidth_gbps", "GB/s", 1e-3});
    if (latency_nodes.count(n) != 0 || any_bandwidth) out.push_back({Kind::kLocalLatency, n, base + "local_latency_ns", "ns", 1e-3});
  }
  if (any_bandwidth) out.push_back({Kind::kMissBuffers, -1, "/nodes/*/miss_buffers_per_core", "lines", 1.0, kMaxMissBuffers});
  const int entries = t.links.empty() ? 0 : t.links.back().spec_index + 1;
  if (any_remote) {
    for (int e = 0; e < entries; ++e) {
      const std::string base = "/links/" + std::to_string(e) + "/";
      out.push_back({Kind::kLinkBandwidth, e, base + (symmetric_entry(t, e) ? "bandwidth_per_direction_gbps" : "bandwidth_gbps"), "GB/s", 1e-3});
      out.push_back({Kind::kLinkLatency, e, base + "latency_ns", "ns"});
    }
    if (any_latency) out.push_back({Kind::kRemoteOverhead, -1, "/coherence/remote_access_overhead_ns", "ns"});
  }
  if (any_loaded || any_bandwidth) {
    out.push_back({Kind::kMemoryQueue, -1, "/performance/memory_queue_ns", "ns"});
    out.push_back({Kind::kQueueExponent, -1, "/performance/queue_exponent", "", 0.05});
  }
  if (entries > 0 && (any_loaded || any_bandwidth) && any_remote) {
    out.push_back({Kind::kLinkQueue, -1, "/performance/link_queue_ns", "ns"});
  }
  if (entries > 0 && any_bandwidth) {
    out.push_back({Kind::kProbeBytes, -1, "/coherence/probe_bytes_per_line", "bytes"});
    out.push_back({Kind::kResponseBytes, -1, "/coherence/response_bytes_per_line", "bytes"});
  }
  return out;
}

}  // namespace numatwin::validate::calibration_internal
