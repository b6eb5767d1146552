// The index nested-loop join (Memarzia et al.'s W4): S probes a prebuilt index on R.
//
// Datasets: S (partitioned), the index (shared): a B+-tree of 64-byte nodes holding 8 keys each,
//   index bytes = 64 + sum over levels l >= 1 of ceil(|R| / 8^l) x 64.
// Depth D = 1 + the number of times |R| / 8 can be divided by 8 while above 1. From the root
// down, the levels whose cumulative size fits the core's private cache hit there (p levels), the
// next ones that fit the node's usable LLC hit the LLC (c - p levels), the rest miss
// (operator_plan.hpp: index_levels): per access, private hit ratio p / D, hit ratio c / D.
// Per worker w of n, in kBatches batches: a table loop over chunk w of S with D reads of the
// index per tuple, index_cycles_per_level each (the in-core search of one node and the child's
// prefetch; the leaf's match test, a few cycles a tuple, is left out), no updates. Pages
// (model/tlb.hpp): a read of level l ranges over that level's 8^l x 64 bytes, and adds what 4 KiB
// pages cost there in translation over 2 MiB pages (the top levels fit any TLB's reach and add
// nothing).
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
  const int depth = index_depth(d.build_records);
  for (int w = 0; w < n; ++w) {
    ThreadPlan& tp = b.thread_plan(w);
    const model::Node& node = b.node_of(w);
    const IndexLevels levels = index_levels(depth, private_cache_bytes(node), b.usable_llc_bytes(node));
    const double hit = static_cast<double>(levels.in_llc) / depth;
    const double private_hit = static_cast<double>(levels.in_private) / depth;
    if (w == 0)
      b.note("index depth " + std::to_string(depth) + ": " + std::to_string(levels.in_private) + " levels in the private cache, " +
             std::to_string(levels.in_llc - levels.in_private) + " in the LLC, " + std::to_string(depth - levels.in_llc) + " in memory");
    for (int batch = 0; batch < kBatches; ++batch) {
      const double tuples = d.records / n / kBatches;
      b.table_loop(tp, w, s.chunk(w, n), tuples * d.tuple_bytes, tuples * c.scan_cycles_per_tuple, b.spread_of("index"), tuples * depth,
                   hit, false, c.index_cycles_per_level, -1, 0.0, private_hit);
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
