#include "numatwin/model/generators.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "generators_sockets.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::model {
namespace {

constexpr double kPi = 3.14159265358979323846;

struct FamilyName {
  TopologyFamily family;
  const char* name;
};

constexpr FamilyName kFamilyNames[] = {
    {TopologyFamily::kFullyConnected, "fully-connected"},
    {TopologyFamily::kRing, "ring"},
    {TopologyFamily::kLadder, "ladder"},
    {TopologyFamily::kTwistedLadder, "twisted-ladder"},
    {TopologyFamily::kMobiusLadder, "mobius-ladder"},
    {TopologyFamily::kHypercube, "hypercube"},
    {TopologyFamily::kChassis, "chassis"},
    {TopologyFamily::kIntelSnc, "intel-snc"},
    {TopologyFamily::kAmdNps, "amd-nps"},
};

Node make_node(const GeneratorParams& p, int index) {
  Node node;
  node.id = "s" + std::to_string(index);
  node.label = "socket " + std::to_string(index);
  node.kind = NodeKind::kNode;
  node.cores = p.cores_per_node;
  node.threads_per_core = p.threads_per_core;
  node.frequency_ghz = p.frequency_ghz;
  node.caches = p.caches;
  node.memory_capacity_bytes = p.memory_per_node_bytes;
  node.memory_read_bandwidth_gbps = p.memory_read_bandwidth_gbps;
  node.local_latency_ns = p.local_latency_ns;
  node.miss_buffers_per_core = p.miss_buffers_per_core;
  return node;
}

void add_link(Topology& t, int a, int b, double bandwidth_gbps, double latency_ns) {
  const int spec = t.links.empty() ? 0 : t.links.back().spec_index + 1;
  t.links.push_back(Link{a, b, bandwidth_gbps, latency_ns, spec});
  t.links.push_back(Link{b, a, bandwidth_gbps, latency_ns, spec});
}

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

// Ring layout on a circle of radius 400 around (500, 500), node 0 at the top.
Position on_circle(int index, int count) {
  const double angle = 2.0 * kPi * index / count - kPi / 2.0;
  return Position{500.0 + 400.0 * std::cos(angle), 500.0 + 400.0 * std::sin(angle)};
}

// Ladder layout: rail 0 on top left to right, rail 1 below.
Position on_ladder(int index, int half) {
  const int column = index % half;
  const int row = index / half;
  const double step = half > 1 ? 800.0 / (half - 1) : 0.0;
  return Position{100.0 + step * column, row == 0 ? 300.0 : 700.0};
}

}  // namespace

TopologyFamily parse_family(const std::string& name) {
  std::string accepted;
  for (const FamilyName& f : kFamilyNames) {
    if (name == f.name) return f.family;
    accepted += accepted.empty() ? f.name : std::string(", ") + f.name;
  }
  throw std::invalid_argument("unknown topology family \"" + name + "\"; expected one of: " + accepted);
}

std::string family_name(TopologyFamily family) {
  for (const FamilyName& f : kFamilyNames) {
    if (f.family == family) return f.name;
  }
  return "unknown";
}

