// The link/bandwidth/latency model: what rate each thread's memory stream gets when many
// stream at once, given the machine's memory controllers, directed links, routes, coherence
// protocol and the threads' outstanding cache-line misses.
//
// ── Resources ───────────────────────────────────────────────────────────────────────────────
// One per node with memory (its controller, capacity C_m = memory_read_bandwidth_gbps), one
// per directed link (capacity B_l = bandwidth_gbps) and one per node that declares a
// forwarding_bandwidth_gbps (traffic passing through it: every route that enters and leaves
// the node adds its coefficient there too). Rates are payload bytes per second.
//
// ── What a stream puts on them ──────────────────────────────────────────────────────────────
// A stream is a thread on core c of node n that reads from memory node r and/or writes to memory
// node w at payload rate x (a copy does both at the same rate; reads or writes spread over several
// nodes contribute each node's terms times its fraction). With line size S, probe bytes p
// and response bytes q per probed node (coherence.probe/response_bytes_per_line), per unit of x:
//   read from r:   controller r += 1;            links on route(r -> n) += 1       (data)
//   write to w:    controller w += 1 + C_w / W_w (the line is read for ownership, then written
//                  back; W_w = memory_write_bandwidth_gbps, or C_w when the file has none);
//                  links on route(w -> n) += 1 (ownership read), route(n -> w) += 1 (write-back)
//   every line missed (one per read line, one per written line) adds coherence traffic. Probes
//   are broadcast: one probe crosses each link of the probe tree (the union of the routes from the
//   prober to the probed nodes) once, and a node that passes it on forwards it; responses come
//   back one per probed node on its own route:
//     source snoop: prober n, probed: every NUMA node k != n;  tree links += p/S, route(k -> n) += q/S
//     home snoop:   prober h (the line's home), probed: NUMA nodes k not in {h, n};
//                   tree links += p/S, route(k -> h) += q/S;
//     directory:    as home snoop, scaled by directory_probe_fraction.
//   Only nodes with cores are probed (and answer): a router or a CPU-less memory node (HBM in flat
//   mode, a CXL expander) has no cache that could hold the line. When the home h is such a node, its
//   home agent is in the socket it hangs off, so the prober is the first node with cores on
//   route(h -> n) (for a CXL expander, its host socket; for an HBM node, its package's cores).
// Request messages are not modelled separately: they are part of p.
//
// ── Coherence at 8 and more sockets: what the protocols send, and what the model keeps ───────
// QPI moves 80-bit flits, a cache line with its header in nine (Intel's uncore guides 327043 and
// 329468, QPI link-layer events); a snoop (SNP class), a request (HOM) and a snoop response
// (HOM/NDR) are header-only messages of 1-3 flits (Dr. Dobb's, "QuickPath Interconnect: Rules of
// the Revolution", 2009, by Intel authors). One flit with the standard header (two with the
// extended one) is the QPI specification's message class tables, of which no public copy was
// found (docs/coherence-uv300h-e7.md). Per missed line a source-snoop
// requester sends one snoop to every peer caching agent and one request to the home; the peers
// answer the home, which sends the data (and completion) to the requester; with home snoop the
// home sends the snoops once the request arrives. In both, every socket is snooped unless the
// home holds a directory that can say no remote socket has the line:
//   - Xeon 7500 (Nehalem-EX, nehalem-ex-4s/-8s): its in-memory directory has two states only,
//     I and E-owned-by-an-IOH; it cannot filter snoops to sockets, so every miss, local or not,
//     snoops all 3 (4 sockets) or 7 (8 sockets) peers. The R state (a remote socket may hold the
//     line) came with the Xeon E7-8800/4800/2800 (Westmere-EX), whose datasheet (vol. 2, §5.2
//     "Directory Assisted Snoopy") calls 8-socket systems "limited by snoop bandwidth"; even
//     there it only returns data early, the snoops are still sent. The 8-socket Nehalem-EX is
//     therefore source snoop to 7 peers, as nehalem-ex-8s says.
//   - Xeon E7 v2 and later (xeon-e7-8880v2-8s, sgi-uv300h-32s): a 2-bit directory in the ECC
//     bits of each line "used to filter snoops to remote sockets and/or node controllers"
//     (E7-2800/4800/8800 v2 datasheet vol. 2, §4.2), and the R3QPI "router snoop fanout" that
//     broadcasts a snoop once per link of the tree, "important for topologies which are not fully
//     connected" (same datasheet, R3QPI): `directory` with a fraction, probes on the tree, as
//     modelled. For the Nehalem-EX R-box (an 8-port crossbar router, Xeon 7500 uncore
//     programming guide §2.6) we found no snoop fan-out documented: a probe tree there is the
//     optimistic reading (unicast snoops cross the shared first links once per destination).
// What the 4-socket figures fix: with one-link (10.9 GB/s = the link) and all-remote (61 GB/s),
// a link i->j of nehalem-ex-4s carries per line read by i's threads T: data T/3, i's probes
// T p/64, i's requests (T/3) c/64 and i's responses to homes j for the other two sockets'
// reads (2T/3) r/64 (responses go to the home in QPI): p + c/3 + 2r/3 = 64 (10.9/15.25 - 1/3)
// = 24.4 B. The file keeps all of it in p = 24 (r = 0, c = 0), which the 4-socket figures cannot
// tell from e.g. p = c = r = 12.2 B (one message size for all three); all-local (99 GB/s) only
// bounds p + r <= 64 x 10.9 / 24.7 = 28 B. On 8 sockets the split and the routes decide the
// local (migration) bandwidth, and no 8-socket microbenchmark fixes them. Worked for every
// socket streaming its own memory on the nehalem-ex-8s cube at one rate T per socket (the lock
// step of tight migration, where the slowest socket sets the pace):
//   default routes (fewest hops, then lowest predecessor index): chassis 0 reaches chassis 1
//     along its own ring and crosses last, so each cross link si->s(i+4) (7.8 GB/s) carries the
//     trees of s0..s3: 4 T 24/64 = 7.8, T = 5.2, 41.6 GB/s (free-running, max-min lets
//     chassis 1 reach 9.33 per socket, 58.1 in all: tests/model/coherence_scaling_test.cpp);
//   with p = r = 12.2 (responses back to the home, which for a local read is the requester, as
//     the model routes them): 35.2 GB/s; with one flit (7.1 B) each: 60.4 GB/s;
//   the best single shortest route per pair, the same relative choice for every socket (all 48
//     such assignments tried by hand, the best one given to the model as explicit routes),
//     p = 24: 77.4 GB/s (ring shuffle 49.9); dimension-order (e-cube) routes: 41.6 or 58.1 GB/s
//     by the order of the dimensions (`compare`, migration ring tight, on edited copies);
//   unicast snoops (no fan-out, one probe per destination on its route; worked by hand, the model
//     has no such mode): 25.8 GB/s.
// So the routes decide more than the protocol: the default tie-break sends all of chassis 0's
// snoops over every cross-chassis link. Even the best routes reach 77.4 GB/s, 78 % of the 4-socket
// machine's 98.7 (issue 17, citing Li et al.: thread migration on their 8-socket machine reaches
// about the 4-socket bandwidth, the ring shuffle less than on 4 sockets, which the model does:
// 31.2 against 69.8 GB/s, tight); 80 % would need p <= 23.5 B and 98.7 GB/s p <= 18.8 B on those
// routes, i.e. a local read's coherence cost clearly below a remote read's (what p was fitted
// on), which the flit counts above do not give. The real machine's route tables are not published and
// nehalem-ex-8s has no all-local measurement; choosing routes or p to make migration come out
// right would fit the model to the study's algorithm-level figure, so nothing is changed: the
// 8-socket machine stays snoop-bound at 41.6 GB/s with the default routes, and the gap is
// reported. An all-local microbenchmark on the 8-socket machine would settle it.
//
// ── Outstanding misses and loaded latency (Little's law) ────────────────────────────────────
// A core keeps M = miss_buffers_per_core lines in flight; the s streams active on one core share
// them (M/s each; a random-access stream may keep fewer, lines_in_flight). The latency of a miss
// from n to memory m under load is
//   L(n, m) = local_latency_ns(m) + [n != m] remote_access_overhead_ns + sum_{l in route(n, m)} latency_ns(l)
//             + Q_mem u_m^e + sum_{l in route(m, n)} Q_link u_l^e
// with u the resources' utilisations (load / capacity), Q_mem = memory_queue_ns,
// Q_link = link_queue_ns, e = queue_exponent: flat at low load, steep near saturation (at the
// controller, Q_mem and e are the memory node's kind curve when the file gives one:
// memory_tiers.hpp). So a
// stream cannot exceed its bound
//   b = (M / s) * S / (sum of L over the misses one payload line needs)
// (one miss for a read or a write, two for a copy), nor an explicit limit (e.g. compute).
// A streaming stream (lines_in_flight = 0) on a machine whose file gives a core_data_path also
// moves each line through the in-cache levels (ecm.hpp), which bound it once more:
//   rate <= 1 / (s (t_serial + t_mem)),   rate <= 1 / (s t_overlap)
// (t_mem: the controllers' coefficients over their capacities, ECM's memory term). A stream held
// there is StreamLimit::kCachePath. Without a data path nothing changes.
// Where Q_mem comes from when nothing measured it under load: at saturation the n cores of a
// node keep all their n M lines waiting, so Little's law gives L0 + Q_mem = n M S / C_m
// (validate/queue_defaults.hpp; the calibrator reads it off a saturated local bandwidth when the
// data have no loaded latency). On the shipped mlc output of a 2 x Xeon 8180 (M = 16, the L2
// superqueue) this predicts the 19 points of mlc's loaded-latency sweep, left out of the fit,
// within 14 % (e = 4 kept; delay 0: 260 ns predicted, 283 measured). The shape below saturation
// is the u^e term; an M/D/1 wait S u / (2 (1 - u)) with S = tRP + tRCD of DDR4-2666 (28.5 ns)
// follows the same sweep more closely below u = 0.8 but is not what the model computes.
//
// ── Solution ────────────────────────────────────────────────────────────────────────────────
// Rates are the max-min fair allocation (MaxMinSolver) under the capacities and these bounds.
// Since bounds depend on utilisations and utilisations on rates, the model solves the fixed
// point u = util(x(u)), x(u) = maxmin(bounds(u)), one resource at a time by secant steps on its
// residual f_r(u) = util_r(x(u)) - u_r:
//   u_r <- max(0, u_r - f_r / d_r),  d_r = min(-1, (f_r - f_r') / (u_r - u_r'))
// with ' the previous round (d_r = -1 in the first round: plain iteration u <- util(x(u))),
// until max |f_r| < 1e-9 (at most 200 rounds; `converged` says whether it did).
// u_0 is the previous call's fixed point (0 on the first call): consecutive simulator events
// differ little, so this warm start saves most rounds.
// Why -1 bounds the slope: a higher u_r lengthens the latencies of the streams that cross r and
// lowers their bounds, so util_r(x(u)) does not grow with u_r (but for max-min shifting rate
// between streams with different coefficients on r) and f_r falls at least as fast as -u_r;
// an estimate flatter than -1 is replaced by -1. Plain iteration
// (d = -1) converges where the map is flatter than -1 and oscillates where it is steeper; the
// secant estimate of the steeper slope damps exactly that, and converges superlinearly near
// the fixed point. (Until 2026-11 the step was halved per resource at each overshoot, to a
// tolerance of 1e-6: 12.8 rounds per solve on the sort-merge join's interval benchmark
// against 6.6 now, and results within 3e-8 of the fixed point, 1e-10 now, both measured
// against the old iteration run to 1e-12.) A saturated resource is limited by its capacity,
// not by the latency term.
#pragma once

