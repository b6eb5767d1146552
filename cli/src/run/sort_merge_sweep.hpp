// `sweep --workload sort-merge-join`: the study's question (Li et al., issue 18 item 4): how much
// the P-MPSM sort-merge join gains from a better shuffle order as threads grow, per phase.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/result.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::cli {

// The orders compared: naive, ring and the order numatwin designs for the machine (algorithm
// scheduled; sim::design_schedule on the spec's thread placement, with the merge's fact piece of
// records x tuple_bytes / threads^2 as the piece size), each with the base spec's sync.
std::vector<sim::WorkloadSpec> sort_merge_variants(const model::Topology& topology,
                                                   const sim::WorkloadSpec& base);

// One sweep point: a variant's predicted run.
struct SortMergePoint {
  int threads = 0;
  std::string order;  // naive, ring, designed
  sim::SimulationResult result;
};

// Wall seconds per P-MPSM phase (sim::PhaseTime::wall_s: sort = phase 1 and phase 3's run sort,
// partition, gather, merge = read input + sort/merge; barrier waits are no one's wall time) and
// each order's gain over naive at the same thread count: naive time / order's time.
std::string sort_merge_phase_table(const std::vector<SortMergePoint>& points);

}  // namespace numatwin::cli
