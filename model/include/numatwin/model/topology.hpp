// The machine description every other part reads: NUMA nodes, routers, directed links,
// explicit routes, coherence protocol and provenance. Plain data plus lookups; the JSON
// form is in topology_json.hpp, the checks in topology_check.hpp, routing in routing.hpp.
//
// Conventions (docs/topology-format.md is the user-facing description):
//  - Bandwidths are in GB/s = 1e9 bytes/s; a link's bandwidth is per direction.
//  - A memory access from node i to the memory of node j costs
//        latency_ns(i, j) = local_latency_ns(j) + [i != j] coherence.remote_access_overhead_ns
//                           + sum over links l on route(i -> j) of l.latency_ns
//    so a link's latency_ns is what crossing it adds to a load-to-use latency (round trip).
//  - Links are stored directed. A symmetric link of the file becomes two directed links that
//    share `spec_index` (its index in the file's "links" array), which is how saving restores it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/model/dependent_miss.hpp"
#include "numatwin/model/energy.hpp"
#include "numatwin/model/tlb.hpp"
#include "numatwin/model/memory_tiers.hpp"
#include "numatwin/model/ecm.hpp"
#include "numatwin/model/operator_costs.hpp"

namespace numatwin::model {

using NodeIndex = int;  // index into Topology::nodes
using LinkIndex = int;  // index into Topology::links

enum class NodeKind { kNode, kRouter };

struct CacheLevel {
  int level = 0;                // 1, 2, 3, ...
  std::int64_t size_bytes = 0;  // size of one instance
  int shared_by_cores = 1;      // how many cores share one instance

  bool operator==(const CacheLevel&) const = default;
};

struct Position {
  double x = 0.0;  // drawing coordinates, arbitrary units, y grows downwards
  double y = 0.0;

  bool operator==(const Position&) const = default;
};

// A NUMA node (cores and/or memory) or a router (neither). A node with memory and no cores is a
// memory-only (CPU-less) node: HBM in flat mode, a CXL expander, a far-memory node.
struct Node {
  std::string id;     // unique, used by links and routes
  std::string label;  // free text shown to people; may be empty
  NodeKind kind = NodeKind::kNode;
  // The package (socket) the node belongs to; nodes sharing it are one socket (e.g. its DDR
  // node with cores and its HBM node without). Empty: not stated.
  std::string package;
  int cores = 0;
  int threads_per_core = 0;
  double frequency_ghz = 0.0;
  std::vector<CacheLevel> caches;
  std::int64_t memory_capacity_bytes = 0;
  double memory_read_bandwidth_gbps = 0.0;
  std::optional<double> memory_write_bandwidth_gbps;
  double local_latency_ns = 0.0;
  std::optional<MemoryKind> memory_kind;  // nullopt: not stated (machine-wide curve)
  std::optional<MemorySideCache> memory_side_cache;  // memory_tiers.hpp has the maths
  // Cache-line misses one core keeps in flight (line fill buffers); its hardware threads
  // share them. Caps a core's bandwidth at miss_buffers_per_core x line / latency.
  int miss_buffers_per_core = 0;
  // Traffic passing through (in on one link, out on another) is limited to this, when given;
  // for routers and for sockets that forward on behalf of others.
  std::optional<double> forwarding_bandwidth_gbps;
  std::optional<Position> position;

  [[nodiscard]] bool has_cores() const { return cores > 0; }
  [[nodiscard]] bool has_memory() const { return memory_capacity_bytes > 0; }
  // Last-level cache in bytes: the largest level, times its instances on the node.
  [[nodiscard]] double llc_bytes() const;
  [[nodiscard]] int hardware_threads() const { return cores * threads_per_core; }
  bool operator==(const Node&) const = default;
};

struct Link {
  NodeIndex from = 0;
  NodeIndex to = 0;
  double bandwidth_gbps = 0.0;  // this direction only
  double latency_ns = 0.0;      // added to an access whose route crosses this link
  int spec_index = 0;           // index of the entry in the file's "links" array

  bool operator==(const Link&) const = default;
};

// A route fixed by the file: path.front() is the source, path.back() the destination.
struct ExplicitRoute {
  std::vector<NodeIndex> path;

  bool operator==(const ExplicitRoute&) const = default;
};

enum class CoherenceProtocol { kSourceSnoop, kHomeSnoop, kDirectory };

// Coherence cost per cache line requested. With source snoop the requester probes every
// other node; with home snoop the home node does; with a directory only a fraction of lines
// (directory_probe_fraction) need probes at all. Probes travel towards the probed node,
// responses back. Any access to another node's memory also pays remote_access_overhead_ns
// once (the handshake with the home agent), on top of the links' latencies. The validator
// fits these parameters.
struct Coherence {
  CoherenceProtocol protocol = CoherenceProtocol::kSourceSnoop;
  double probe_bytes_per_line = 0.0;     // bytes towards each probed node
  double response_bytes_per_line = 0.0;  // bytes back from each probed node
  double remote_access_overhead_ns = 0.0;
  std::optional<double> directory_probe_fraction;  // directory only, in [0, 1]

