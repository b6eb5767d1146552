// The adaptive engine: a fluid discrete-event simulation of a column store over time
// (Psaroudakis et al.; docs/adaptive.md has the whole model and every parameter's source).
//
// State: per socket a worker pool (W workers, one per core unless the scenario says otherwise)
// and per-class FIFO queues of tasks; table parts on sockets; clients; at most one placer
// operation in flight.
// Rates: every running task is a stream on its own core (worker socket -> the memory of its
// part's socket, rate limit frequency / cycles_per_byte), a placer operation is a copy stream
// limited to page_bytes / cost_per_page; the bandwidth model (model/bandwidth_model.hpp) shares
// memory controllers and links max-min among all of them. Time advances from event to event
// (task or copy phase done, sample, placer period, timeline bin, client start, end); rates are
// constant between events, so utilisation integrals are exact.
//
// The engine's parts (event loop, queries, dispatch and stealing, rates, the placer's
// operations, timeline) are files in sim/src, each with its rules at the top; their shared
// state and the list of files are in sim/src/adaptive/adaptive_engine_state.hpp.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/adaptive/adaptive_placer.hpp"
#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim {

// Nodes with cores and memory, in topology order: socket k of a scenario is element k.
std::vector<model::NodeIndex> adaptive_sockets(const model::Topology& topology);

// Default per-page costs when the scenario gives none: one copy stream on an idle machine, mean
// over socket pairs, move = page_bytes / remote copy rate and partition = page_bytes / local
// copy rate. Reported as derived (AdaptiveResult::costs_derived), never silently.
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

struct AdaptivePart {
  std::string table;
  int socket = 0;
  double bytes = 0.0;
};

// What one table of an operation cost: the bytes copied for it (a partition counts its local
// rewrite and the copy of the half that leaves).
struct AdaptiveTableCopy {
  std::string table;
  double bytes = 0.0;
};

// A placer decision as carried out. A table in a group (adaptive_table_groups.hpp) is moved,
// split or merged together with the matching parts of the group's other tables: `copies` has
// every table the operation touched, `parts_after` where their parts are once it is done.
struct AdaptivePlacerEvent {
  double decided_s = 0.0;
  double done_s = -1.0;  // -1: still running at the end
  PlacerDecision decision;
  std::string table;  // the table the decision names (the group's first table for a group)
  std::string group;  // its table group, "" for a table in none
  double bytes = 0.0;  // copied, over every table
  std::vector<AdaptiveTableCopy> copies;  // per table, in table order
  std::vector<AdaptivePart> parts_after;  // the tables' live parts after the switch (empty until done)
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

// Per query type (adaptive_query_plan.hpp): what its queries cost, phase by phase. Seconds are
// task-seconds (worker time, summed over the tasks); remote bytes were read from another socket
// than the one of the worker that ran the task.
struct AdaptivePhaseStats {
  double task_seconds = 0.0;
  double bytes = 0.0;
  double remote_bytes = 0.0;
  long tasks = 0;
};

struct AdaptiveQueryTypeStats {
  std::string name;
  long queries = 0;
  double latency_s = 0.0;  // summed over completed queries (issue to last task)
  AdaptivePhaseStats phases[kAdaptivePhaseCount];
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
  // The placer's last snapshot that led to no decision: when, and why (adaptive_placer.hpp's
  // reason: under the thresholds, nothing eligible, history shorter than the window); -1: none.
  double placer_last_idle_s = -1.0;
  std::string placer_last_idle_reason;
  std::vector<AdaptivePart> final_placement;
  std::vector<AdaptiveClassStats> classes;
  std::vector<AdaptiveQueryTypeStats> query_types;
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