#include <limits>
#include <span>
#include <string>
#include <vector>

#include "numatwin/model/maxmin_solver.hpp"
#include "numatwin/model/memory_tiers.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/solve_memo.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// A share of a stream's accesses that goes to one node's memory (pages spread over nodes, e.g.
// an interleaved table). Fractions of one spread are > 0 and add up to 1.
struct NodeShare {
  NodeIndex node = 0;
  double fraction = 1.0;
  friend bool operator==(const NodeShare&, const NodeShare&) = default;
};

struct Stream {
  NodeIndex cpu_node = 0;
  int core = 0;                  // global core index (see BandwidthModel::core_of)
  NodeIndex read_node = -1;      // memory read from, or -1
  NodeIndex write_node = -1;     // memory written to, or -1 (both set: a copy)
  // Instead of read_node / write_node: accesses spread over several nodes. The terms and the
  // latency are the fraction-weighted sums of those of each node.
  std::span<const NodeShare> read_spread;
  std::span<const NodeShare> write_spread;
  // > 0: at most this many misses in flight (random accesses, which prefetchers cannot help);
  // 0: the core's share of its miss buffers (streaming).
  double lines_in_flight = 0.0;
  double rate_limit_bytes_per_s = std::numeric_limits<double>::infinity();  // e.g. compute
};

