#include "run/sort_merge_sweep.hpp"

#include <fmt/format.h>

#include "numatwin/sim/search/scheduled_orders.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "report/text_table.hpp"

namespace numatwin::cli {

std::vector<sim::WorkloadSpec> sort_merge_variants(const model::Topology& topology, const sim::WorkloadSpec& base) {
  std::vector<sim::WorkloadSpec> out;
  for (sim::ShuffleAlgorithm a :
       {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing, sim::ShuffleAlgorithm::kScheduled}) {
    sim::WorkloadSpec s = base;
    s.algorithm = a;
    s.producer_orders.clear();
    if (a == sim::ShuffleAlgorithm::kScheduled) s.producer_orders = sim::scheduled_orders(topology, s).producer_orders;
    out.push_back(std::move(s));
  }
  return out;
}

std::string sort_merge_phase_table(const std::vector<SortMergePoint>& points) {
  TextTable table({"threads", "order", "time s", "gain over naive", "sort s", "partition s",
                   "gather s", "merge s"});
  double naive_s = 0.0;
  for (const SortMergePoint& p : points) {
    const sim::SimulationResult& r = p.result;
    if (p.order == "naive") naive_s = r.time_s;
    const double merge =
        r.phase(sim::Phase::kReadInput).wall_s + r.phase(sim::Phase::kSortMerge).wall_s;
    table.add_row({std::to_string(p.threads), p.order, fmt::format("{:.4g}", r.time_s),
                   naive_s > 0.0 ? fmt::format("{:.3f}x", naive_s / r.time_s) : "-",
                   fmt::format("{:.4g}", r.phase(sim::Phase::kSort).wall_s),
                   fmt::format("{:.4g}", r.phase(sim::Phase::kPartition).wall_s),
                   fmt::format("{:.4g}", r.phase(sim::Phase::kGather).wall_s),
                   fmt::format("{:.4g}", merge)});
  }
  return "per phase (wall s; sort: the fact runs and the dimension runs; merge: read input + "
         "sort/merge):\n" +
         table.render();
}

}  // namespace numatwin::cli
