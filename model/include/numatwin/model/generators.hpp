// Synthetic topologies of the families a planner compares. Every generated topology passes
// check_topology and carries a provenance saying it is generated and from which parameters.
#pragma once

#include <cstdint>
#include <optional>
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
  // Socket families (SocketFamilyParams below): several NUMA nodes per package.
  kIntelSnc,  // Intel Sub-NUMA Clustering: 1, 2, 3 or 4 nodes per socket, UPI between sockets
  kAmdNps,    // AMD EPYC NPS1/NPS2/NPS4: 1, 2 or 4 IO-die quadrant nodes per socket, xGMI between sockets
};

// CXL Type-3 memory expanders behind host-bridge links (socket families only). Defaults and
// their sources: socket_family_defaults in model/src/generators_sockets.cpp.
struct CxlParams {
  int per_socket = 0;                                      // expanders on each socket; 0: none
  // When not empty: the expanders of each socket, one count per socket (--cxl-per-socket 4,0),
  // in place of per_socket.
  std::vector<int> by_socket;
  std::int64_t capacity_bytes = 128LL * 1024 * 1024 * 1024;  // per expander
  std::optional<double> bandwidth_gbps;       // per expander; nullopt: half the socket's DRAM / per_socket
  std::optional<double> latency_ns;           // the expander's local_latency_ns; nullopt: the socket's DRAM
  double link_latency_ns = 80.0;              // host-bridge link: what crossing it adds
  std::optional<double> link_bandwidth_gbps;  // host-bridge link per direction; nullopt: the expander's

  // The expanders of socket `socket`: by_socket's entry, or per_socket.
  [[nodiscard]] int on_socket(int socket) const {
    return by_socket.empty() ? per_socket : by_socket.at(static_cast<std::size_t>(socket));
  }
  // Any expander on any socket.
  [[nodiscard]] bool any() const {
    for (int count : by_socket) {
      if (count > 0) return true;
    }
    return by_socket.empty() && per_socket > 0;
  }

  bool operator==(const CxlParams&) const = default;
};

// Parameters of kIntelSnc and kAmdNps. Every node of a socket gets an equal share of the
// socket's memory channels, capacity and read bandwidth; its cores are split as evenly as they
// go (cores_per_socket / N each, the first cores_per_socket % N nodes one more, as Intel's SNC3
// parts split 128 cores 43/43/42) and Intel's last-level cache with them (a slice per core);
// the nodes of
// one socket share package "p<socket>". The member initialisers are intel-snc's defaults with
// SNC off; socket_family_defaults gives each family's (and each mode's) defaults with sources.
struct SocketFamilyParams {
  int sockets = 2;           // intel-snc 1..8, amd-nps 1..2
  int nodes_per_socket = 1;  // --snc 1/2/3/4 or --nps 1/2/4
  int cores_per_socket = 32;
  int ccds_per_socket = 1;  // amd-nps: core complex dies, each with its own L3; intel-snc: 1
  int threads_per_core = 2;
  double frequency_ghz = 2.5;
  std::int64_t l1_bytes = 48 * 1024;         // per core
  std::int64_t l2_bytes = 2 * 1024 * 1024;   // per core
  std::int64_t llc_bytes_per_socket = 60LL * 1024 * 1024;  // intel: split over the nodes; amd: over the CCDs
  std::int64_t memory_per_socket_bytes = 128LL * 1024 * 1024 * 1024;
  int memory_channels_per_socket = 8;
  double memory_bandwidth_per_socket_gbps = 251.8921;  // read; split evenly over the socket's nodes
  double local_latency_ns = 111.3;
  int miss_buffers_per_core = 16;
  // Links between the nodes of one package (mesh halves / IO-die quadrants), all pairs.
  std::optional<double> die_link_bandwidth_gbps;  // per direction; nullopt: one node's memory bandwidth
  double die_link_latency_ns = 10.0;
  // Links between sockets (UPI / xGMI), every socket pair; summed into one link per node pair.
  int socket_links_per_pair = 3;
  double socket_link_bandwidth_gbps = 40.2247;  // per physical link and direction
  double socket_link_latency_ns = 127.3;
  CxlParams cxl;

  bool operator==(const SocketFamilyParams&) const = default;
};

// The defaults of a socket family for nodes_per_socket nodes per socket (AMD's bandwidth and
// latency depend on the NPS mode). Throws std::invalid_argument for a family without sockets.
SocketFamilyParams socket_family_defaults(TopologyFamily family, int nodes_per_socket);
[[nodiscard]] bool is_socket_family(TopologyFamily family);

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
  // kIntelSnc and kAmdNps read these instead of nodes, cores_per_node, ... and the link fields
  // above (coherence, performance and name still apply).
  SocketFamilyParams socket{};
};

// Parses "fully-connected", "ring", "ladder", "twisted-ladder", "mobius-ladder", "hypercube",
// "chassis", "intel-snc", "amd-nps". Throws std::invalid_argument listing the accepted names.
TopologyFamily parse_family(const std::string& name);
std::string family_name(TopologyFamily family);

// Throws std::invalid_argument naming the parameter when the size does not fit the family
// (ladders need an even n >= 4, the hypercube a power of two, ...; the socket families check
// SocketFamilyParams the same way, naming the command-line option).
Topology generate_topology(const GeneratorParams& params);

}  // namespace numatwin::model