  bool operator==(const Coherence&) const = default;
};

// Machine-wide parameters of the bandwidth model (model/bandwidth_model.hpp has the maths).
// Loaded latency: a resource at utilisation u adds queue_ns x u^queue_exponent to the latency of
// every access that crosses it: flat at low load, steep near saturation.
struct PerformanceParameters {
  int cache_line_bytes = 64;
  double memory_queue_ns = 0.0;  // added at a memory controller at full utilisation
  double link_queue_ns = 0.0;    // added per link at full utilisation
  double queue_exponent = 1.0;   // > 0; larger = flatter until closer to saturation

  bool operator==(const PerformanceParameters&) const = default;
};

// A microbenchmark measured on the machine, which the model must reproduce: threads on
// `cpu_node` streaming from (or chasing pointers in) the memory of `memory_node`.
struct MeasurementStream {
  NodeIndex cpu_node = 0;
  NodeIndex memory_node = 0;
  int threads = 1;

  bool operator==(const MeasurementStream&) const = default;
};

enum class MeasurementMetric { kReadBandwidthGbps, kIdleLatencyNs };

struct Measurement {
  std::string id;
  std::string description;
  MeasurementMetric metric = MeasurementMetric::kReadBandwidthGbps;
  std::vector<MeasurementStream> streams;
  double value = 0.0;  // in the metric's unit
  std::string source;

  bool operator==(const Measurement&) const = default;
};

struct Provenance {
  std::string source;                      // study, datasheet or measurement run
  std::vector<std::string> measured;       // JSON pointers (or prose) of measured figures
  std::vector<std::string> theoretical;    // ... of vendor/theoretical figures
  std::vector<std::string> reconstructed;  // ... of figures or structure we reconstructed
  std::vector<std::string> firmware;       // ... of firmware figures (ACPI HMAT via hwloc memattrs)
  std::string notes;

  bool operator==(const Provenance&) const = default;
};

struct Topology {
  std::string name;
  std::string description;
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<ExplicitRoute> routes;
  Coherence coherence;
  PerformanceParameters performance;
  // Per memory kind: a curve replacing performance's (memory_queue_ns, queue_exponent) at that
  // kind's nodes (memory_tiers.hpp). In the file: /performance/memory_kind_curves. Kept out of
  // PerformanceParameters so that its positional initialisations stay complete.
  std::map<MemoryKind, MemoryCurve> memory_kind_curves;
  std::vector<Measurement> measurements;
  // The operator model's costs on this machine, each with its origin and range
  // (operator_costs.hpp); a cost not listed is its default.
  std::vector<NamedCost> operator_costs;
  // Per memory allocator: malloc, free and realloc costs by size class and threads, with where
  // and when they were measured (allocator_costs.hpp); an allocator not listed: the defaults.
  std::vector<AllocatorCosts> allocator_costs;
  // Energy per byte and background power (energy.hpp); absent: the uncalibrated defaults.
  std::optional<EnergyParameters> energy;
  // TLB entries per page size and translation costs (tlb.hpp); absent: the defaults.
  std::optional<TlbSpec> tlb;
  // What a dependent LLC miss costs by the independent work around it (dependent_miss.hpp);
  // absent: the plans keep the allocator's layout figure or one miss at a time.
  std::optional<DependentMissGrid> dependent_misses;
  // How a core streams through its caches (ecm.hpp); absent: full overlap of in-cache transfers
  // with the memory's time.
  std::optional<CoreDataPath> core_data_path;
  Provenance provenance;

  bool operator==(const Topology&) const = default;

  // Index of the node with this id, or nullopt.
  [[nodiscard]] std::optional<NodeIndex> find_node(const std::string& id) const;
  // Index of the directed link from -> to, or nullopt.
  [[nodiscard]] std::optional<LinkIndex> find_link(NodeIndex from, NodeIndex to) const;
  // Indices of the nodes that are not routers, in file order.
  [[nodiscard]] std::vector<NodeIndex> numa_nodes() const;
  [[nodiscard]] int total_cores() const;
  [[nodiscard]] int total_hardware_threads() const;
  // "s0->s1" for messages and tables.
  [[nodiscard]] std::string link_name(LinkIndex link) const;
};

}  // namespace numatwin::model
