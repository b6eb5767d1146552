// The non-partitioned hash join (Memarzia et al.'s W3): build one shared table on R, then probe
// it with S, a barrier between.
//
// Datasets: R and S (partitioned over the workers), hash table (shared, 2 |R| entries of
// entry_bytes: half full).
// Per worker w of n, in kBatches batches each:
//   build    a table loop over chunk w of R: |R| / n scanned tuples (scan_cycles_per_tuple) and
//            as many updates (join_cycles_per_tuple); R's keys are distinct, so the LLC hit
//            ratio is that of uniform keys over |R| entries; with n > 1 the updates are locked
//            (atomic_update_ns) and a share (n - 1) / n x h_private finds its line modified by
//            another core (shared_line_transfer_ns);
//   probe    a table loop over chunk w of S: |S| / n reads of the table with S's key
//            distribution over |R| keys (join_cycles_per_tuple), no updates.
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  return {
      {"R", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"S", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"hash table", d.build_records * spec.costs.entry_bytes * 2.0, DatasetKind::kShared},
  };
}

void plan(OperatorBuilder& b) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& r = b.dataset("R");
  const DataPlacement& s = b.dataset("S");
  const DataPlacement& table = b.dataset("hash table");
  KeySpec build_keys = d.keys;  // R's keys are distinct
  build_keys.distribution = KeyDistribution::kUniform;
  build_keys.groups = d.build_records;
  KeySpec probe_keys = d.keys;
  probe_keys.groups = d.build_records;
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const double cached = b.cached_entries(w, c.entry_bytes * 2.0, false);
    const double build_hit = cache_hit_ratio(build_keys, cached, d.build_records);
    const double probe_hit = cache_hit_ratio(probe_keys, cached, d.records);
    const double build_shared = b.shared_line_share(w, build_keys, c.entry_bytes * 2.0, d.build_records, n);
    const double build_own = b.private_hit_ratio(w, build_keys, c.entry_bytes * 2.0, d.build_records);
    const double probe_own = b.private_hit_ratio(w, probe_keys, c.entry_bytes * 2.0, d.records);
    if (w == 0) {
      b.note_hit("build", build_hit);
      b.note_hit("probe", probe_hit);
      b.note_shared("build", build_shared);
    }
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.build_records / n / kBatches;
      b.table_loop(tp, w, r.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, table.spread(), tuples,
                   build_hit, true, c.join_cycles_per_tuple, -1, build_shared, build_own, n > 1);
      b.maybe_os_move(tp);
    }
    tp.ops.emplace_back(Barrier{});
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.records / n / kBatches;
      b.table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, table.spread(), tuples,
                   probe_hit, false, c.join_cycles_per_tuple, -1, 0.0, probe_own);
      b.maybe_os_move(tp);
    }
  }
}

}  // namespace

OperatorDefinition hash_join_operator() {
  return OperatorDefinition{datasets, plan};
}

}  // namespace numatwin::sim::operators
