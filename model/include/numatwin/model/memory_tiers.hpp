// Memory tiers: what kind of memory a node has (DRAM, HBM, CXL, NVM), the loaded-latency curve
// of each kind, and memory-side caches (HBM in cache mode, DRAM in front of NVM).
//
// ── Memory kinds and their loaded-latency curves ────────────────────────────────────────────
// A node's memory controller at utilisation u adds Q u^e to every access it serves
// (bandwidth_model.hpp). Q = memory_queue_ns and e = queue_exponent are machine-wide
// (/performance); a kind listed in /performance/memory_kind_curves overrides both for every node
// of that kind:
//     (Q, e)(node) = memory_kind_curves[kind(node)]  if listed,  else (memory_queue_ns, queue_exponent)
// A node without "memory_kind" uses the machine-wide curve. Why per kind: a CXL tier has a steeper
// latency-vs-bandwidth curve than CPU-attached DRAM (Meta's production measurements, quoted in the
// N:M weighted-interleave patch, intel-lab-lkp/linux 876d8daa0642; ../shared/docs/machines-2026.md),
// and its idle latency is higher: about +80 ns (same source), 2.18x (ASIC) to 2.88x (FPGA) of local
// DDR (CXL-DMSim, arXiv 2411.02282), 140-410 ns over four devices (Melody, ASPLOS 2025). The idle
// part is the node's local_latency_ns plus the links to it (host-bridge link latency); the curve
// is the loaded part. No figure here is a default: a file states them, with provenance.
//
// ── Memory-side cache ───────────────────────────────────────────────────────────────────────
// A node's memory may sit behind a memory-side cache of capacity C bytes (HBM in cache mode in
// front of DDR, DDR in front of Optane in 2LM). The node's own figures (local_latency_ns,
// memory_read_bandwidth_gbps) are those of the backing memory; the cache has its own hit latency
// L_c and read bandwidth B_c. For a stream whose footprint on the node is F bytes, accessed
// uniformly (every line equally likely; a direct-mapped cache with conflicts does worse, a
// stream with a hot subset better), the hit ratio is
//     h = 1                 if F <= C
//     h = C / F             otherwise
// and, with L_m, B_m the backing memory's latency and bandwidth,
//     latency_ns   = h L_c + (1 - h) L_m                      (a miss pays the backing latency,
//                                                              which includes the tag check)
//     bandwidth    = min(B_c / h, B_m / (1 - h))               (hits and misses are served by
//                                                              different devices; the stream is
//                                                              capped by whichever saturates
//                                                              first; B_c / 0 and B_m / 0 = inf)
// Fill traffic (a miss also writes the line into the cache) is not charged to B_c: deferred.
// What is deferred: BandwidthModel::solve's streams carry no footprint, so the solver uses the
// backing memory's figures (the conservative bound, h = 0) and the cache enters only through
// effective_memory() below, which callers with a known footprint (operators, placement) use; the
// operator and placement use of it is left for a later change.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace numatwin::model {

struct Topology;
struct Node;
using NodeIndex = int;

enum class MemoryKind { kDram, kHbm, kCxl, kNvm };

// "DRAM", "HBM", "CXL", "NVM" (the file's spelling, as hwloc's NUMA node subtypes).
[[nodiscard]] std::string_view memory_kind_name(MemoryKind kind);
[[nodiscard]] std::optional<MemoryKind> parse_memory_kind(std::string_view name);

// Loaded-latency curve of a memory controller: adds queue_ns x u^queue_exponent at utilisation u.
struct MemoryCurve {
  double memory_queue_ns = 0.0;
  double queue_exponent = 1.0;

  bool operator==(const MemoryCurve&) const = default;
};

struct MemorySideCache {
  std::int64_t capacity_bytes = 0;   // C
  double latency_ns = 0.0;           // L_c: load-to-use latency of a hit, local access
  double read_bandwidth_gbps = 0.0;  // B_c

  bool operator==(const MemorySideCache&) const = default;
};

// The curve of the node's memory controller: its kind's override, else the machine-wide curve.
[[nodiscard]] MemoryCurve memory_curve(const Topology& topology, NodeIndex node);

// h = min(1, C / F); F <= 0 means "no footprint known" and is an std::invalid_argument.
[[nodiscard]] double memory_side_cache_hit_ratio(std::int64_t capacity_bytes, std::int64_t footprint_bytes);

struct EffectiveMemory {
  double hit_ratio = 0.0;            // 0 when the node has no memory-side cache
  double local_latency_ns = 0.0;     // idle, local access
  double read_bandwidth_gbps = 0.0;  // capacity seen by the stream
};

// The node's memory as a stream with this footprint sees it (the formulas above); without a
// cache, the node's own figures. Throws std::invalid_argument for a node without memory or a
// footprint <= 0.
[[nodiscard]] EffectiveMemory effective_memory(const Node& node, std::int64_t footprint_bytes);

}  // namespace numatwin::model
