// P-MPSM, the sort-merge join of Albutiu et al. (../docs/algorithms.md §1): the merge phase alone
// (SortMergePhases::kMerge, the default: the runs are prebuilt) or all four phases (kAll).
// n workers, S = records fact tuples, R = build_records dimension tuples, b = tuple_bytes.
//
// (1) sort facts      worker w sorts its fact chunk of s = S / n tuples in place ("sort").
// (2) partition R     worker w scans its dimension chunk of r = R / n tuples for a histogram of
//                     the n key ranges (scan_cycles_per_tuple each, "partition"), then scatters
//                     it into its own "dimension pieces" area, piece w -> v holding the tuples of
//                     v's range (partition_cycles_per_tuple each, "partition"): 2 r b read
//                     (histogram and scatter), r b written, all where w's chunks live.
// (3) gather and sort worker w copies piece p -> w of r / n tuples from every producer p into
//                     its dimension run (scan_cycles_per_tuple per tuple copied, "gather"), in the
//                     shuffle's order (naive, ring, random, scheduled: shuffle_plan.hpp's
//                     shuffle_order), tight (a barrier after every step) or loose: over all
//                     workers R b read from the producers' nodes, R b written where the runs
//                     live; then sorts its run of R / n tuples ("sort").
// (4) merge           step k of worker w (producer p, k-th of w's order): a scan of p's fact piece
//                     of S / n^2 tuples (merge_cycles_per_tuple each, "read input" carrying
//                     "sort/merge") and of w's whole dimension run of R / n tuples
//                     (scan_cycles_per_tuple each); tight or loose as the spec says.
// A barrier ends every phase and the gather before the run's sort, as in the kernel, which times
// each between them (phase 2 needs none of phase 1's output, phase 4 only the worker's own run of
// phase 3; the barriers cost what the slowest worker's lead is worth). The gather's copies carry
// no step tag: the steps are the merge's, as with the merge phase alone. The barriers that end
// phases 1-3 name them, and the merge is the plan's final stage, so a result's `stages` give each
// phase's span of the run (the GUI's phase bar; `predict --phases`).
//
// Sort of m tuples (m b bytes) by one worker: m log2 m comparisons of sort_cycles_per_comparison
// (introsort, as the kernel's std::sort) as the core work, overlapping the memory passes. A pass
// reads and writes the run back in place; the recursion splits the run in two per level, and its
// levels go to memory until a part fits in the worker's share of its node's usable LLC, c bytes:
//     passes = 1 + max(0, log2(m b / c))
// (model assumption, no measured source: every level before a part fits streams the run once;
// the level where it fits is the last to come from memory; c is at least one cache line).
//
// Traffic by placement (first-touch: every worker's chunks on its node): phase 1, 2 and the sorts
// are local; of phase 3's R b, a share (n_node / n) of every worker's gathered pieces comes from
// its own node (its node's producers), the rest remotely: 2 workers on 2 nodes move half of R
// remotely. Phase 4 reads (n - n_node) / n of the facts remotely, as the merge-only model.
//
// Datasets: fact runs (partitioned; phase 1 sorts them in place) and dimension runs (partitioned);
// with all phases also "dimension chunks" (R, partitioned) and "dimension pieces" (partitioned:
// each worker writes its own), allocated before the dimension runs.
#include <algorithm>
#include <cmath>

#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "operator_builder.hpp"