enum class ResourceKind { kMemoryController, kLink, kForwarding };

enum class StreamLimit {
  kResource,     // a saturated memory controller or link (see `bottleneck`)
  kMissBuffers,  // its share of the core's outstanding misses over the loaded latency
  kRateLimit,    // the stream's own explicit limit
  kCachePath,    // its core's in-cache path (ecm.hpp: ports and cache-line transfers)
};

struct StreamRates {
  std::vector<double> rate_bytes_per_s;  // per stream: payload rate
  std::vector<double> latency_ns;        // per stream: loaded latency of one payload line's misses
  // Per stream: the rate its memory accesses alone would allow at the loaded latencies of this
  // solution: its rate when a saturated resource holds it, else its miss buffers' bound
  // (M / s) S / L, whatever its own limit (a core-bound stream's memory time hidden under its
  // core's work is bytes / this). An upper bound: without its limit the stream could load a
  // resource further.
  std::vector<double> memory_rate_bytes_per_s;
  // Per stream: the time per payload byte its core spends on in-cache transfers that do not
  // overlap (s t_serial, ecm.hpp; 0 without a core_data_path or for random accesses).
  std::vector<double> in_cache_s_per_byte;
  std::vector<StreamLimit> limits;       // per stream: what holds it back
  std::vector<int> bottleneck;           // per stream: resource index, or -1
  std::vector<double> resource_load_bytes_per_s;  // per resource
  std::vector<double> utilisation;                // per resource: load / capacity
  int rounds = 0;
  bool converged = true;
};

