// What every real kernel run shares: the pinned team the spec's thread placement asks for,
// the up-front free-memory check, timing repetitions and collecting observations.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"  // now_seconds, PhaseTime
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/host/thread_team.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

// The model's placement of spec.threads threads and the OS CPU of each (kUnpinned for "none":
// the OS places them, as the model's OS default assumes).
struct TeamPlan {
  std::vector<sim::PlacedThread> model_threads;
  std::vector<int> os_cpus;
};
TeamPlan plan_team(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec);

// Throws std::invalid_argument ("needs X GiB, Y GiB free; at most Z allowed (--memory-fraction)")
// when `bytes` exceed options.memory_fraction of MemAvailable.
void check_free_memory(double bytes, const RunOptions& options);
// MemAvailable from /proc/meminfo, in bytes (0 when unknown).
double available_memory_bytes();

// Runs one untimed warm-up and options.repetitions timed repetitions of `repetition`, which
// returns its seconds and fills its phases; stores the median's seconds and phases in `run`.
// Stops early (after at least one timed repetition) when options.stop is set.
void time_repetitions(const RunOptions& options, RealRun& run,
                      const std::function<double(std::vector<PhaseTime>& phases)>& repetition);

// Fills run.threads from the team (after the last repetition) and run.datasets from `datasets`.
void record_observations(const TeamPlan& plan, const ThreadTeam& team, const std::vector<const PlacedDataset*>& datasets,
                         RealRun& run);

}  // namespace numatwin::validate
