// The socket families of `topo generate`: intel-snc (Sub-NUMA Clustering) and amd-nps (EPYC
// NPS1/2/4), each optionally with CXL Type-3 expanders behind host-bridge links.
//
// Shape (both families), for S sockets of N nodes each:
//   - node (s, k), k < N, is "s<s>n<k>": cores_per_socket / N cores, the first
//     cores_per_socket % N nodes one more (real SNC3 parts split 128 cores 43/43/42),
//     memory_per_socket / N bytes, memory_bandwidth_per_socket / N GB/s (an equal share of the
//     channels), package "p<s>", memory kind DRAM. Intel's LLC is split over the N clusters in
//     proportion to their cores (SNC partitions the LLC, a slice per core); AMD's L3 belongs to
//     the CCDs, ccds_per_socket / N of them per node.
//   - die links: every pair of nodes of one package (mesh halves / IO-die quadrants), one entry of
//     die_link_bandwidth_gbps per direction. All pairs, not a grid: the mesh and the IO die's
//     crossbar reach a diagonal quadrant without passing through a neighbour's node (assumption).
//   - socket links: for every socket pair (a, b) and every k, s<a>n<k> <-> s<b>n<k> with
//     socket_links_per_pair x socket_link_bandwidth_gbps / N per direction: the pair's UPI/xGMI
//     links summed (the format has one directed link per ordered pair) and spread evenly over the
//     clusters, so the N node pairs together carry the links' sum. With N = 1 it is one link of
//     the summed bandwidth. Every socket pair is linked directly (assumption: glueless 8-socket
//     machines route some pairs over two hops; not modelled).
//   - CXL: expander e of socket s is "s<s>cxl<e>", a CPU-less node of memory kind CXL with no
//     package, behind a host-bridge link to node (s, e mod N). Each socket has cxl.per_socket
//     expanders, or its own count from cxl.by_socket (--cxl-per-socket 4,0).
// Worked example (the tests use it): intel-snc defaults with --snc 2: 4 nodes; s0n0 and s0n1
// share p0; die link 251.8921 / 2 = 125.94605 GB/s; UPI 3 x 40.2247 / 2 = 60.33705 GB/s per
// cluster pair, 120.6741 GB/s in all, the MLC cross-socket read of machines-2026.md line 11.
#include "generators_sockets.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/model/topology_check.hpp"

namespace numatwin::model::detail {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;
constexpr std::int64_t kGiB = 1024 * kMiB;

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument(message);
}

