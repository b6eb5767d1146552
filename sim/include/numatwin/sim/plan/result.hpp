// What a simulation returns: totals, a utilisation timeline of every memory controller and
// link, per-step statistics and the local access ratio.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/sim/plan/plan.hpp"

namespace numatwin::sim {

struct ResourceInfo {
  std::string name;  // "mc:s0", "s0->s1", "fwd:r0"
  model::ResourceKind kind = model::ResourceKind::kLink;
  double capacity_bytes_per_s = 0.0;
};

// Utilisation (load / capacity, 0..1) of every resource, constant over [begin_s, end_s).
struct TimelineSegment {
  double begin_s = 0.0;
  double end_s = 0.0;
  std::vector<float> utilisation;  // per resource
  int active_transfers = 0;
};

struct StepStats {
  int step = 0;
  double begin_s = 0.0;  // first transfer of the step started
  double end_s = 0.0;    // last transfer of the step finished
  double bytes = 0.0;
  std::vector<float> mean_utilisation;  // per resource, time-averaged over [begin_s, end_s)
};

// Thread-seconds spent in one phase (plan.hpp: Phase) over the run, summed over threads.
// thread_s = core_s + memory_s + the rest (waiting: barriers, the OS's re-binding, finished).
struct PhaseTime {
  Phase phase = Phase::kOther;
  double thread_s = 0.0;
  double core_s = 0.0;    // the core working (compute, or the core-bound part of a transfer)
  double memory_s = 0.0;  // waiting for memory beyond the core's work (the memory-bound part)
  // Of core_s: waiting on cache hits (plan.hpp: Transfer::cache_share, Compute::cache_share).
  double cache_s = 0.0;
  // What the phase's memory transfers alone would take (their bytes at the rate memory allowed
  // them at each moment: bandwidth_model.hpp's memory_rate_bytes_per_s), whether the core's work
  // hid it or not: = memory_s + the part overlapped by core work. Per thread, summed as thread_s
  // is; a lower bound where a core-bound stream, unlimited, would have loaded a resource further.
  double memory_alone_s = 0.0;
  // What the phase's streams spent moving their lines through the in-cache levels that do not
  // overlap (model/ecm.hpp: bytes x s t_serial), hidden under the memory's latency or the core's
  // work or not; 0 on a machine whose file gives no core_data_path.
  double cache_transfer_s = 0.0;
  // Core work of another phase that this phase's transfers carried (a table loop's scan carries
  // the table's work, plan.hpp: Transfer::core_phase): counted in that phase's core_s, and here
  // only to say what bounds this one.
  double core_carried_s = 0.0;
  double bytes = 0.0;     // payload moved by the phase's transfers
  // Wall-clock seconds: each interval of the run split equally among the threads that work in it
  // (not waiting at a barrier, not finished), each adding its share to its phase. They add up to
  // time_s: what the run spends its time on, with waiting threads left out.
  double wall_s = 0.0;
};

// What bounds a phase, the way the Execution-Cache-Memory model reads a loop (kerncraft; the
// model overlaps the core's work with the data transfers, model/ecm.hpp): the largest of the
// core's time (core_s + core_carried_s), the memory's alone (memory_alone_s) and the in-cache
// transfers' (cache_transfer_s: kCache when it is the largest). When the core's is:
// kCarried if the carried work is most of it (a scan held by the table work it carries), else
// kCache if cache waits are most of core_s, else kCore. kNone for a phase with no core or memory
// time (barrier waits, re-binding).
enum class PhaseBound { kNone, kCore, kCache, kMemory, kCarried };
PhaseBound phase_bound(const PhaseTime& p);
const char* phase_bound_name(PhaseBound bound);

// A named stage of a run (plan.hpp: a Barrier's ends_stage, Plan::final_stage): from the
// release of the barrier that ended the stage before (or 0) to the release of its own barrier
// (or the run's end). Stages follow one another, so their spans add up to time_s.
struct StageSpan {
  std::string name;
  double begin_s = 0.0;
  double end_s = 0.0;
};

// What held the working threads back, in thread-seconds over the run (bandwidth_model.hpp:
// StreamLimit): a transfer is held by a saturated resource, by its share of the core's miss
// buffers over the loaded latency (Little's law), or by its own core-bound rate; a compute
// (timed on the core) is the core's, but for its share of dependent misses timed by their
// latency (Compute::memory_share), which is the miss buffers'. Waiting threads (barriers,
// re-binding, finished) count in none.
struct BoundTime {
  double resource_s = 0.0;      // a saturated memory controller or link
  double miss_buffers_s = 0.0;  // outstanding misses over the loaded latency
  double core_s = 0.0;          // the core's work: computes and core-bound transfers
  double cache_path_s = 0.0;    // the core's in-cache path (model/ecm.hpp: the file's core_data_path)
  [[nodiscard]] double total_s() const { return resource_s + miss_buffers_s + core_s + cache_path_s; }
};

struct SimulationResult {
  double time_s = 0.0;
  double bytes = 0.0;        // payload of every transfer (memory traffic; a copy counts once)
  double local_bytes = 0.0;  // memory accesses by a thread to its own node's memory
  double remote_bytes = 0.0;
  std::vector<ResourceInfo> resources;
  std::vector<TimelineSegment> timeline;
  std::vector<StepStats> steps;
  std::vector<double> mean_utilisation;    // per resource over the whole run
  std::vector<double> saturated_fraction;  // per resource: share of the run spent saturated
  int events = 0;
  int solver_rounds = 0;  // bandwidth-model rounds over all events
  // One entry per Phase, in the enum's order; their thread_s add up to threads x time_s.
  std::vector<PhaseTime> phases;
  // The plan's named stages in time order (the whole sort-merge join's four phases); empty when
  // its barriers name none.
  std::vector<StageSpan> stages;
  BoundTime bound;

  [[nodiscard]] const PhaseTime& phase(Phase p) const { return phases.at(static_cast<std::size_t>(p)); }
  [[nodiscard]] double thread_seconds() const {
    double sum = 0.0;
    for (const PhaseTime& p : phases) sum += p.thread_s;
    return sum;
  }

  // Memory traffic per second. Not the work rate: an operator's input per second is
  // workload_input(spec) / time_s (workload_input.hpp); for a shuffle the two differ by the
  // state that migration moves.
  [[nodiscard]] double memory_traffic_gbps() const { return time_s > 0.0 ? bytes / time_s / 1e9 : 0.0; }
  [[nodiscard]] double local_access_ratio() const {
    const double all = local_bytes + remote_bytes;
    return all > 0.0 ? local_bytes / all : 1.0;
  }
  // A resource counts as saturated at this utilisation or above.
  static constexpr double kSaturatedUtilisation = 0.99;

  // Resource with the highest mean utilisation (first on ties), or -1 without resources.
  [[nodiscard]] int busiest_resource() const;
  // Resource saturated for the largest share of the run (first on ties), or -1 if none ever was.
  [[nodiscard]] int bottleneck_resource() const;
};

}  // namespace numatwin::sim
