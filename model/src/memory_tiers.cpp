#include "numatwin/model/memory_tiers.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

std::string_view memory_kind_name(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::kDram: return "DRAM";
    case MemoryKind::kHbm: return "HBM";
    case MemoryKind::kCxl: return "CXL";
    case MemoryKind::kNvm: return "NVM";
  }
  return "DRAM";
}

std::optional<MemoryKind> parse_memory_kind(std::string_view name) {
  for (MemoryKind kind : {MemoryKind::kDram, MemoryKind::kHbm, MemoryKind::kCxl, MemoryKind::kNvm}) {
    if (memory_kind_name(kind) == name) return kind;
  }
  return std::nullopt;
}

MemoryCurve memory_curve(const Topology& topology, NodeIndex node) {
  const PerformanceParameters& p = topology.performance;
  const Node& n = topology.nodes.at(static_cast<std::size_t>(node));
  if (n.memory_kind) {
    const auto it = topology.memory_kind_curves.find(*n.memory_kind);
    if (it != topology.memory_kind_curves.end()) return it->second;
  }
  return MemoryCurve{p.memory_queue_ns, p.queue_exponent};
}

double memory_side_cache_hit_ratio(std::int64_t capacity_bytes, std::int64_t footprint_bytes) {
  if (footprint_bytes <= 0) throw std::invalid_argument("memory-side cache: the footprint must be > 0 bytes");
  if (capacity_bytes <= 0) return 0.0;
  if (footprint_bytes <= capacity_bytes) return 1.0;
  return static_cast<double>(capacity_bytes) / static_cast<double>(footprint_bytes);
}

EffectiveMemory effective_memory(const Node& node, std::int64_t footprint_bytes) {
  if (!node.has_memory()) throw std::invalid_argument("node " + node.id + " has no memory");
  if (footprint_bytes <= 0) throw std::invalid_argument("effective_memory: the footprint must be > 0 bytes");
  EffectiveMemory out{0.0, node.local_latency_ns, node.memory_read_bandwidth_gbps};
  if (!node.memory_side_cache) return out;
  const MemorySideCache& c = *node.memory_side_cache;
  const double h = memory_side_cache_hit_ratio(c.capacity_bytes, footprint_bytes);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  out.hit_ratio = h;
  out.local_latency_ns = h * c.latency_ns + (1.0 - h) * node.local_latency_ns;
  const double via_cache = h > 0.0 ? c.read_bandwidth_gbps / h : kInf;
  const double via_memory = h < 1.0 ? node.memory_read_bandwidth_gbps / (1.0 - h) : kInf;
  out.read_bandwidth_gbps = std::min(via_cache, via_memory);
  return out;
}

}  // namespace numatwin::model
