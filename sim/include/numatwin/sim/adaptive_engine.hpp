// The adaptive engine: a fluid discrete-event simulation of a column store over time
// (Psaroudakis et al.; docs/adaptive.md has the whole model and every parameter's source).
//
// State: per socket a worker pool (W workers, one per core unless the scenario says otherwise)
// and per-class FIFO queues of tasks; table parts on sockets; clients; at most one placer
// operation in flight.
// Rates: every running task is a stream on its own core (worker socket -> the memory of its
// part's socket, rate limit frequency / cycles_per_byte), a placer operation is a copy stream
// limited to page_bytes / cost_per_page; the bandwidth model (model/bandwidth_model.hpp) shares
// memory controllers and links max-min among all of them. Cores of a socket are
// interchangeable, so rates depend only on how many tasks of each (worker socket, data socket,
// class) run, which keys a cache of solutions; a change of counts alone is solved again after
// at most rate_refresh_s (AdaptiveRunOptions), a new group or copy at once.
// Time advances to the next event:
//     dt = min(task remaining / rate, operation phase remaining / rate, next sample,
//              next placer period, next timeline bin, next client start, end)
// and between events rates are constant, so utilisation integrals are exact.
//
// Placer operations (one at a time; their copy stream holds one worker of the socket it runs on):
//     move       copy the part to the cold socket (pages x move cost at full speed), then switch;
//     partition  rewrite the part locally (pages x partition cost), then copy half of it to the
//                cold socket (pages / 2 x move cost), then split it into two parts;
//     merge      copy every part of the table that is elsewhere to the target, one after the other,
//                then join them into one part.
// Queries keep reading the old layout meanwhile (slowed by the copy's traffic and the held
// worker); queued tasks follow their data when the layout switches. The placer takes no
// snapshot until a whole period has passed since the last switch, so every socket's recent
// window describes the current layout (not the parts that just left it, nor the copy).
//
// Default per-page costs when the scenario gives none (derived_page_costs): one copy stream on
// an idle machine, mean over socket pairs, move = page_bytes / remote copy rate and
// partition = page_bytes / local copy rate. Reported as derived, never silently.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/adaptive_placer.hpp"
#include "numatwin/sim/adaptive_scenario.hpp"

namespace numatwin::sim {

// Nodes with cores and memory, in topology order: socket k of a scenario is element k.
std::vector<model::NodeIndex> adaptive_sockets(const model::Topology& topology);

PageCosts derived_page_costs(const model::Topology& topology, double page_bytes);

struct AdaptiveRunOptions {
  double timeline_bin_s = 1.0;
  // Rates are solved again at once when a new (worker socket, data socket, class) group starts
  // or the placer's copy changes; when only counts within running groups change, at most this
  // often (tasks finishing and starting within the same groups shift rates little).
  double rate_refresh_s = 0.01;
};

struct AdaptiveTimelinePoint {
  double begin_s = 0.0;
  double end_s = 0.0;
  double queries_per_s = 0.0;
  double bytes_per_s = 0.0;  // streamed by tasks
  std::vector<double> class_queries_per_s;
  std::vector<double> socket_cpu_share;             // busy workers / workers, time-weighted
  std::vector<double> socket_memory_bytes_per_s;    // at its controller (every stream, copies too)
  std::vector<double> socket_memory_utilisation;    // of its controller
  int steals = 0;
};

struct AdaptivePlacerEvent {
  double decided_s = 0.0;
  double done_s = -1.0;  // -1: still running at the end
  PlacerDecision decision;
  std::string table;
  double bytes = 0.0;  // copied
};

struct AdaptivePart {
  std::string table;
  int socket = 0;
  double bytes = 0.0;
};

struct AdaptiveClassStats {
  std::string name;
  long queries = 0;
  long tasks = 0;
  long stolen_tasks = 0;
  double task_bytes_per_s = 0.0;  // mean over the run: bytes / task-seconds
  double ema_task_bytes_per_s = 0.0;
  bool stealing_allowed_at_end = true;
};

struct AdaptiveResult {
  std::vector<std::string> sockets;  // node ids
  int workers_per_socket = 0;
  PageCosts costs;
  bool costs_derived = false;
  double stealing_threshold_bytes_per_s = std::numeric_limits<double>::infinity();
  double duration_s = 0.0;
  long queries = 0;
  double bytes = 0.0;
  double queries_per_s = 0.0;
  std::vector<AdaptiveTimelinePoint> timeline;
  std::vector<AdaptivePlacerEvent> placer_events;
  std::vector<AdaptivePart> final_placement;
  std::vector<AdaptiveClassStats> classes;
  std::vector<double> socket_cpu_share;          // whole-run means
  std::vector<double> socket_memory_utilisation;
};

// Runs the scenario (already checked: indices in range, sizes > 0, at least two sockets).
// When the scenario has no costs they are derived; with adaptive stealing and no threshold the
// caller must supply one in the scenario (calibrate_stealing). Throws std::invalid_argument for
// out-of-range indices.
AdaptiveResult run_adaptive(const model::Topology& topology, const AdaptiveScenario& scenario,
                            const AdaptiveRunOptions& options = {});

}  // namespace numatwin::sim
