// The merge phase of P-MPSM (Albutiu et al.): every worker merges its dimension run with the
// fact range that each producer's run holds for it, in the shuffle's order (naive or ring, tight
// or loose).
//
// Datasets: fact runs and dimension runs (both partitioned over the workers).
// Per worker w of n and step k (producer p): a scan of p's fact piece of |facts| / n^2 tuples
// (merge_cycles_per_tuple each) and of w's whole dimension run of |dims| / n tuples
// (scan_cycles_per_tuple each).
#include "numatwin/sim/shuffle_plan.hpp"
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  return {
      {"fact runs", d.records * d.tuple_bytes, DatasetKind::kPartitioned},
      {"dimension runs", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned},
  };
}

void plan(OperatorBuilder& b) {
  const WorkloadSpec& spec = b.spec();
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& facts = b.dataset("fact runs");
  const DataPlacement& dims = b.dataset("dimension runs");
  const ShuffleOrder order = shuffle_order(b.threads(), spec.algorithm, spec.seed, spec.producer_orders);
  const double fact_piece = d.records / (static_cast<double>(n) * n);
  const double dim_run = d.build_records / n;
  b.set_steps(n);
  for (int o = 0; o < n; ++o) {
    const int w = order.outer[o];
    ThreadPlan& tp = b.thread_plan(w);
    for (int k = 0; const int producer : order.producers[o]) {
      // Merge the producer's fact range for this worker with the worker's whole dimension run.
      OperatorBuilder::scan(tp, facts.chunk(producer, n), fact_piece * d.tuple_bytes, fact_piece * c.merge_cycles_per_tuple, k,
                            Phase::kReadInput, Phase::kSortMerge, 1.0);
      OperatorBuilder::scan(tp, dims.chunk(w, n), dim_run * d.tuple_bytes, dim_run * c.scan_cycles_per_tuple, k);
      if (spec.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
      b.maybe_os_move(tp);
      ++k;
    }
  }
}

}  // namespace

OperatorDefinition sort_merge_join_operator() {
  return OperatorDefinition{datasets, plan, true};
}

}  // namespace numatwin::sim::operators
