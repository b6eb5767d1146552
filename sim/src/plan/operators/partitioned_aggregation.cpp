// Partitioned aggregation (Li et al., section 4): GROUP BY over key partitions. The input is cut
// into n x n pieces (piece p of worker w holds w's keys from producer p's chunk); worker w owns a
// private table of G / n groups (2 G / n entries of entry_bytes: half full) and aggregates every
// producer's piece for its keys, in the shuffle's order (shuffle_plan.hpp: naive or ring, tight
// with a barrier after each step or loose).
//
// Datasets: input (partitioned, like the shuffle's buffers), tables (private: one per worker).
// Pages (model/tlb.hpp): each update adds what its table's pages cost in translation over 2 MiB
// pages, random over the table's T bytes.
//
// ── The state against the caches ────────────────────────────────────────────────────────────
// Per worker and step k, the piece has a = |input| / n^2 records, each one update of the table
// of T = E entry_bytes bytes (E = the power of two >= max(16, 2 G / n), as the kernel sizes it),
// L = ceil(T / S) lines of S bytes; a group occupies T / (G / n) bytes of it. Where the worker runs
// in that step (node X), it has
//   an LLC share      C = LLC(X) / v,  v = the workers on X in step k (at home for the shuffle;
//                     for migration, the workers whose step-k piece lies on X: the ring puts n / S
//                     on each node, the naive order all n on one),
//   a private cache   P = the core's largest private cache (L2) / ceil(v / cores of X) (threads
//                     that share a core share it),
// and the key distribution (key_distribution.hpp) over G / n groups gives the steady-state hit
// ratios h = hit(C / (T / (G / n)) groups) and h_p = hit(P / (T / (G / n))) <= h: a h accesses
// hit a cache (a h_p of them the core's own), a (1 - h) miss to memory where the table lives.
//
// ── Moving the thread, not the state ────────────────────────────────────────────────────────
// A thread that moves to another core leaves its private cache behind, and one that moves to
// another socket leaves that socket's LLC behind: caches belong to cores and sockets, not to
// threads (Nehalem: L1 and L2 private to a core, the inclusive L3 shared by a socket's cores;
// Intel 64 and IA-32 Architectures Optimization Reference Manual, section 2 on the Nehalem
// microarchitecture; Molka et al., "Memory performance and cache coherency effects on an Intel
// Nehalem multiprocessor system", PACT 2009). So even a table that fits the L2 does not travel
// with the thread through the caches: on the new node every line it held comes in again, by a
// miss. Coming back to a node visited before does not help either: the lines the thread updated
// elsewhere in between were invalidated in that node's caches by the writes (an invalidation
// protocol, MESIF on Nehalem: a write removes every other cache's copy; Molka et al.), and the
// model counts none of the rest as still cached. After the move the cache share starts empty and
// fills as the step's misses bring lines in: with D(i) lines of the table cached after i accesses,
// the next access misses with probability 1 - hit(D) (the key distribution's hit ratio for a cache
// of D lines, which keeps the most recently touched, so the hottest, lines), and every miss brings
// one line:
//   dD/di = 1 - hit(D(i)),  D(0) = 0,  until D reaches the share's lines C / S (or the table's L)
// and the misses go on at the steady 1 - h. The step's misses are D(a) while D fills, plus
// (a - i_full)(1 - h) after it is full; the cold misses are what exceeds the steady a (1 - h):
//   m_cold = misses(a) - a (1 - h)
// For uniform keys and a table that fits (h = 1): D(a) = L (1 - e^{-a / L}) = m_cold, every line
// the step touches comes in once (min(L, a) is its bound); for a table much larger than the
// cache share (L >> C / S, h = C / (S L)): m_cold ~ h C / (2 S), half of the share's lines are
// re-touched before the steady state would have evicted them. The ODE is integrated with steps
// that change D and the miss rate by at most 2 % (midpoint rule), and stops once what can still
// come in, (a - i)(1 - hit(D)), is below 1e-4 of D (the miss rate only falls as D grows). They
// replace hits: the step has a (1 - h) + m_cold misses and a h - m_cold hits, of which the private
// cache keeps its share h_p / h. A thread that does not move keeps its caches: no cold misses; nor
// in step 0, where the table has never been cached (its first touch costs every strategy the same
// and is not modelled). Where the misses go:
//   shuffle            the table stays at home and so does the thread: misses to home;
//   migration          the thread moves to the piece's node (a Bind, migration_overhead_seconds)
//                      and the table stays at home: steady and cold misses go to home, remote
//                      for most steps (a line another socket still holds modified would come from
//                      that socket's cache instead, Molka et al.; the model counts it as home's);
//   migration & copy   before the move the thread copies its table to the piece's node: a copy
//                      of T bytes read from the current node and written to the new one (the
//                      write reads the line for ownership, bandwidth_model.hpp); the copy goes
//                      to memory, not to the new node's caches, so the cold misses follow as for
//                      migration, but to the local copy. (The read is counted from the old node's
//                      memory; a table the old node's caches hold would be read from them, and
//                      its dirty lines written back later: the same memory traffic, later.)
// Phases (plan.hpp): the piece's scan is "read input" carrying the table's core work ("update
// table"); the steady misses are "update table"; the cold misses, the copy and the Bind's
// overhead are "move state" and "migrate".
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

