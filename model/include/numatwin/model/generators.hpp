// Synthetic topologies of the families a planner compares. Every generated topology passes
// check_topology and carries a provenance saying it is generated and from which parameters.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

enum class TopologyFamily {
  kFullyConnected,  // every pair of nodes linked
  kRing,            // 0-1-...-(n-1)-0
  kLadder,          // two rails 0..n/2-1 and n/2..n-1, rung i <-> i+n/2 at every position
  kTwistedLadder,   // rails, middle rungs i <-> i+n/2, end rungs crossed (0 <-> n-1, n/2-1 <-> n/2)
  kMobiusLadder,    // ring of n plus diagonals i <-> i+n/2
  kHypercube,       // n = 2^d, links between ids differing in one bit
  kChassis,         // chassis of fully connected sockets, one router per chassis, routers all-to-all
};

struct GeneratorParams {
  TopologyFamily family = TopologyFamily::kFullyConnected;
  int nodes = 4;  // NUMA nodes (sockets); for kChassis: the total, a multiple of sockets_per_chassis
  int sockets_per_chassis = 4;  // kChassis only
  // Template for every NUMA node.
  int cores_per_node = 8;
  int threads_per_core = 2;
  double frequency_ghz = 2.5;
  std::vector<CacheLevel> caches = {{1, 32 * 1024, 1}, {2, 256 * 1024, 1}, {3, 16 * 1024 * 1024, 8}};
  std::int64_t memory_per_node_bytes = 64LL * 1024 * 1024 * 1024;
  double memory_read_bandwidth_gbps = 40.0;
  double local_latency_ns = 100.0;
  int miss_buffers_per_core = 10;
  PerformanceParameters performance{64, 40.0, 20.0, 4.0};
  // Every link (both directions) and, for kChassis, the router links.
  double link_bandwidth_gbps = 10.0;
  double link_latency_ns = 40.0;
  double router_link_bandwidth_gbps = 10.0;
  double router_link_latency_ns = 100.0;
  Coherence coherence{};
  std::string name;  // default: derived from family and size
};

// Parses "fully-connected", "ring", "ladder", "twisted-ladder", "mobius-ladder", "hypercube",
// "chassis". Throws std::invalid_argument listing the accepted names.
TopologyFamily parse_family(const std::string& name);
std::string family_name(TopologyFamily family);

// Throws std::invalid_argument naming the parameter when the size does not fit the family
// (ladders need an even n >= 4, the hypercube a power of two, ...).
Topology generate_topology(const GeneratorParams& params);

}  // namespace numatwin::model
