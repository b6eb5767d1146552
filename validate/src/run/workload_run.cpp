#include "numatwin/validate/run/workload_run.hpp"

#include <map>

#include "numatwin/validate/host/kernel_interleave_weights.hpp"
#include "numatwin/validate/run/operator_run.hpp"
#include "numatwin/validate/run/shuffle_run.hpp"
#include "numatwin/validate/run/subarray_run.hpp"

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
  std::optional<NumaBalancingSwitch> balancing;
  if (options.numa_balancing) balancing.emplace(*options.numa_balancing);  // throws before any work
  // The kernel's weighted interleave reads the system-wide sysfs weights when a page is first
  // touched: set them for the run (before any data is written), restore them afterwards.
  std::optional<KernelInterleaveWeights> kernel_weights;
  const bool weighted = spec.memory.kind == sim::MemoryPolicyKind::kWeightedInterleave;
  if (weighted && options.weighted_interleave_by == WeightedInterleaveBy::kKernel) {
    if (sim::is_shuffle_family(spec.kind)) {
      throw std::invalid_argument("a shuffle places its buffers itself (each producer's on its own node), so no memory policy "
                                  "applies to it and --weighted-interleave-by kernel would change nothing");
    }
    if (!spec.memory.by_node.empty()) {
      throw std::invalid_argument("the kernel's weighted interleave has one system-wide weight vector, so per-node vectors can "
                                  "only be placed page by page (--weighted-interleave-by pages)");
    }
    const std::vector<int> os_nodes = host.os_nodes(spec.memory.global.nodes);
    std::map<int, int> weights;
    for (std::size_t i = 0; i < os_nodes.size(); ++i) weights[os_nodes[i]] = spec.memory.global.weights[i];
    kernel_weights.emplace(weights);
  }
  std::string setting_why;
  const std::optional<std::string> setting = numa_balancing_setting(setting_why);
  std::string counters_why;
  const std::optional<NumaBalancingCounters> before = read_numa_balancing_counters(counters_why);
  RealRun run = spec.kind == sim::WorkloadKind::kSubarray ? run_subarray_workload(topology, host, spec, options)
                : shuffle_kernel(spec.kind)              ? run_shuffle_workload(topology, host, spec, options)
                                                         : run_operator_workload(topology, host, spec, options);
  run.numa_balancing = setting ? *setting : setting_why;
  if (kernel_weights) {
    (void)kernel_weights->restore();
    run.weighted_interleave = "the kernel's MPOL_WEIGHTED_INTERLEAVE (mbind), " + kernel_weights->description();
  } else if (weighted) {
    run.weighted_interleave = "placed page by page in the kernel's layout (no kernel policy, no sysfs weights touched)";
  }
  const std::optional<NumaBalancingCounters> after = before ? read_numa_balancing_counters(counters_why) : std::nullopt;
  if (before && after) {
    run.numa_counters = counters_between(*before, *after);
  } else {
    run.numa_counters_why = counters_why;
  }
  return run;
}

}  // namespace numatwin::validate