std::string num(double v) {
  std::string s = std::to_string(v);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

void add_link(Topology& t, int a, int b, double bandwidth_gbps, double latency_ns) {
  const int spec = t.links.empty() ? 0 : t.links.back().spec_index + 1;
  t.links.push_back(Link{a, b, bandwidth_gbps, latency_ns, spec});
  t.links.push_back(Link{b, a, bandwidth_gbps, latency_ns, spec});
}

void check(const SocketFamilyParams& p, bool amd) {
  const std::string mode = amd ? "--nps" : "--snc";
  if (amd) {
    require(p.sockets >= 1 && p.sockets <= 2,
            "--sockets must be 1 or 2 for amd-nps (xGMI joins at most two sockets)");
    require(p.nodes_per_socket == 1 || p.nodes_per_socket == 2 || p.nodes_per_socket == 4,
            "--nps must be 1, 2 or 4");
    require(p.ccds_per_socket >= 1, "--ccds-per-socket must be >= 1");
    require(p.ccds_per_socket % p.nodes_per_socket == 0,
            "--ccds-per-socket (" + std::to_string(p.ccds_per_socket) +
                ") must be a multiple of --nps (" + std::to_string(p.nodes_per_socket) +
                "): each quadrant node owns whole CCDs");
    require(p.cores_per_socket % p.ccds_per_socket == 0,
            "--cores-per-socket (" + std::to_string(p.cores_per_socket) +
                ") must be a multiple of --ccds-per-socket (" + std::to_string(p.ccds_per_socket) +
                ")");
  } else {
    require(p.sockets >= 1 && p.sockets <= 8, "--sockets must be between 1 and 8 for intel-snc");
    require(p.nodes_per_socket >= 1 && p.nodes_per_socket <= 4, "--snc must be 1, 2, 3 or 4");
    require(p.ccds_per_socket == 1, "--ccds-per-socket applies to amd-nps only");
  }
  require(p.cores_per_socket >= 1, "--cores-per-socket must be >= 1");
  require(p.cores_per_socket >= p.nodes_per_socket,
          "--cores-per-socket (" + std::to_string(p.cores_per_socket) + ") must be at least " + mode +
              " (" + std::to_string(p.nodes_per_socket) + "): every node needs a core");
  require(p.memory_channels_per_socket >= 1, "--memory-channels-per-socket must be >= 1");
  require(p.memory_channels_per_socket % p.nodes_per_socket == 0,
          "--memory-channels-per-socket (" + std::to_string(p.memory_channels_per_socket) +
              ") must be a multiple of " + mode + " (" + std::to_string(p.nodes_per_socket) +
              "): each node owns whole channels");
  require(p.threads_per_core >= 1, "--threads-per-core must be >= 1");
  require(p.frequency_ghz > 0.0, "--frequency-ghz must be > 0");
  require(p.l1_bytes > 0, "--l1-kib must be > 0");
  require(p.l2_bytes > 0, "--l2-kib must be > 0");
  require(p.llc_bytes_per_socket > 0, "--llc-mib-per-socket must be > 0");
  require(p.memory_per_socket_bytes >= p.nodes_per_socket, "--memory-per-socket-gib must be > 0");
  require(p.memory_bandwidth_per_socket_gbps > 0.0,
          "--memory-bandwidth-per-socket-gbps must be > 0");
  require(p.local_latency_ns > 0.0, "--local-latency-ns must be > 0");
  require(p.miss_buffers_per_core >= 1, "--miss-buffers-per-core must be >= 1");
  require(!p.die_link_bandwidth_gbps || *p.die_link_bandwidth_gbps > 0.0,
          "--die-link-bandwidth-gbps must be > 0");
  require(p.die_link_latency_ns >= 0.0, "--die-link-latency-ns must be >= 0");
  require(p.sockets == 1 || p.socket_links_per_pair >= 1, "--socket-links-per-pair must be >= 1");
  require(p.socket_link_bandwidth_gbps > 0.0, "--socket-link-bandwidth-gbps must be > 0");
  require(p.socket_link_latency_ns >= 0.0, "--socket-link-latency-ns must be >= 0");
  const CxlParams& c = p.cxl;
  require(c.per_socket >= 0 && c.per_socket <= 16, "--cxl-per-socket must be between 0 and 16");
  require(c.by_socket.empty() || static_cast<int>(c.by_socket.size()) == p.sockets,
          "--cxl-per-socket lists " + std::to_string(c.by_socket.size()) + " counts for " +
              std::to_string(p.sockets) + " sockets; expected one count (each socket) or one per socket");
  for (int count : c.by_socket) {
    require(count >= 0 && count <= 16, "--cxl-per-socket: each socket's count must be between 0 and 16");
  }
  require(c.capacity_bytes > 0, "--cxl-capacity-gib must be > 0");
  require(!c.bandwidth_gbps || *c.bandwidth_gbps > 0.0, "--cxl-bandwidth-gbps must be > 0");
  require(!c.latency_ns || *c.latency_ns > 0.0, "--cxl-latency-ns must be > 0");
  require(c.link_latency_ns >= 0.0, "--cxl-link-latency-ns must be >= 0");
  require(!c.link_bandwidth_gbps || *c.link_bandwidth_gbps > 0.0,
          "--cxl-link-bandwidth-gbps must be > 0");
}

// Drawing: sockets side by side, a package's nodes in a 2 x 2 grid, expanders underneath.
Position socket_centre(int socket, int sockets) {
  return Position{100.0 + 800.0 * (socket + 0.5) / sockets, 400.0};
}

// Cores of node k of a socket of `cores` cores in `nodes` nodes: the first cores % nodes nodes
// take one more than cores / nodes.
int node_cores(int cores, int nodes, int k) { return cores / nodes + (k < cores % nodes ? 1 : 0); }

// "-cxl2" (each socket), "-cxl4-0" (one count per socket), "" (none): the generated name's tail.
std::string cxl_name(const CxlParams& c) {
  if (!c.any()) return "";
  if (c.by_socket.empty()) return "-cxl" + std::to_string(c.per_socket);
  std::string out = "-cxl";
  for (std::size_t s = 0; s < c.by_socket.size(); ++s) out += (s ? "-" : "") + std::to_string(c.by_socket[s]);
  return out;
}

// "2" or "4,0": expanders per socket, for the description and notes.
std::string cxl_counts(const CxlParams& c) {
  if (c.by_socket.empty()) return std::to_string(c.per_socket);
  std::string out;
  for (std::size_t s = 0; s < c.by_socket.size(); ++s) out += (s ? "," : "") + std::to_string(c.by_socket[s]);
  return out;
}

}  // namespace