// Entries of one worker's table: the power of two >= max(16, 2 x its groups), as the kernel
// sizes it (validate/src/kernels/shuffle_kernels.cpp, table_slots: a mask picks the slot), so the table
// is between a quarter and half full.
double table_entries(const WorkloadSpec& spec) {
  const double wanted =
      std::max(16.0, 2.0 * std::ceil(spec.data.keys.groups / std::max(1, spec.threads)));
  return std::exp2(std::ceil(std::log2(wanted)));
}

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  return {
      {"input", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"tables", std::max(1, spec.threads) * table_entries(spec) * spec.costs.entry_bytes,
       DatasetKind::kPrivate},
  };
}

// Misses of `a` accesses to a table of `table_lines` lines through a cache share of `cache_lines`
// lines that starts empty (the ODE above); `h`: the steady-state hit ratio.
double misses_from_cold(const KeySpec& keys, double entries_per_line, double table_lines,
                        double cache_lines, double a, double accesses, double h) {
  const double full = std::min(table_lines, cache_lines);
  const auto miss = [&](double lines) {
    return 1.0 - cache_hit_ratio(keys, lines * entries_per_line, accesses);
  };
  double lines = 0.0;
  double i = 0.0;
  while (i < a) {
    if (lines >= full) return lines + (a - i) * (1.0 - h);
    const double m = miss(lines);
    // The miss rate only falls as the cache fills: what is left is at most (a - i) m lines.
    if (m <= 0.0 || (a - i) * m < 1e-4 * std::max(1.0, lines))
      return std::min(full, lines + (a - i) * m);
    double di = std::min(a - i, std::max(1.0, 0.02 * std::max(lines, 1.0) / m));
    // ... and by at most 2 % of the miss rate (near a fitting table's end the rate falls fast).
    while (di > 1.0 && std::abs(miss(std::min(full, lines + di * m)) - m) > 0.02 * m)
      di = std::max(1.0, di / 2.0);
    const double rate = miss(std::min(full, lines + 0.5 * di * m));  // midpoint
    if (lines + di * rate >= full) di = (full - lines) / rate;       // full within the step
    lines = std::min(full, lines + di * rate);
    i += di;
  }
  return lines;
}

// The node holding most of a piece.
model::NodeIndex main_node(const std::vector<model::NodeShare>& piece) {
  return std::max_element(piece.begin(), piece.end(),
                          [](const auto& x, const auto& y) { return x.fraction < y.fraction; })
      ->node;
}

// Where each worker (by outer position) runs in each step, and whether it moved to get there.
struct Route {
  std::vector<std::vector<model::NodeIndex>> node;  // [o][k]
  std::vector<std::vector<bool>> moved;             // [o][k]
  std::vector<std::vector<int>> visitors;           // [k][node]: workers there in step k
};

Route route(const OperatorBuilder& b, const ShuffleOrder& order, bool migrate) {
  const model::Topology& t = b.topology();
  const int n = b.workers();
  const DataPlacement& input = b.dataset("input");
  Route r;
  r.node.assign(n, std::vector<model::NodeIndex>(n, 0));
  r.moved.assign(n, std::vector<bool>(n, false));
  r.visitors.assign(n, std::vector<int>(t.nodes.size(), 0));
  std::vector<model::NodeIndex> main_node_of(n);  // each producer's chunk, looked up once (not n^2 times)
  for (int p = 0; p < n; ++p) main_node_of[p] = main_node(input.chunk(p, n));
  for (int o = 0; o < n; ++o) {
    model::NodeIndex here = b.threads()[order.outer[o]].node;
    for (int k = 0; k < n; ++k) {
      const model::NodeIndex data_node = main_node_of[order.producers[o][k]];
      if (migrate && data_node != here && t.nodes[data_node].has_cores()) {
        here = data_node;
        r.moved[o][k] = true;
      }
      r.node[o][k] = here;
      ++r.visitors[k][here];
    }
  }
  return r;
}

