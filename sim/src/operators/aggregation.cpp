// COUNT and MEDIAN (Memarzia et al.'s W2 and W1): GROUP BY key over a shared hash table, as the
// real kernels (validate/src/aggregation_kernels.cpp, operator_run.cpp) do them.
//
// Datasets: input (partitioned over the workers), hash table (shared, G entries of entry_bytes,
// half full: 2 G entry_bytes), MEDIAN's values (8 bytes per record, in group order).
// What a group occupies in a cache: the table is half full, so a line of entries holds half as
// many groups as it has entries: a group's footprint is f = 2 entry_bytes (32 B for the kernels'
// 16-byte entries). The LLC hit ratio h comes from the key distribution with the node's usable
// LLC (llc_usable_share) over f, the private hit ratio from the core's cache.
//
// COUNT, per worker w of n, its chunk of the input in kBatches batches, each a table loop
// (operator_builder.hpp): records / n scanned tuples (scan_cycles_per_tuple) and as many
// updates of the shared table (hash_cycles_per_tuple); with n > 1 every update is locked
// (atomic_update_ns) and a share (n - 1) / n x h_private finds the line modified by another
// core (shared_line_transfer_ns).
//
// MEDIAN, in the kernel's four steps with a barrier after each:
//   count     COUNT's pass as above (the group sizes);
//   offsets   each worker turns its slice of the table (2 G / n entries) into run offsets: two
//             scans of the slice (the slice totals, then counts to offsets, which writes the
//             slice back), scan_cycles_per_tuple per entry each;
//   scatter   the input once more: per record a lookup of its group's entry (an update: the run's
//             cursor is incremented, locked with n > 1, hash_cycles_per_tuple) and a write of the
//             value at the cursor, in the group's run. While both are hot a group occupies its
//             entry and its run's tail line: f' = f + S bytes (S the line), so h' = hit(usable
//             LLC / f'), for the lookups and the tail writes alike. A tail write that misses
//             reads the line for ownership and writes it back (a random update miss); the tails
//             that hit are written back once: a write stream of records / n x 8 x h' bytes;
//   select    each worker reads its slice's runs (records / n x 8 bytes) and the slice, and
//             selects each group's median: cycles = records / n x log2(max(2, records / G)) x
//             sort_cycles_per_comparison.
#include <algorithm>
#include <cmath>

#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

bool is_median(const WorkloadSpec& spec) { return spec.kind == WorkloadKind::kMedianAggregation; }

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  std::vector<DatasetRequest> out = {
      {"input", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"hash table", d.keys.groups * spec.costs.entry_bytes * 2.0, DatasetKind::kShared},
  };
  if (is_median(spec)) out.push_back({"values", d.records * 8.0, DatasetKind::kPrivate});
  return out;
}

// The hit ratios of one pass over the input whose groups occupy `footprint` bytes each.
struct PassHits {
  double llc = 0.0;
  double own = 0.0;     // the core's own cache
  double shared = 0.0;  // lines another worker modified last
};

PassHits pass_hits(const OperatorBuilder& b, int w, double footprint) {
  const DataSpec& d = b.data();
  return PassHits{cache_hit_ratio(d.keys, b.cached_entries(w, footprint, false), d.records),
                  b.private_hit_ratio(w, d.keys, footprint, d.records),
                  b.shared_line_share(w, d.keys, footprint, d.records, b.workers())};
}

// One pass of table updates over worker w's chunk (COUNT's pass, MEDIAN's count and scatter
// lookups), in kBatches batches; `tails` (MEDIAN's scatter): the value writes at each group's
// run tail follow each batch.
void update_pass(OperatorBuilder& b, int w, const PassHits& hits, bool tails) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const double batch = d.records / n / kBatches;
  ThreadPlan& tp = b.thread_plan(w);
  const std::vector<model::NodeShare> chunk = b.dataset("input").chunk(w, n);
  for (int i = 0; i < kBatches; ++i) {
    b.table_loop(tp, w, chunk, batch * d.tuple_bytes, batch * c.scan_cycles_per_tuple,
                 b.dataset("hash table").spread(), batch, hits.llc, true, c.hash_cycles_per_tuple,
                 -1, hits.shared, hits.own, n > 1);
    if (tails) {
      const std::vector<model::NodeShare> values = b.dataset("values").spread();
      b.table_loop(tp, w, {}, 0.0, 0.0, values, batch, hits.llc, true, 0.0, -1, 0.0, hits.own,
                   false);
      OperatorBuilder::write_stream(tp, values, batch * 8.0 * hits.llc);
    }
    b.maybe_os_move(tp);
  }
}

void plan(OperatorBuilder& b) {
  const bool median = is_median(b.spec());
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const double group_bytes = 2.0 * c.entry_bytes;
  const double slice_entries = 2.0 * d.keys.groups / n;
  for (int w = 0; w < n; ++w) {
    const PassHits count = pass_hits(b, w, group_bytes);
    if (w == 0) {
      b.note_hit("hash table", count.llc);
      b.note_shared("hash table", count.shared);
    }
    update_pass(b, w, count, false);
    if (!median) continue;
    ThreadPlan& tp = b.thread_plan(w);
    const std::vector<model::NodeShare> slice = b.dataset("hash table").chunk(w, n);
    const double slice_bytes = slice_entries * c.entry_bytes;
    // offsets: slice totals, then counts to offsets (read and write back).
    tp.ops.emplace_back(Barrier{});
    OperatorBuilder::scan(tp, slice, slice_bytes, slice_entries * c.scan_cycles_per_tuple);
    tp.ops.emplace_back(Barrier{});
    OperatorBuilder::scan(tp, slice, slice_bytes, slice_entries * c.scan_cycles_per_tuple);
    OperatorBuilder::write_stream(tp, slice, slice_bytes);
    tp.ops.emplace_back(Barrier{});
    // scatter: lookups and tail writes share the cache, a group holding its entry and its tail.
    const PassHits scatter = pass_hits(b, w, group_bytes + b.line_bytes());
    if (w == 0) b.note_hit("group entries and run tails (scatter)", scatter.llc);
    update_pass(b, w, scatter, true);
    // select: each worker takes its slice's groups, reads their values and selects the median.
    tp.ops.emplace_back(Barrier{});
    const double values = d.records / n;
    const double per_group = std::max(2.0, d.records / d.keys.groups);
    const double cycles = values * std::log2(per_group) * c.sort_cycles_per_comparison;
    OperatorBuilder::scan(tp, slice, slice_bytes, 0.0);
    OperatorBuilder::scan(tp, b.dataset("values").spread(), values * 8.0, cycles, -1,
                          Phase::kReadInput, Phase::kSortMerge, 1.0);
  }
}

}  // namespace

OperatorDefinition aggregation_operator() { return OperatorDefinition{datasets, plan}; }

}  // namespace numatwin::sim::operators
