#include "numatwin/validate/workload_run.hpp"

#include "numatwin/validate/operator_run.hpp"
#include "numatwin/validate/shuffle_run.hpp"
#include "numatwin/validate/subarray_run.hpp"

namespace numatwin::validate {
namespace {

bool shuffle_kernel(sim::WorkloadKind kind) {
  return sim::is_shuffle_family(kind) || kind == sim::WorkloadKind::kPartitionedAggregation;
}

}  // namespace

double workload_memory_bytes(const sim::WorkloadSpec& spec) {
  if (spec.kind == sim::WorkloadKind::kSubarray) return subarray_memory_bytes(spec);
  return shuffle_kernel(spec.kind) ? shuffle_memory_bytes(spec) : operator_memory_bytes(spec);
}

RealRun run_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                     const RunOptions& options) {
  if (spec.kind == sim::WorkloadKind::kSubarray) return run_subarray_workload(topology, host, spec, options);
  return shuffle_kernel(spec.kind) ? run_shuffle_workload(topology, host, spec, options)
                                   : run_operator_workload(topology, host, spec, options);
}

}  // namespace numatwin::validate