namespace numatwin::sim::operators {
namespace {

// The four phases as named stages (SimulationResult::stages), in the kernel's terms.
constexpr std::string_view kStageSortFacts = "sort facts";
constexpr std::string_view kStagePartition = "partition dimension";
constexpr std::string_view kStageGatherSort = "gather + sort dimension";
constexpr std::string_view kStageMerge = "merge";

bool all_phases(const WorkloadSpec& spec) {
  return spec.sort_merge_phases == SortMergePhases::kAll;
}

std::vector<DatasetRequest> datasets(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  std::vector<DatasetRequest> out{
      {"fact runs", d.records * d.tuple_bytes, DatasetKind::kPartitioned}};
  if (all_phases(spec)) {
    out.push_back({"dimension chunks", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned});
    out.push_back({"dimension pieces", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned});
  }
  out.push_back({"dimension runs", d.build_records * d.tuple_bytes, DatasetKind::kPartitioned});
  return out;
}

double sort_memory_passes(double run_bytes, double cache_bytes) {
  return 1.0 + std::max(0.0, std::log2(run_bytes / cache_bytes));
}

// Worker w sorts `tuples` tuples in place where `spread` says (the maths at the top).
void sort_run(OperatorBuilder& b, ThreadPlan& tp, int w, const SharedSpread& spread, double tuples) {
  const DataSpec& d = b.data();
  if (tuples <= 0.0) return;
  const double bytes = tuples * d.tuple_bytes;
  const double cache =
      std::max(b.line_bytes(), b.cached_entries(w, d.tuple_bytes, true) * d.tuple_bytes);
  const double passes = sort_memory_passes(bytes, cache);
  const double comparisons = tuples > 1.0 ? tuples * std::log2(tuples) : 0.0;
  Transfer tr;
  tr.read_spread = spread;
  tr.write_spread = spread;
  tr.bytes = bytes * passes;
  tr.cycles_per_byte = comparisons * b.costs().sort_cycles_per_comparison / tr.bytes;
  tr.phase = Phase::kSort;
  tp.ops.emplace_back(std::move(tr));
}

// Phases 1 to 3 of worker w (the maths at the top).
void sort_and_gather(OperatorBuilder& b, const ShuffleOrder& order, int o) {
  const WorkloadSpec& spec = b.spec();
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const int w = order.outer[o];
  ThreadPlan& tp = b.thread_plan(w);
  const DataPlacement& facts = b.dataset("fact runs");
  const DataPlacement& chunks = b.dataset("dimension chunks");
  const DataPlacement& pieces = b.dataset("dimension pieces");
  const DataPlacement& runs = b.dataset("dimension runs");
  const double fact_run = d.records / n;
  const double dim_chunk = d.build_records / n;
  // (1) sort the fact chunk.
  sort_run(b, tp, w, facts.chunk(w, n), fact_run);
  tp.ops.emplace_back(Barrier{kStageSortFacts});
  // (2) histogram, then scatter into the worker's own pieces area.
  OperatorBuilder::scan(tp, chunks.chunk(w, n), dim_chunk * d.tuple_bytes,
                        dim_chunk * c.scan_cycles_per_tuple, -1, Phase::kPartition);
  Transfer scatter;
  scatter.read_spread = chunks.chunk(w, n);
  scatter.write_spread = pieces.chunk(w, n);
  scatter.bytes = dim_chunk * d.tuple_bytes;
  scatter.cycles_per_byte = c.partition_cycles_per_tuple / d.tuple_bytes;
  scatter.phase = Phase::kPartition;
  tp.ops.emplace_back(std::move(scatter));
  b.maybe_os_move(tp);
  tp.ops.emplace_back(Barrier{kStagePartition});
  // (3) gather piece p -> w from every producer p in the shuffle's order, then sort the run.
  const double piece = dim_chunk / n;
  for (const int producer : order.producers[o]) {
    Transfer copy;
    copy.read_spread = pieces.chunk(producer, n);
    copy.write_spread = runs.chunk(w, n);
    copy.bytes = piece * d.tuple_bytes;
    copy.cycles_per_byte = c.scan_cycles_per_tuple / d.tuple_bytes;
    copy.phase = Phase::kGather;  // untagged: the step tags count the merge's steps, as before
    tp.ops.emplace_back(std::move(copy));
    if (spec.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
  }
  if (spec.sync == SyncMode::kLoose)
    tp.ops.emplace_back(Barrier{});  // the kernel times the gather apart
  sort_run(b, tp, w, runs.chunk(w, n), dim_chunk);
  b.maybe_os_move(tp);
  tp.ops.emplace_back(Barrier{kStageGatherSort});
}

void plan(OperatorBuilder& b) {
  const WorkloadSpec& spec = b.spec();
  const DataSpec& d = b.data();
  const OperatorCosts& c = b.costs();
  const int n = b.workers();
  const DataPlacement& facts = b.dataset("fact runs");
  const DataPlacement& dims = b.dataset("dimension runs");
  const ShuffleOrder order =
      shuffle_order(b.threads(), spec.algorithm, spec.seed, spec.producer_orders);
  const double fact_piece = d.records / (static_cast<double>(n) * n);
  const double dim_run = d.build_records / n;
  b.set_steps(n);
  if (all_phases(spec)) b.set_final_stage(kStageMerge);
  // Each run's node spread, once, shared by the scans that read it (n x n merges read n fact runs
  // and n dimension runs), and runs spread alike share one (under a weight vector every run is
  // spread alike): the plan holds a few spreads, not 2 n^2 copies.
  std::vector<SharedSpread> fact_runs;
  std::vector<SharedSpread> dim_runs;
  std::vector<SharedSpread> distinct;
  const auto shared = [&distinct](std::vector<model::NodeShare> spread) {
    const SharedSpread candidate(std::move(spread));
    for (const SharedSpread& seen : distinct)
      if (seen == candidate) return seen;
    distinct.push_back(candidate);
    return candidate;
  };
  for (int t = 0; t < n; ++t) {
    fact_runs.push_back(shared(facts.chunk(t, n)));
    dim_runs.push_back(shared(dims.chunk(t, n)));
  }
  for (int o = 0; o < n; ++o) {
    if (all_phases(spec)) sort_and_gather(b, order, o);
    const int w = order.outer[o];
    ThreadPlan& tp = b.thread_plan(w);
    tp.ops.reserve(tp.ops.size() + 3 * order.producers[o].size());  // two scans and a barrier per step
    for (int k = 0; const int producer : order.producers[o]) {
      // (4) Merge the producer's fact range for this worker with the worker's whole dimension run.
      OperatorBuilder::scan(tp, fact_runs[static_cast<std::size_t>(producer)], fact_piece * d.tuple_bytes,
                            fact_piece * c.merge_cycles_per_tuple, k, Phase::kReadInput,
                            Phase::kSortMerge, 1.0);
      OperatorBuilder::scan(tp, dim_runs[static_cast<std::size_t>(w)], dim_run * d.tuple_bytes,
                            dim_run * c.scan_cycles_per_tuple, k);
      if (spec.sync == SyncMode::kTight) tp.ops.emplace_back(Barrier{});
      b.maybe_os_move(tp);
      ++k;
    }
  }
}

}  // namespace

OperatorDefinition sort_merge_join_operator() { return OperatorDefinition{datasets, plan, true}; }

}  // namespace numatwin::sim::operators