Topology generate_socket_family(const GeneratorParams& params) {
  const SocketFamilyParams& p = params.socket;
  const bool amd = params.family == TopologyFamily::kAmdNps;
  check(p, amd);
  const int S = p.sockets;
  const int N = p.nodes_per_socket;
  const bool even_cores = p.cores_per_socket % N == 0;
  const double node_bandwidth = p.memory_bandwidth_per_socket_gbps / N;
  const std::string family = family_name(params.family);
  const std::string mode = (amd ? "nps" : "snc") + std::to_string(N);

  Topology t;
  t.name = params.name.empty()
               ? (amd ? "amd-" : "intel-") + mode + "-" + std::to_string(S) + "s" + cxl_name(p.cxl)
               : params.name;
  t.coherence = params.coherence;
  t.performance = params.performance;
  for (int s = 0; s < S; ++s) {
    const Position centre = socket_centre(s, S);
    for (int k = 0; k < N; ++k) {
      const int cores = node_cores(p.cores_per_socket, N, k);
      std::vector<CacheLevel> caches = {{1, p.l1_bytes, 1}, {2, p.l2_bytes, 1}};
      if (amd) {
        caches.push_back(
            {3, p.llc_bytes_per_socket / p.ccds_per_socket, p.cores_per_socket / p.ccds_per_socket});
      } else {
        // A slice per core: llc / N when the cores split evenly.
        caches.push_back({3, p.llc_bytes_per_socket * cores / p.cores_per_socket, cores});
      }
      Node node;
      node.id = "s" + std::to_string(s) + "n" + std::to_string(k);
      node.label = "socket " + std::to_string(s) + (amd ? ", NPS" : ", SNC") + std::to_string(N) +
                   " node " + std::to_string(k) + " (" +
                   std::to_string(p.memory_channels_per_socket / N) + " of " +
                   std::to_string(p.memory_channels_per_socket) + " channels" +
                   (amd ? ", " + std::to_string(p.ccds_per_socket / N) + " CCDs)" : ")");
      node.package = "p" + std::to_string(s);
      node.cores = cores;
      node.threads_per_core = p.threads_per_core;
      node.frequency_ghz = p.frequency_ghz;
      node.caches = caches;
      node.memory_capacity_bytes = p.memory_per_socket_bytes / N;
      node.memory_read_bandwidth_gbps = node_bandwidth;
      node.local_latency_ns = p.local_latency_ns;
      node.memory_kind = MemoryKind::kDram;
      node.miss_buffers_per_core = p.miss_buffers_per_core;
      const double dx = N == 1 ? 0.0 : ((k % 2) - 0.5) * 160.0 / S;
      const double dy = N <= 2 ? 0.0 : ((k / 2) - 0.5) * 160.0;
      node.position = Position{centre.x + dx, centre.y + dy};
      t.nodes.push_back(node);
    }
  }
  const double die_bandwidth = p.die_link_bandwidth_gbps.value_or(node_bandwidth);
  for (int s = 0; s < S; ++s) {
    for (int a = 0; a < N; ++a) {
      for (int b = a + 1; b < N; ++b)
        add_link(t, s * N + a, s * N + b, die_bandwidth, p.die_link_latency_ns);
    }
  }
  const double socket_bandwidth = p.socket_links_per_pair * p.socket_link_bandwidth_gbps / N;
  for (int a = 0; a < S; ++a) {
    for (int b = a + 1; b < S; ++b) {
      for (int k = 0; k < N; ++k)
        add_link(t, a * N + k, b * N + k, socket_bandwidth, p.socket_link_latency_ns);
    }
  }
  const CxlParams& c = p.cxl;
  for (int s = 0; s < S; ++s) {
    const int expanders = c.on_socket(s);
    const double cxl_bandwidth = c.bandwidth_gbps.value_or(0.5 * p.memory_bandwidth_per_socket_gbps /
                                                           std::max(1, expanders));
    for (int e = 0; e < expanders; ++e) {
      Node node;
      node.id = "s" + std::to_string(s) + "cxl" + std::to_string(e);
      node.label = "CXL expander " + std::to_string(e) + " of socket " + std::to_string(s);
      node.threads_per_core = 1;
      node.frequency_ghz = p.frequency_ghz;  // required by the format; no core uses it
      node.memory_capacity_bytes = c.capacity_bytes;
      node.memory_read_bandwidth_gbps = cxl_bandwidth;
      node.local_latency_ns = c.latency_ns.value_or(p.local_latency_ns);
      node.memory_kind = MemoryKind::kCxl;
      const Position centre = socket_centre(s, S);
      node.position = Position{centre.x + (e - (expanders - 1) / 2.0) * 120.0 / S, 750.0};
      const int host = s * N + e % N;
      t.nodes.push_back(node);
      add_link(t, host, static_cast<int>(t.nodes.size()) - 1,
               c.link_bandwidth_gbps.value_or(cxl_bandwidth), c.link_latency_ns);
    }
  }

  t.description =
      "generated " + family + ": " + std::to_string(S) + " socket(s) x " + (amd ? "NPS" : "SNC") +
      std::to_string(N) + ", " + std::to_string(p.cores_per_socket) + " cores per socket" +
      (S > 1 ? ", " + std::to_string(p.socket_links_per_pair) + (amd ? " xGMI" : " UPI") +
                   " links per socket pair"
             : "") +
      (c.any() ? ", " + cxl_counts(c) + " CXL expander(s) per socket" : "");
  t.provenance.source = "numatwin topo generate " + family +
                        " (defaults: ../shared/docs/machines-2026.md, sources in "
                        "model/src/generators_sockets.cpp)";
  t.provenance.reconstructed = {"/nodes", "/links"};
  std::string notes =
      "Synthetic: every figure is a generator parameter. Per socket: " +
      std::to_string(p.cores_per_socket) + " cores, " +
      std::to_string(p.memory_channels_per_socket) + " memory channels, " +
      num(p.memory_bandwidth_per_socket_gbps) + " GB/s read, " + num(p.local_latency_ns) +
      " ns local, " + std::to_string(p.llc_bytes_per_socket / kMiB) +
      " MiB LLC, split " + (even_cores ? std::string("evenly") : "with the cores (the first nodes one core more)") +
      " over " + std::to_string(N) + " node(s) of one package; die links " +
      num(die_bandwidth) + " GB/s, " + num(p.die_link_latency_ns) + " ns; socket links " +
      std::to_string(p.socket_links_per_pair) + " x " + num(p.socket_link_bandwidth_gbps) +
      " GB/s summed and spread over the " + std::to_string(N) + " node pair(s), " +
      num(p.socket_link_latency_ns) + " ns.";
  if (c.any()) {
    std::vector<std::string> figures;  // per expander, each figure once (sockets with equal counts agree)
    for (int s = 0; s < S; ++s) {
      if (c.on_socket(s) == 0) continue;
      const std::string b =
          num(c.bandwidth_gbps.value_or(0.5 * p.memory_bandwidth_per_socket_gbps / c.on_socket(s)));
      if (std::find(figures.begin(), figures.end(), b) == figures.end()) figures.push_back(b);
    }
    std::string bandwidths;
    for (const std::string& b : figures) bandwidths += (bandwidths.empty() ? "" : " or ") + b;
    notes += " CXL: " + cxl_counts(c) + " expander(s) per socket, " +
             std::to_string(c.capacity_bytes / kGiB) + " GiB, " + bandwidths +
             " GB/s, host-bridge link adds " + num(c.link_latency_ns) +
             " ns. Published ranges to carry (machines-2026.md): idle latency about +80 ns over "
             "DRAM (Meta, N:M interleave "
             "patch), 2.18x (ASIC) to 2.88x (FPGA) local DDR (CXL-DMSim, arXiv 2411.02282), "
             "140-410 ns over four devices "
             "(Melody, ASPLOS 2025); bandwidth about half of DRAM (Meta), 82-83 % (ASIC) and 45-69 "
             "% (FPGA) of local DDR "
             "(CXL-DMSim); a steeper loaded-latency curve (Meta; no figure, so no CXL "
             "memory_kind_curve is written).";
  }
  t.provenance.notes = notes;
  check_topology(t, "<generated " + family + ">");
  return t;
}

}  // namespace numatwin::model::detail

