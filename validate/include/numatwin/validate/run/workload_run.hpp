// Running a sim::WorkloadSpec for real: the same description the simulator interprets, executed
// by real kernels with the spec's thread placement (pinned workers, host_map.hpp) and memory
// policy (placed_dataset.hpp), and the observed placement recorded with the timing.
//
// What is timed: the kernel only (data generation and placement are not), `repetitions` times
// after one untimed warm-up; `seconds` is the median. Rates divide the spec's work (bytes for
// shuffles, input tuples for operators) by `seconds`.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"
#include "numatwin/validate/host/huge_pages_state.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/host/numa_balancing.hpp"

namespace numatwin::validate {

struct RunOptions {
  int repetitions = 3;
  bool huge_pages = true;         // madvise(MADV_HUGEPAGE) on every dataset (as `validate measure`), else MADV_NOHUGEPAGE
  // What --huge-pages asked for (on and madvise both advise every dataset: huge_pages_state.hpp).
  model::HugePages huge_pages_setting = model::HugePages::kOn;
  bool verify = true;             // check the result (against the reference on small inputs, by invariants otherwise)
  double memory_fraction = 0.7;   // of the machine's free memory: larger runs are refused up front
  const std::atomic<bool>* stop = nullptr;  // checked between repetitions
  // Automatic NUMA balancing during the run: nullopt leaves the system's setting; true / false
  // switch it on / off for the run and restore it (numa_balancing.hpp; an error before any work
  // when it cannot be switched).
  std::optional<bool> numa_balancing;
  // A weighted-interleave memory policy: placed page by page, or by the kernel's own policy with
  // its sysfs weights set for the run and restored (memory_placement.hpp, WeightedInterleaveBy).
  WeightedInterleaveBy weighted_interleave_by = WeightedInterleaveBy::kPages;
};

struct ThreadObservation {
  int worker = 0;
  int model_cpu = 0;      // sim CPU id
  int intended_cpu = -1;  // OS CPU it was pinned to (-1: unpinned)
  int cpu_at_start = -1;  // where it ran (sched_getcpu) when the last timed repetition started / ended
  int cpu_at_end = -1;
  int node_at_end = -1;   // Linux node of cpu_at_end
};

struct DatasetObservation {
  std::string name;
  double bytes = 0.0;
  PagePlacement pages;  // observed, by move_pages
};

struct RealRun {
  double seconds = 0.0;                   // median of the timed repetitions
  std::vector<double> repetition_seconds;
  std::vector<PhaseTime> phases;          // of the median repetition, when the kernel has phases
  double work = 0.0;                      // bytes (shuffle family) or input tuples (operators)
  std::string work_unit;                  // "bytes" or "tuples"
  std::uint64_t checksum = 0;             // the kernel's result digest (same for every repetition)
  bool verified = false;
  std::string verification;               // how: "matches the reference", "checksum = sum of all elements", ...
  std::vector<ThreadObservation> threads;
  std::vector<DatasetObservation> datasets;
  bool huge_pages = false;
  // The setting asked for ("on", "off", "madvise"; "" in older reports) and the system's
  // transparent huge pages when the run ended (huge_pages_state.hpp).
  std::string huge_pages_setting;
  TransparentHugePages transparent_huge_pages;
  // Automatic NUMA balancing: the setting the run had ("0", "1", ... as in
  // /proc/sys/kernel/numa_balancing) or why there is none; what the kernel did from data
  // generation to the last repetition (nullopt: not measured, numa_counters_why says why).
  std::string numa_balancing;
  std::optional<NumaBalancingCounters> numa_counters;
  std::string numa_counters_why;
  // A weighted-interleave policy: how it was laid out ("page by page ..." or the kernel's
  // policy with the sysfs weights it ran with and what they were); empty for other policies.
  std::string weighted_interleave;
};

// Bytes a run of `spec` allocates (inputs, tables, outputs), for the up-front memory check.
double workload_memory_bytes(const sim::WorkloadSpec& spec);

// Runs `spec` on this machine, described by `topology` (a topology of this machine: discovered
// and calibrated) and mapped onto it by `host`. Throws std::invalid_argument before any work
// when the spec cannot run here (too large for `memory_fraction` of free memory, a tuple width
// the kernels lack, more threads than usable CPUs, a node that is missing) and
// std::runtime_error when verification fails.
RealRun run_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                     const RunOptions& options);

}  // namespace numatwin::validate
