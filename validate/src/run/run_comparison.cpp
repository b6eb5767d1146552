#include "numatwin/validate/run/run_comparison.hpp"

#include <cmath>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/run/run_support.hpp"

namespace numatwin::validate {

Prediction predict_workload(const model::Topology& topology, const sim::WorkloadSpec& spec) {
  sim::check_workload(topology, spec);
  sim::Simulation simulation(topology);
  sim::SimulationOptions options;
  options.record_timeline = false;
  const sim::SimulationResult result = simulation.run(sim::build_plan(topology, spec), options);
  Prediction p;
  p.seconds = result.time_s;
  p.local_access_ratio = result.local_access_ratio();
  for (const sim::PhaseTime& phase : result.phases) {
    if (phase.wall_s > 0.0) p.phases.push_back({std::string(sim::phase_name(phase.phase)), phase.wall_s});
  }
  const int bottleneck = result.bottleneck_resource();
  p.bottleneck = bottleneck >= 0 ? result.resources[static_cast<std::size_t>(bottleneck)].name
                                 : "none saturated (each thread's own limit binds: miss buffers or core work)";
  return p;
}

double work_bytes(const sim::WorkloadSpec& spec) {
  if (sim::is_shuffle_family(spec.kind)) return spec.total_bytes;
  if (spec.kind == sim::WorkloadKind::kSubarray) return spec.data.records * spec.element_bytes;
  double tuples = spec.data.records;
  if (spec.kind == sim::WorkloadKind::kHashJoin || spec.kind == sim::WorkloadKind::kSortMergeJoin)
    tuples += spec.data.build_records;
  return tuples * spec.data.tuple_bytes;
}

std::string comparison_id(const model::Topology& topology, const sim::WorkloadSpec& spec) {
  std::string id = sim::workload_kind_name(spec.kind);
  // The non-partitioned hash join keeps its old id, so earlier reports still match.
  if (spec.kind == sim::WorkloadKind::kHashJoin && spec.join_algorithm != sim::JoinAlgorithm::kNonPartitioned)
    id += "-" + sim::join_algorithm_name(spec.join_algorithm);
  if (spec.allocation != sim::Allocation::kPreallocated) id += "-" + sim::allocation_name(spec.allocation);
  if (sim::is_shuffle_family(spec.kind) || spec.kind == sim::WorkloadKind::kSortMergeJoin)
    id += "-" + sim::algorithm_name(spec.algorithm) + "-" + sim::sync_name(spec.sync);
  // The merge phase alone keeps its old id, so earlier reports still match.
  if (spec.kind == sim::WorkloadKind::kSortMergeJoin && spec.sort_merge_phases == sim::SortMergePhases::kAll) id += "-all-phases";
  if (spec.kind == sim::WorkloadKind::kPartitionedAggregation)
    id += "-" + sim::strategy_name(spec.strategy) + "-" + sim::algorithm_name(spec.algorithm);
  if (spec.kind == sim::WorkloadKind::kSubarray)
    id += "-" + std::to_string(spec.data.chunks) + "c-" + std::to_string(spec.data.threads_per_chunk) + "pc-" +
          std::to_string(std::llround(spec.data.selectivity * 1000)) + "permille";
  else if (!sim::is_shuffle_family(spec.kind))
    id += "-" + sim::key_distribution_name(spec.data.keys) + "-" + std::to_string(std::llround(spec.data.keys.groups)) + "g";
  id += "-" + std::to_string(spec.threads) + "t-" + sim::placement_name(spec.placement);
  if (!sim::is_shuffle_family(spec.kind)) id += "-" + sim::memory_policy_name(spec.memory, topology);
  for (char& c : id) {
    if (c == ' ' || c == ':' || c == ',') c = '_';
  }
  return id;
}

KernelComparison compare_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                                  const RunOptions& options) {
  KernelComparison c;
  c.id = comparison_id(topology, spec);
  c.spec = spec;
  check_free_memory(workload_memory_bytes(spec), options);  // before anything: a run that cannot fit says so
  c.predicted = predict_workload(topology, spec);            // then: a spec the model rejects costs no run
  c.allocator = active_allocator();
  c.measured = run_workload(topology, host, spec, options);
  c.measured.huge_pages_setting = std::string(model::huge_pages_name(options.huge_pages_setting));
  c.measured.transparent_huge_pages = read_transparent_huge_pages();
  return c;
}

}  // namespace numatwin::validate