namespace numatwin::model {

using detail::kGiB;
using detail::kKiB;
using detail::kMiB;

bool is_socket_family(TopologyFamily family) {
  return family == TopologyFamily::kIntelSnc || family == TopologyFamily::kAmdNps;
}

// Sources: machines-2026.md is ../shared/docs/machines-2026.md (lines as of 2026-11-25); "lab
// notes" are mars-research/DRAMHiT's unreviewed notes at the commits that file names.
SocketFamilyParams socket_family_defaults(TopologyFamily family, int nodes_per_socket) {
  SocketFamilyParams p;
  p.nodes_per_socket = nodes_per_socket;
  if (family == TopologyFamily::kIntelSnc) {
    // 2 x Xeon Gold 6548Y+ (Emerald Rapids), machines-2026.md line 8.
    p.sockets = 2;
    p.cores_per_socket = 32;  // line 9: "32 cores / 64 threads per socket"
    p.threads_per_core = 2;   // line 9
    p.ccds_per_socket = 1;
    // lscpu and dmidecode in the same lab notes (DRAMHiT doc/6548_mem_analysis.md at 311c863): CPU
    // MHz 2500; L1d 3 MiB, L2 128 MiB, L3 120 MiB over 2 x 32 cores; 16 DIMMs of 16384 MB
    // (hw_mem_size 262144 MB).
    p.frequency_ghz = 2.5;
    p.l1_bytes = 48 * kKiB;                  // 3 MiB / 64 cores
    p.l2_bytes = 2 * kMiB;                   // 128 MiB / 64 cores
    p.llc_bytes_per_socket = 60 * kMiB;      // 120 MiB / 2 sockets
    p.memory_channels_per_socket = 8;        // line 9: "8 channels per socket"
    p.memory_per_socket_bytes = 128 * kGiB;  // 16 x 16 GiB over 2 sockets
    p.memory_bandwidth_per_socket_gbps =
        251.8921;                // line 11: MLC random read 0->0 251892.1 MB/s (lab notes)
    p.local_latency_ns = 111.3;  // line 25: MLC local DDR on the Max 9462 (Sapphire Rapids sibling;
                                 // assumption that it carries over)
    p.miss_buffers_per_core =
        16;  // assumption (Golden/Raptor Cove L1D fill buffers), not in machines-2026.md
    p.die_link_bandwidth_gbps =
        std::nullopt;              // assumption: the mesh is no tighter than a cluster's own memory
    p.die_link_latency_ns = 10.0;  // assumption: no SNC latency figure in machines-2026.md
    p.socket_links_per_pair =
        3;  // line 24: "3 UPI links per socket" on the Max 9462 (assumption for the 6548Y+)
    // line 11: MLC random read 0->1 120674.2 MB/s over the 3 links: 120.6742 / 3 per link and
    // direction
    p.socket_link_bandwidth_gbps = 40.2247;
    p.socket_link_latency_ns = 127.3;  // line 25: remote DDR 238.6 - local 111.3 ns (Max 9462 MLC)
  } else if (family == TopologyFamily::kAmdNps) {
    // 1 x EPYC 9354P (Genoa), machines-2026.md line 35.
    p.sockets = 1;            // line 36: "one socket"
    p.cores_per_socket = 32;  // line 36: "32 cores in 8 CCDs"
    p.ccds_per_socket = 8;    // line 36
    // 64 threads, 3.25 GHz base, 256 MB L3: https://www.hpctech.co.jp/product/amd-epyc-9004-series/
    // (EPYC 9354 / P row)
    p.threads_per_core = 2;
    p.frequency_ghz = 3.25;
    p.llc_bytes_per_socket = 256 * kMiB;     // 32 MiB per CCD
    p.l1_bytes = 32 * kKiB;                  // assumption (Zen 4 L1D), not in machines-2026.md
    p.l2_bytes = 1 * kMiB;                   // "1MB di L2 dedicata" per Genoa core
                                             // (http://3dfxzone.it/mobile/news/reader.php?objid=33558&page=73)
    p.memory_channels_per_socket = 12;       // line 36: "12 x DDR5-4800"
    p.memory_per_socket_bytes = 384 * kGiB;  // assumption: 12 x 32 GiB DIMMs
    // line 38: peak loaded read NPS1 352.6 GB/s, NPS4 369.3 GB/s (lab notes); NPS2: assumption,
    // NPS1's figure
    p.memory_bandwidth_per_socket_gbps = nodes_per_socket == 4 ? 369.3 : 352.6;
    // line 37: MLC idle NPS1 113.0 ns; NPS4 local 104.6-106.5 ns (midpoint 105.55); NPS2:
    // assumption, halfway (109.275)
    p.local_latency_ns = nodes_per_socket == 1 ? 113.0 : nodes_per_socket == 4 ? 105.55 : 109.275;
    p.miss_buffers_per_core = 24;  // assumption (Zen 4 L1D miss buffers), not in machines-2026.md
    // assumption: one node's memory bandwidth; consistent with line 38's "interleaving over the 4
    // NPS4 nodes costs about 2 %" (interleaved, each directed quadrant link carries 1/4 of a node's
    // reads)
    p.die_link_bandwidth_gbps = std::nullopt;
    // line 37: other quadrant 112.9-118.6 ns (midpoint 115.75) - local midpoint 105.55; NPS2:
    // assumption, the same
    p.die_link_latency_ns = 10.2;
    // line 44: four xGMI links give 512 GB/s between the sockets (Lenovo Press LP1852); assumption:
    // both directions counted, so 512 / 4 / 2 = 64 GB/s per link and direction
    p.socket_links_per_pair = 4;
    p.socket_link_bandwidth_gbps = 64.0;
    p.socket_link_latency_ns =
        127.3;  // assumption: no xGMI latency in machines-2026.md; the UPI figure of line 25
  } else {
    throw std::invalid_argument("socket_family_defaults: " + family_name(family) +
                                " is not a socket family");
  }
  // CXL defaults, machines-2026.md lines 47-55: the tier gives about half the DRAM bandwidth
  // (Meta, bandwidth_gbps nullopt) and about 80 ns more idle latency (Meta: link_latency_ns 80
  // on top of the socket's DRAM latency); capacity 128 GiB per expander is an assumption.
  p.cxl = CxlParams{};
  return p;
}

}  // namespace numatwin::model
