// The index nested-loop join (Memarzia et al.'s W4): S probes a prebuilt index on R.
//
// Datasets: S (partitioned), the index (shared): a B+-tree of 64-byte nodes holding 8 keys each,
//   index bytes = 64 + sum over levels l >= 1 of ceil(|R| / 8^l) x 64.
// Depth D = 1 + the number of times |R| / 8 can be divided by 8 while above 1. The top levels
// whose cumulative size fits the node's LLC hit (cached levels c, from level 0 down), the rest
// miss: hit ratio c / D.
// Per worker w of n, in kBatches batches: a table loop over chunk w of S with D reads of the
// index per tuple, join_cycles_per_tuple / D per read (the probe's whole cost spread over its
// levels), no updates. Pages (model/tlb.hpp): a read of level l ranges over that level's
// 8^l x 64 bytes, and adds what 4 KiB pages cost there in translation over 2 MiB pages (the top
// levels fit any TLB's reach and add nothing).
#include <cmath>

#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

double index_bytes(double build_records) {
  double total = 0.0;
  for (double level = build_records / 8.0; level >= 1.0; level /= 8.0) total += std::ceil(level) * 64.0;
  return total + 64.0;
}

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  return {
      {"S", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"index", index_bytes(d.build_records), DatasetKind::kShared},
  };
}

void plan(OperatorBuilder& b) {
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& s = b.dataset("S");
  // Levels of 8^i nodes of 64 bytes; the top levels that fit in the LLC hit, the rest miss.
  int depth = 1;
  for (double level = d.build_records / 8.0; level > 1.0; level /= 8.0) ++depth;
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const double llc = b.usable_llc_bytes(b.node_of(w));
    int cached_levels = 0;
    double cumulative = 0.0;
    for (int l = 0; l < depth; ++l) {
      cumulative += std::pow(8.0, l) * 64.0;
      if (cumulative > llc) break;
      ++cached_levels;
    }
    const double hit = static_cast<double>(cached_levels) / depth;
    if (w == 0) b.note("index depth " + std::to_string(depth) + ", " + std::to_string(cached_levels) + " levels in the LLC");
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.records / n / kBatches;
      b.table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, b.spread_of("index"), tuples * depth,
                   hit, false, c.join_cycles_per_tuple / depth);
      // Translation: level l's nodes (8^l x 64 bytes) are what a probe's access to it ranges over.
      for (int l = 0; l < depth; ++l)
        b.table_page_walks(tp, std::pow(8.0, l) * 64.0, tuples, model::BufferKind::kPlaced, Phase::kProbeTable);
      b.maybe_os_move(tp);
    }
  }
}

}  // namespace

OperatorDefinition index_join_operator() {
  return OperatorDefinition{datasets, plan};
}

}  // namespace numatwin::sim::operators