class BandwidthModel {
 public:
  // Keeps references to both: they must outlive the model. Throws std::invalid_argument when a
  // node with cores has miss_buffers_per_core < 1 or the performance parameters are invalid.
  BandwidthModel(const Topology& topology, const Routing& routing);

  [[nodiscard]] int resource_count() const { return static_cast<int>(resource_kinds_.size()); }
  [[nodiscard]] ResourceKind resource_kind(int resource) const { return resource_kinds_.at(resource); }
  [[nodiscard]] double resource_capacity_bytes_per_s(int resource) const;
  // "mc:s0" for the memory controller of s0, "s0->s1" for a link.
  [[nodiscard]] std::string resource_name(int resource) const;
  // Memory controller resource of a node, or -1 when the node has no memory.
  [[nodiscard]] int memory_resource(NodeIndex node) const { return memory_resource_.at(node); }
  [[nodiscard]] int link_resource(LinkIndex link) const { return link_resource_offset_ + link; }
  // Forwarding resource of a node, or -1 when it declares no forwarding limit.
  [[nodiscard]] int forwarding_resource(NodeIndex node) const { return forwarding_resource_.at(node); }

  // Global core index of core `core_in_node` of `node` (cores numbered node by node).
  [[nodiscard]] int core_of(NodeIndex node, int core_in_node) const;
  [[nodiscard]] NodeIndex node_of_core(int core) const;
  [[nodiscard]] int core_count() const { return static_cast<int>(core_node_.size()); }

  // Idle latency of one miss from `cpu_node` to the memory of `memory_node` (no load).
  [[nodiscard]] double idle_latency_ns(NodeIndex cpu_node, NodeIndex memory_node) const;

  // Rates of the streams running together. Throws std::invalid_argument for a stream naming a
  // node without memory, a core out of range, or neither a read nor a write node.
  // A repeat of an earlier call (the same streams and the same warm start, bit for bit) is
  // answered from a memo of this model's last solves (solve_memo.hpp), with the same rates and
  // the same next warm start as iterating again would give.
  const StreamRates& solve(std::span<const Stream> streams);
  // Calls of solve answered from the memo.
  [[nodiscard]] long memo_hits() const { return memo_.hits(); }

  // The load that a thread on `cpu_node` puts on each resource per payload byte it reads from
  // `memory_node`: the controller, the route's links and forwarding nodes, the coherence probes
  // and responses (the terms above), one per resource.
  [[nodiscard]] std::vector<ResourceUse> read_terms(NodeIndex cpu_node, NodeIndex memory_node);