Topology generate_topology(const GeneratorParams& p) {
  if (is_socket_family(p.family)) return detail::generate_socket_family(p);
  require(p.socket.cxl.per_socket == 0 && p.socket.cxl.by_socket.empty(), "--cxl-per-socket applies to the socket families intel-snc and amd-nps only");
  const int n = p.nodes;
  require(n >= 1 && n <= 4096, "--nodes must be between 1 and 4096");
  // Every pair linked: n (n - 1) / 2 link entries. 1024 nodes make 523776 (75 MB of JSON, 8 s);
  // 4096 would make 8386560 (1.2 GB of JSON, 6.5 GB of memory, nearly 3 minutes): bounded.
  require(p.family != TopologyFamily::kFullyConnected || n <= 1024,
          "--nodes must be at most 1024 for fully-connected (every pair linked: " + std::to_string(n) + " nodes make " +
              std::to_string(static_cast<long long>(n) * (n - 1) / 2) + " link entries)");
  require(p.cores_per_node >= 1, "--cores-per-node must be >= 1");
  require(p.threads_per_core >= 1, "--threads-per-core must be >= 1");
  require(p.frequency_ghz > 0.0, "--frequency-ghz must be > 0");
  require(p.memory_per_node_bytes > 0, "--memory-per-node-gib must be > 0");
  require(p.memory_read_bandwidth_gbps > 0.0, "--memory-bandwidth-gbps must be > 0");
  require(p.local_latency_ns > 0.0, "--local-latency-ns must be > 0");
  require(p.link_bandwidth_gbps > 0.0, "--link-bandwidth-gbps must be > 0");
  require(p.link_latency_ns >= 0.0, "--link-latency-ns must be >= 0");
  require(p.router_link_bandwidth_gbps > 0.0, "--router-link-bandwidth-gbps must be > 0");
  require(p.router_link_latency_ns >= 0.0, "--router-link-latency-ns must be >= 0");
  require(p.coherence.probe_bytes_per_line >= 0.0, "--probe-bytes-per-line must be >= 0");
  require(p.coherence.response_bytes_per_line >= 0.0, "--response-bytes-per-line must be >= 0");
  require(p.coherence.remote_access_overhead_ns >= 0.0, "--remote-access-overhead-ns must be >= 0");
  require(p.miss_buffers_per_core >= 1, "--miss-buffers-per-core must be >= 1");
  require(p.performance.memory_queue_ns >= 0.0 && p.performance.link_queue_ns >= 0.0, "queue latencies must be >= 0");
  require(p.performance.queue_exponent > 0.0, "--queue-exponent must be > 0");
  Topology t;
  t.name = p.name.empty() ? family_name(p.family) + "-" + std::to_string(n) : p.name;
  t.description = "generated " + family_name(p.family) + " of " + std::to_string(n) + " nodes";
  t.coherence = p.coherence;
  t.performance = p.performance;
  for (int i = 0; i < n; ++i) t.nodes.push_back(make_node(p, i));
  const double bw = p.link_bandwidth_gbps;
  const double lat = p.link_latency_ns;
  const int half = n / 2;

  switch (p.family) {
    case TopologyFamily::kFullyConnected:
      for (int a = 0; a < n; ++a) {
        t.nodes[a].position = on_circle(a, n);
        for (int b = a + 1; b < n; ++b) add_link(t, a, b, bw, lat);
      }
      break;
    case TopologyFamily::kRing:
      require(n >= 3, "a ring needs --nodes >= 3");
      for (int a = 0; a < n; ++a) {
        t.nodes[a].position = on_circle(a, n);
        add_link(t, a, (a + 1) % n, bw, lat);
      }
      break;
    case TopologyFamily::kLadder:
    case TopologyFamily::kTwistedLadder:
      require(n >= 4 && n % 2 == 0, "a ladder needs an even --nodes >= 4");
      for (int a = 0; a < n; ++a) t.nodes[a].position = on_ladder(a, half);
      for (int i = 0; i + 1 < half; ++i) add_link(t, i, i + 1, bw, lat);              // rail 0
      for (int i = half; i + 1 < n; ++i) add_link(t, i, i + 1, bw, lat);              // rail 1
      if (p.family == TopologyFamily::kLadder) {
        for (int i = 0; i < half; ++i) add_link(t, i, i + half, bw, lat);             // rungs
      } else {
        for (int i = 1; i + 1 < half; ++i) add_link(t, i, i + half, bw, lat);         // middle rungs
        add_link(t, 0, n - 1, bw, lat);                                               // crossed ends
        add_link(t, half - 1, half, bw, lat);
      }
      break;
    case TopologyFamily::kMobiusLadder:
      require(n >= 6 && n % 2 == 0, "a Moebius ladder needs an even --nodes >= 6");
      for (int a = 0; a < n; ++a) {
        t.nodes[a].position = on_circle(a, n);
        add_link(t, a, (a + 1) % n, bw, lat);
      }
      for (int i = 0; i < half; ++i) add_link(t, i, i + half, bw, lat);
      break;
    case TopologyFamily::kHypercube: {
      require(n >= 2 && (n & (n - 1)) == 0, "a hypercube needs --nodes a power of two >= 2");
      int dimensions = 0;
      while ((1 << dimensions) < n) ++dimensions;
      for (int a = 0; a < n; ++a) {
        // Gray-ish drawing: low half of the bits on x, high half on y.
        const int low_bits = (dimensions + 1) / 2;
        const int x = a & ((1 << low_bits) - 1);
        const int y = a >> low_bits;
        t.nodes[a].position = Position{100.0 + 800.0 * x / std::max(1, (1 << low_bits) - 1),
                                       100.0 + 800.0 * y / std::max(1, (1 << (dimensions - low_bits)) - 1)};
        for (int d = 0; d < dimensions; ++d) {
          const int b = a ^ (1 << d);
          if (b > a) add_link(t, a, b, bw, lat);
        }
      }
      break;
    }
    case TopologyFamily::kChassis: {
      const int per = p.sockets_per_chassis;
      require(per >= 1, "--sockets-per-chassis must be >= 1");
      require(n % per == 0, "--nodes must be a multiple of --sockets-per-chassis");
      const int chassis = n / per;
      require(chassis >= 2, "a chassis machine needs at least two chassis");
      for (int c = 0; c < chassis; ++c) {
        Node router;
        router.id = "r" + std::to_string(c);
        router.label = "router of chassis " + std::to_string(c);
        router.kind = NodeKind::kRouter;
        const Position centre = on_circle(c, chassis);
        router.position = centre;
        t.nodes.push_back(router);
        for (int s = 0; s < per; ++s) {
          const Position offset = on_circle(s, per);
          t.nodes[c * per + s].position =
              Position{centre.x + (offset.x - 500.0) * 0.2, centre.y + (offset.y - 500.0) * 0.2};
        }
      }
      for (int c = 0; c < chassis; ++c) {
        for (int a = 0; a < per; ++a) {
          for (int b = a + 1; b < per; ++b) add_link(t, c * per + a, c * per + b, bw, lat);
        }
      }
      for (int c = 0; c < chassis; ++c) {
        for (int s = 0; s < per; ++s) add_link(t, c * per + s, n + c, p.router_link_bandwidth_gbps, p.router_link_latency_ns);
      }
      for (int a = 0; a < chassis; ++a) {
        for (int b = a + 1; b < chassis; ++b) add_link(t, n + a, n + b, p.router_link_bandwidth_gbps, p.router_link_latency_ns);
      }
      break;
    }
    case TopologyFamily::kIntelSnc:
    case TopologyFamily::kAmdNps:
      break;  // generate_socket_family
  }
  t.provenance.source = "numatwin topo generate " + family_name(p.family);
  t.provenance.reconstructed = {"/nodes", "/links"};
  t.provenance.notes = "Synthetic: every figure is a generator parameter, nothing is measured.";
  check_topology(t, "<generated " + family_name(p.family) + ">");
  return t;
}

}  // namespace numatwin::model