void plan(OperatorBuilder& b) {
  const WorkloadSpec& spec = b.spec();
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const model::Topology& t = b.topology();
  const int n = b.workers();
  const DataPlacement& input = b.dataset("input");
  const DataPlacement& tables = b.dataset("tables");
  const ShuffleOrder order = shuffle_order(b.threads(), spec.algorithm, spec.seed, spec.producer_orders);
  const bool migrate = spec.strategy != PartitionStrategy::kShuffle;
  const bool copy = spec.strategy == PartitionStrategy::kMigrationAndCopy;
  const Route where = route(b, order, migrate);
  const double a =
      d.records / (static_cast<double>(n) * n);  // records of a piece: updates per step
  const double table_bytes = table_entries(spec) * c.entry_bytes;
  const double entry = table_bytes / std::max(1.0, d.keys.groups / n);  // table bytes per group
  const double line = b.line_bytes();
  const double table_lines = std::ceil(table_bytes / line);
  KeySpec keys = d.keys;
  keys.groups = std::max(1.0, d.keys.groups / n);
  const double accesses =
      d.records / n;  // the worker's updates over the run (key_distribution.hpp)
  std::map<double, double> cold_by_share;  // cold misses per step, by LLC share
  bool noted_cold = false;
  b.set_steps(n);
  // Each producer's input chunk, once, shared by the scans that read it (plan.hpp: SharedSpread);
  // so is a migrated table's node ({node, 1}, built on first use).
  std::vector<SharedSpread> chunks(n);
  for (int p = 0; p < n; ++p) chunks[p] = input.chunk(p, n);
  std::vector<SharedSpread> on_node(t.nodes.size());
  std::size_t ops_per_worker = 0;
  for (int o = 0; o < n; ++o) {
    const int w = order.outer[o];
    ThreadPlan& tp = b.thread_plan(w);
    const SharedSpread home_table = tables.chunk(w, n);
    model::NodeIndex here = b.threads()[w].node;
    // Room for the worker's ops: as many per step as the first worker's (the ops are moved on
    // every growth of the vector otherwise).
    if (o > 0) tp.ops.reserve(tp.ops.size() + ops_per_worker);
    const std::size_t ops_before = tp.ops.size();
    for (int k = 0; k < n; ++k) {
      const int producer = order.producers[o][k];
      const SharedSpread& piece = chunks[producer];
      const model::NodeIndex node = where.node[o][k];
      const model::Node& x = t.nodes[node];
      const int visitors = std::max(1, where.visitors[k][node]);
      const double llc_share = b.usable_llc_bytes(x) / visitors;
      const double private_share =
          private_cache_bytes(x) / std::ceil(static_cast<double>(visitors) / std::max(1, x.cores));
      const double h = cache_hit_ratio(keys, llc_share / entry, accesses);
      const double h_p = private_share > 0.0
                             ? std::min(h, cache_hit_ratio(keys, private_share / entry, accesses))
                             : 0.0;
      double cold = 0.0;
      if (where.moved[o][k]) {
        if (copy) {
          Transfer tr;
          tr.read_node = here;
          tr.write_node = node;
          tr.bytes = table_bytes;
          tr.step = k;
          tr.phase = Phase::kMoveState;
          tp.ops.emplace_back(std::move(tr));
        }
        tp.ops.emplace_back(Bind{node, spec.migration_overhead_seconds, Phase::kMigrate});
        here = node;
        if (k > 0) {
          auto known = cold_by_share.find(llc_share);
          if (known == cold_by_share.end()) {
            const double misses =
                misses_from_cold(keys, line / entry, table_lines, llc_share / line, a, accesses, h);
            known = cold_by_share.emplace(llc_share, std::clamp(misses - a * (1.0 - h), 0.0, a * h))
                        .first;
          }
          cold = known->second;
        }
      }
      const double hit = h - cold / a;
      const double private_hit = h > 0.0 ? h_p * hit / h : 0.0;
      if (o == 0 && k == 0) {
        b.note("partition table " + std::to_string(table_bytes / 1024.0).substr(0, 8) +
               " KiB per worker; LLC share " + std::to_string(llc_share / 1024.0).substr(0, 8) +
               " KiB, private cache " + std::to_string(private_share / 1024.0).substr(0, 8) +
               " KiB");
        b.note_hit("partition table (in place)", h);
        b.note("partition table: private-cache hit ratio " + std::to_string(h_p).substr(0, 6));
      }
      if (cold > 0.0 && !noted_cold) {
        noted_cold = true;
        b.note("after a move: " + std::to_string(cold).substr(0, 9) + " cold misses in a step of " +
               std::to_string(a).substr(0, 9) + " updates (table " +
               std::to_string(table_lines).substr(0, 9) + " lines)");
      }
      // The table's spread now, shared by the step's transfers.
      SharedSpread& here_table = on_node[static_cast<std::size_t>(here)];
      if (copy && here_table.empty()) here_table = std::vector<model::NodeShare>{model::NodeShare{here, 1.0}};
      b.table_loop(tp, w, piece, a * d.tuple_bytes, a * c.scan_cycles_per_tuple,
                   copy ? here_table : home_table, a, hit,
                   true, c.group_cycles_per_tuple, k, 0.0, private_hit, false, cold);
      b.table_page_walks(tp, table_bytes, a, model::BufferKind::kPlaced, Phase::kUpdateTable);
      if (spec.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
      b.maybe_os_move(tp);
    }
    if (o == 0) ops_per_worker = tp.ops.size() - ops_before + 2;
  }
}

}  // namespace

OperatorDefinition partitioned_aggregation_operator() {
  return OperatorDefinition{datasets, plan, true};
}

}  // namespace numatwin::sim::operators
