// What the shuffle and partitioned-aggregation runs share (internal to validate/src): timing of
// the timed part across workers, step phases of tight runs, re-pinning that never throws
// between barriers, and the per-node datasets that migration & copy copies state into.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/host/thread_team.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate::detail {

// Start (set by worker 0 after the starting barrier), per-step ends (tight runs, worker 0
// after each step's barrier) and each worker's end of a timed repetition.
struct alignas(64) WorkerEnd {
  double seconds = 0.0;
};
struct RepetitionClock {
  double start_s = 0.0;
  std::vector<double> step_end_s;
  std::vector<WorkerEnd> end_s;
  RepetitionClock(int workers, int steps) : step_end_s(static_cast<std::size_t>(steps), 0.0), end_s(static_cast<std::size_t>(workers)) {}
  // Seconds from the start to the last worker's end; "step k" phases when `tight`.
  double finish(bool tight, std::vector<PhaseTime>& phases) const;
};

// Re-pins the calling worker; a failure is kept (first one wins) instead of thrown, so that the
// other workers are not left at a barrier. rethrow() after team.run.
class PinErrors {
 public:
  void pin(int cpu);
  void rethrow();

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
};

// Rounds `bytes` up to a multiple of `to`.
[[nodiscard]] inline std::size_t round_up(std::size_t bytes, std::size_t to) { return (bytes + to - 1) / to * to; }
// Page size of the run's datasets: 2 MiB with transparent huge pages, else the base page.
[[nodiscard]] std::size_t dataset_page_bytes(bool huge_pages);

// One dataset per topology node in `nodes` (others null), preferred on that node, of
// `elements` x `element_bytes`, zero-initialised by worker 0: where migrating threads copy
// their state ("<name> n<node>").
std::vector<std::unique_ptr<PlacedDataset>> per_node_datasets(const std::string& name, const std::vector<bool>& nodes,
                                                               std::size_t elements, std::size_t element_bytes,
                                                               const HostMap& host, bool huge_pages, ThreadTeam& team);

// Partitioned aggregation (partitioned_aggregation_run.cpp).
RealRun run_partitioned_aggregation(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                                    const RunOptions& options);
double partitioned_aggregation_memory_bytes(const sim::WorkloadSpec& spec);

}  // namespace numatwin::validate::detail
