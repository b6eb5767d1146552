// The sort-merge join's run (operator_run.hpp calls it): P-MPSM's merge phase alone, or all four
// phases (spec.sort_merge_phases), on data placed by spec.memory, timed per phase and verified.
//
// Merge phase only (kMerge): the fact runs (S cut into one chunk per worker) are sorted and the
// dimension runs (R sorted, worker w's run = its key range) built untimed; step k of worker w
// merges the piece of producer p's fact run in w's key range (found untimed by binary search)
// with w's whole dimension run, p the k-th producer of w's order (sim::shuffle_order). Phases
// "step k" (tight) or "merge" (loose).
//
// All phases (kAll): datasets "fact runs" (S, generated unsorted, refilled untimed before every
// repetition), "dimension chunks" (R unsorted), "dimension pieces", "dimension runs", all
// partitioned as the model's. Key ranges: R's keys are a bijection of [0, |R|), so range v is
// [|R| v / n, |R| (v + 1) / n): run v fills exactly chunk v of "dimension runs". Timed, a barrier
// after each: "sort facts" (std::sort of the worker's fact chunk in place), "partition" (the
// histogram of its dimension chunk over the ranges, then the scatter into its area of the pieces,
// chunk w), "gather" (the piece p -> w of every producer p copied into w's run in the shuffle's
// order; tight: a barrier after every piece), "sort dimension" (std::sort of the run), "merge" (as
// above, each piece found by binary search in the timed loop).
//
// Verification (options.verify): the join's matches and checksum against a reference computed in
// one thread from freshly generated R and S (R's value per key, direct-addressed); with all
// phases also every dimension run: position i of the runs holds key i with R's value for i (every
// R tuple gathered exactly once, sorted).
#pragma once

#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/host/thread_team.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

RealRun run_sort_merge_join(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                            const sim::WorkloadSpec& spec, const RunOptions& options);

// Bytes the run allocates: datasets, the sorted R (merge only) and the reference.
double sort_merge_join_memory_bytes(const sim::WorkloadSpec& spec);

}  // namespace numatwin::validate
