// `numatwin validate run --workload shuffle|migration|migration-copy --schedule FILE`: the
// schedule file (docs/shuffle-schedule-format.md, read by libnumatwin-shuffle) becomes the fourth
// of four runs measured and predicted side by side: naive, ring, random and the file's order
// (algorithm "scheduled"), each with the run's workload, sync, placement, bytes and seed. The
// file's `workload` must be the run's (a file without one is a shuffle's).
//
// Threads: the file's unless --threads is given, which must then agree with it. The run places
// its threads by --placement on the run's topology; where that differs from the file (another
// machine, other CPUs) a note says so, since the order is then measured on a placement it was
// not designed for.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::cli {

struct ScheduleComparison {
  std::vector<sim::WorkloadSpec> specs;  // naive, ring, random, scheduled
  std::vector<std::string> notes;        // where the file and the run differ, one line each
};

// Throws std::invalid_argument for workloads other than shuffle, migration and migration-copy,
// and the reader's one-line errors (numatwin::shuffle::ScheduleFileError) for bad files, files
// for another workload (/workload) and thread counts that disagree (/threads).
ScheduleComparison schedule_comparison(const model::Topology& topology, const sim::WorkloadSpec& spec, const std::string& file,
                                       bool threads_given);

}  // namespace numatwin::cli
