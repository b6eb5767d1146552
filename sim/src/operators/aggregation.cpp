// COUNT and MEDIAN (Memarzia et al.'s W2 and W1): GROUP BY key over a shared hash table.
//
// Datasets: input (partitioned over the workers), hash table (shared, G entries of entry_bytes,
// half full: 2 G entry_bytes), MEDIAN's values (private: 8 bytes per record, written by each
// worker to its own chunk).
// Per worker w of n, the input's chunk w in kBatches batches, each a table loop
// (operator_builder.hpp):
//   scan     records / n x tuple_bytes, scan_cycles_per_tuple each;
//   table    records / n updates of the shared table, hash_cycles_per_tuple each; COUNT updates
//            one entry of entry_bytes, MEDIAN appends to its group's tail line (an entry of one
//            cache line); LLC hit ratio h from the key distribution with the node's LLC,
//            private hits with the core's cache; with n > 1 every update is locked
//            (atomic_update_ns) and a share (n - 1) / n x h_private finds the line modified by
//            another core (shared_line_transfer_ns);
//   MEDIAN   also writes 8 bytes per record to its values chunk.
// MEDIAN's phase 2, after a barrier: each worker takes G / n groups, reads their values (a scan
// of records / n x 8 bytes spread over every worker's chunk) and sorts each group:
//   cycles = records / n x log2(max(2, records / G)) x sort_cycles_per_comparison.
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

void plan(OperatorBuilder& b) {
  const bool median = is_median(b.spec());
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const DataPlacement& input = b.dataset("input");
  const DataPlacement& table = b.dataset("hash table");
  const int n = b.workers();
  const double per_worker = d.records / n;
  // MEDIAN keeps the values: each update appends to its group's tail line (one line per group);
  // COUNT updates one entry of entry_bytes.
  const double entry = median ? b.line_bytes() : static_cast<double>(c.entry_bytes);
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const double hit = cache_hit_ratio(d.keys, b.cached_entries(w, entry, false), d.records);
    const double shared = b.shared_line_share(w, d.keys, entry, d.records, n);
    const double own = b.private_hit_ratio(w, d.keys, entry, d.records);
    if (w == 0) {
      b.note_hit(median ? "group tails" : "hash table", hit);
      b.note_shared(median ? "group tails" : "hash table", shared);
    }
    const std::vector<model::NodeShare> chunk = input.chunk(w, n);
    for (int batch = 0; batch < kBatches; ++batch) {
      b.table_loop(tp, w, chunk, per_worker / kBatches * d.tuple_bytes, per_worker / kBatches * c.scan_cycles_per_tuple,
                   table.spread(), per_worker / kBatches, hit, true, c.hash_cycles_per_tuple, -1, shared, own, n > 1);
      if (median) OperatorBuilder::write_stream(tp, b.dataset("values").chunk(w, n), per_worker / kBatches * 8.0);
      b.maybe_os_move(tp);
    }
    if (median) {
      // Phase 2: each worker takes G / n groups, reads their values and sorts them.
      tp.ops.emplace_back(Barrier{});
      const double values = d.records / n;
      const double per_group = std::max(2.0, d.records / d.keys.groups);
      const double cycles = values * std::log2(per_group) * c.sort_cycles_per_comparison;
      OperatorBuilder::scan(tp, b.dataset("values").spread(), values * 8.0, cycles, -1, Phase::kReadInput, Phase::kSortMerge, 1.0);
    }
  }
}

}  // namespace

OperatorDefinition aggregation_operator() {
  return OperatorDefinition{datasets, plan};
}

}  // namespace numatwin::sim::operators