 private:
  void add_route(std::vector<ResourceUse>& uses, NodeIndex from, NodeIndex to, double coefficient) const;
  void add_probes(std::vector<ResourceUse>& uses, NodeIndex requester, NodeIndex home) const;
  // Terms of a stream's flow (one per resource), built once per (cpu, read, write) and cached;
  // streams with spreads are built afresh (a one-node spread with fraction 1 is that node).
  const std::vector<ResourceUse>& stream_terms(const Stream& stream, NodeIndex cpu_node);
  void add_access(std::vector<ResourceUse>& uses, NodeIndex cpu_node, NodeIndex memory_node, double fraction,
                  bool write) const;
  // A stream's latency per payload line at utilisations `at`: the loaded latency of each node it
  // reads or writes, weighted by its share; each (cpu node, memory node) pair's loaded latency is
  // computed once per set of utilisations (pair_latency_, cleared by the caller when `at`
  // changes): many streams share a pair, and the queue terms' powers dominated the solve.
  [[nodiscard]] double stream_latency_cached_ns(const Stream& stream, NodeIndex cpu_node, const std::vector<double>& at);
  [[nodiscard]] double pair_latency_ns(NodeIndex cpu_node, NodeIndex memory_node, const std::vector<double>& at);
  // Links of the broadcast tree from `prober` to every NUMA node other than itself and `skipped`.
  [[nodiscard]] std::vector<LinkIndex> build_probe_tree(NodeIndex prober, NodeIndex skipped) const;
  // Loaded latency at utilisations `at`; the queue term of each resource (its power of u) is
  // computed once per set of utilisations (queue_ns_, cleared with pair_latency_): the same
  // product as before, summed in the same order, so the result is bitwise the same.
  [[nodiscard]] double loaded_latency_ns(NodeIndex cpu_node, NodeIndex memory_node, const std::vector<double>& at);
  [[nodiscard]] double queue_ns(int resource, double queue_ns, double exponent, const std::vector<double>& at);
  // Sorts the streams into classes of alike streams (class_of_, class_first_, class_size_).
  void group_streams(std::span<const Stream> streams);

  const Topology* topology_;
  const Routing* routing_;
  std::vector<ResourceKind> resource_kinds_;
  std::vector<double> capacities_;  // bytes per second
  std::vector<std::string> names_;
  std::vector<int> memory_resource_;  // per node
  std::vector<int> forwarding_resource_;  // per node
  std::vector<NodeIndex> resource_node_;  // per memory resource: its node
  int link_resource_offset_ = 0;
  std::vector<NodeIndex> core_node_;      // per global core
  std::vector<int> first_core_;           // per node
  std::vector<std::vector<LinkIndex>> probe_trees_;  // [prober * nodes + skipped]; skipped == prober: none

  MaxMinProblem problem_;
  MaxMinSolver solver_;
  SolveMemo memo_;
  StreamRates result_;
  std::vector<ResourceUse> uses_;
  std::vector<double> misses_per_line_;  // per stream
  std::vector<double> buffers_;          // per stream: its share of miss buffers
  std::vector<double> utilisation_guess_;  // fixed-point start: the last solution's utilisations
  std::vector<double> shortcut_utilisation_;
  std::vector<double> bounds_;
  std::vector<double> pair_latency_;  // [cpu node * nodes + memory node], NaN: not yet at these utilisations
  std::vector<double> queue_ns_;      // per resource: its queue term, NaN: not yet at these utilisations
  std::vector<MemoryCurve> memory_curves_;  // per node: memory_curve(topology, node), looked up once
  std::vector<std::vector<ResourceUse>> term_cache_;
  // Alike streams (same node, memory, spreads, misses in flight, rate limit and buffer share)
  // are one flow of weight m, bound m b and rate m x: max-min gives alike flows equal rates, so
  // this is the same allocation with fewer flows (sort-merge join: 64 streams, about 16 flows).
  std::vector<int> class_of_;        // per stream
  std::vector<int> class_first_;     // per class: its first stream
  std::vector<double> class_size_;   // per class: its streams
  std::vector<double> class_latency_;  // per class: loaded latency of one payload line's misses
  std::vector<double> class_miss_bound_;  // per class: one stream's miss-buffer bound at that latency
  std::vector<double> class_serial_s_;    // per class: one stream's s t_serial (ecm.hpp), s per byte
  std::vector<double> class_cache_bound_;  // per class: the in-cache bound (ecm.hpp), or infinity
  // Per cpu node and access kind (1 read, 2 write, 3 copy): in-cache seconds per byte of one
  // stream alone on its core (ecm.hpp), serial and overlapping; empty without a core_data_path.
  std::vector<double> node_serial_s_;
  std::vector<double> node_overlap_s_;
  std::vector<int> class_bucket_;    // [(cpu * (N+1) + read+1) * (N+1) + write+1]: a class, or -1
  std::vector<std::size_t> class_keys_;  // buckets the last grouping filled (reset to -1 at the next)
  std::vector<int> class_next_;      // per class: the next class in its bucket, or -1
  std::vector<ResourceUse> spread_terms_;  // [(cpu * (N+1) + read+1) * (N+1) + write+1]
};

}  // namespace numatwin::model
