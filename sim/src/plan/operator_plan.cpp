// Operator plans: the operator of a spec (one file per operator in operators/, sharing the
// builder's scan and table-loop helpers in operators/operator_builder.hpp), and the rules shared
// with the real kernels (radix partition bits, a core's private cache).
#include "numatwin/sim/plan/operator_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "operators/operator_builder.hpp"

namespace numatwin::sim {
namespace {

operators::OperatorDefinition operator_definition(const WorkloadSpec& spec) {
  switch (spec.kind) {
    case WorkloadKind::kCountAggregation:
    case WorkloadKind::kMedianAggregation: return operators::aggregation_operator();
    case WorkloadKind::kHashJoin:
      return spec.join_algorithm == JoinAlgorithm::kRadix ? operators::radix_join_operator() : operators::hash_join_operator();
    case WorkloadKind::kIndexJoin: return operators::index_join_operator();
    case WorkloadKind::kPartitionedAggregation: return operators::partitioned_aggregation_operator();
    case WorkloadKind::kSortMergeJoin: return operators::sort_merge_join_operator();
    case WorkloadKind::kSubarray: return operators::subarray_operator();
    default: throw std::invalid_argument("workload " + workload_kind_name(spec.kind) + " is not an operator");
  }
}

}  // namespace

std::vector<ThreadGroup> interchangeable_threads(const WorkloadSpec& spec) {
  if (spec.kind == WorkloadKind::kSubarray) return operators::subarray_chunk_groups(spec);
  ThreadGroup all;
  for (int w = 0; w < spec.threads; ++w) all.threads.push_back(w);
  return {all};
}

double private_cache_bytes(const model::Node& node) {
  double best = 0.0;
  for (const model::CacheLevel& c : node.caches)
    if (c.shared_by_cores <= 1) best = std::max(best, static_cast<double>(c.size_bytes));
  return best;
}

int index_depth(double build_records) {
  int depth = 1;
  for (double level = build_records / 8.0; level > 1.0; level /= 8.0) ++depth;
  return depth;
}

IndexLevels index_levels(int depth, double private_bytes, double llc_bytes) {
  IndexLevels out;
  out.depth = depth;
  double cumulative = 0.0;
  for (int l = 0; l < depth; ++l) {
    cumulative += std::pow(8.0, l) * 64.0;
    if (cumulative <= private_bytes) out.in_private = l + 1;
    if (cumulative <= llc_bytes) out.in_llc = l + 1;
  }
  out.in_private = std::min(out.in_private, out.in_llc);
  return out;
}

int radix_partition_bits(double build_records, double cache_bytes, int entry_bytes) {
  const double per_partition = std::max(1.0, std::floor(std::max(cache_bytes, 0.0) / 2.0 / (2.0 * std::max(1, entry_bytes))));
  int bits = 0;
  while (bits < kMaxRadixBits && build_records / std::ldexp(1.0, bits) > per_partition) ++bits;
  return bits;
}

Plan build_operator_plan(const model::Topology& topology, const WorkloadSpec& spec, PlanReport* report) {
  return operators::OperatorBuilder(topology, spec, operator_definition(spec)).build(report);
}

Plan build_plan(const model::Topology& topology, const WorkloadSpec& spec, PlanReport* report) {
  check_allocation(spec);
  if (!is_shuffle_family(spec.kind)) return build_operator_plan(topology, spec, report);
  Plan plan = build_shuffle_plan(topology, spec);
  if (report != nullptr) report->threads = place_threads(topology, spec.threads, spec.placement);
  return plan;
}

}  // namespace numatwin::sim
