#include "numatwin/sim/workload/workload_input.hpp"

namespace numatwin::sim {

WorkloadInput workload_input(const WorkloadSpec& spec) {
  if (is_shuffle_family(spec.kind)) return WorkloadInput{spec.total_bytes / spec.element_bytes, spec.total_bytes};
  if (spec.kind == WorkloadKind::kSubarray) return WorkloadInput{spec.data.records, spec.data.records * spec.element_bytes};
  const bool both_sides = spec.kind == WorkloadKind::kHashJoin || spec.kind == WorkloadKind::kSortMergeJoin;
  const double tuples = spec.data.records + (both_sides ? spec.data.build_records : 0.0);
  return WorkloadInput{tuples, tuples * spec.data.tuple_bytes};
}

double headline_rate(const WorkloadSpec& spec, double time_s) {
  if (!(time_s > 0.0)) return 0.0;
  const WorkloadInput in = workload_input(spec);
  return is_shuffle_family(spec.kind) ? in.bytes / time_s / 1e9 : in.tuples / time_s / 1e6;
}

}  // namespace numatwin::sim
