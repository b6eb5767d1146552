// The adaptive engine's state (private to sim/src; the model is described in
// sim/include/numatwin/sim/adaptive/adaptive_engine.hpp and docs/adaptive.md). One Engine runs one
// scenario; its member functions live with the part of the model they implement:
//     adaptive_engine.cpp      the event loop: setup, next event, integration, timers
//     adaptive_queries.cpp     clients, queries and their tasks
//     adaptive_dispatch.cpp    worker pools, per-class queues, task stealing
//     adaptive_rates.cpp       task and copy rates from the bandwidth model, cached per counts
//     adaptive_operations.cpp  the Data Placer's snapshots and operations (move, partition, merge)
//     adaptive_timeline.cpp    utilisation samples, timeline bins, the run's summary
//     adaptive_query_stages.cpp query types: their stages' tasks (adaptive_query_plan.hpp) and
//                              the per-type, per-phase accounting
// Sockets are numbered 0 .. S-1 (adaptive_sockets); a (worker socket w, data socket d, class c)
// group has index (w x S + d) x C + c in group_count_ and CachedRates::group_rate.
#pragma once

#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/adaptive/adaptive_engine.hpp"
#include "numatwin/sim/adaptive/adaptive_placer.hpp"
#include "numatwin/sim/adaptive/adaptive_scenario.hpp"
#include "numatwin/sim/adaptive/adaptive_table_groups.hpp"
#include "numatwin/sim/adaptive/adaptive_utilisation.hpp"

namespace numatwin::sim::adaptive_detail {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Part {
  int table = 0;
  int socket = 0;
  double bytes = 0.0;
  bool alive = true;
  SampledHistory cpu_history;  // busy workers on its tasks
  SampledHistory memory_history;  // bytes/s its tasks stream
  double cpu_integral = 0.0;
  double memory_integral = 0.0;
  Part(int t, int s, double b, double keep_s) : table(t), socket(s), bytes(b), cpu_history(keep_s), memory_history(keep_s) {}
};

struct Task {
  int query = 0;
  int part = 0;  // -1: a query type's task that follows no part (dictionary build, merge, mapping, results)
  int query_type = -1;  // -1: a plain class query
  int phase = 0;        // AdaptivePhase of a query type's task
  int read_socket = -1; // -1: its part's socket
  int task_class = 0;
  double bytes = 0.0;
  double remaining = 0.0;
  double start_s = 0.0;
  long sequence = 0;
  int worker_socket = -1;
  int data_socket = -1;
  bool stolen = false;
  bool beside_stolen = false;  // a stolen task read its data socket while it ran (adaptive_dispatch.cpp)
};

struct Query {
  int client = 0;
  int task_class = 0;  // -1: a query type's query
  int tasks_left = 0;
  int query_type = -1;
  int table = 0;
  int stage = 0;
  double issued_s = 0.0;
};

// Per query type: queries, their latency, and per phase the task-seconds, bytes and the bytes
// read from another socket than the worker's (adaptive_query_stages.cpp).
struct QueryTypeTracking {
  std::vector<AdaptiveQueryTypeStats> stats;
};

struct Client {
  int group = 0;
  bool started = false;
};

struct OperationPhase {
  int read_socket = 0;
  int write_socket = 0;
  int run_socket = 0;  // holds one worker there
  double bytes = 0.0;
  double limit_bytes_per_s = 0.0;
};

struct Operation {
  int event = 0;  // index into placer_events
  PlacerDecision decision;
  std::vector<int> members;  // move, partition: the unit's parts (adaptive_table_groups.hpp); merge: the group's tables
  std::vector<OperationPhase> phases;
  std::size_t phase = 0;
  double remaining = 0.0;
};

struct CachedRates {
  std::vector<double> group_rate;  // [(worker * S + data) * C + class]
  double operation_rate = 0.0;
  std::vector<double> memory_load;         // per socket, bytes/s at its controller
  std::vector<double> memory_utilisation;  // per socket
};

// Solutions of the bandwidth model keyed by the group counts (and the operation's phase), and
// when to solve again (adaptive_rates.cpp).
struct RateCache {
  std::map<std::vector<int>, CachedRates> solutions;
  const CachedRates* current = nullptr;
  bool dirty = true;      // counts changed since the last solve
  bool new_group = true;  // a group started running, or the operation changed: solve now
  double solved_s = 0.0;
};

// Per task class: the moving average that stealing reads, and the run's statistics.
struct ClassTracking {
  std::vector<ExponentialAverage> ema;
  std::vector<AdaptiveClassStats> stats;
  std::vector<double> task_seconds;  // integrals over the run
  std::vector<double> bytes;
};

// Per socket: integrals over the current sample period and the histories of the samples, which
// the placer's snapshots read.
struct SocketSamples {
  std::vector<double> busy_integral;
  std::vector<double> memory_integral;
  std::vector<SampledHistory> busy_history;
  std::vector<SampledHistory> memory_history;
};

// Integrals over the current timeline bin, and per socket over the whole run.
struct TimelineBin {
  double begin_s = 0.0;
  long queries = 0;
  double bytes = 0.0;
  int steals = 0;
  std::vector<long> class_queries;
  std::vector<double> busy;         // per socket, busy worker-seconds
  std::vector<double> memory;       // per socket, bytes through its controller
  std::vector<double> memory_util;  // per socket, utilisation x seconds
};

struct RunTotals {
  std::vector<double> busy;         // per socket, busy worker-seconds
  std::vector<double> memory_util;  // per socket, utilisation x seconds
};

// The next event of the loop (adaptive_engine.cpp): when, and what ends then.
struct NextEvent {
  double at_s = 0.0;
  int first_done = -1;  // a task that finishes then (its remaining bytes are set to 0), or -1
  bool operation_done = false;  // the operation's phase finishes then
};

class Engine {
 public:
  Engine(const model::Topology& topology, const AdaptiveScenario& scenario, const AdaptiveRunOptions& options);

  AdaptiveResult run();

 private:
  // adaptive_engine.cpp
  void check() const;
  void initialise();
  [[nodiscard]] NextEvent next_event(const CachedRates& r, double timer_s) const;
  void advance(const CachedRates& r, const NextEvent& event);
  void complete_tasks();
  // adaptive_queries.cpp
  void start_due_clients();
  void issue_query(int client);
  void finish_task(int task_id);
  // A fresh Task (from the free list, else appended); returns its id.
  [[nodiscard]] int new_task();
  // adaptive_query_stages.cpp
  void issue_stage(int query_id);
  void account_phase(const Task& task, double dt, double bytes);
  void finish_query_type(const Query& q);
  // adaptive_dispatch.cpp
  void enqueue(int task_id, int socket);
  void dispatch();
  std::optional<int> pop_oldest(int socket, bool stealing, int loaded_sockets = -1);
  void start_task(int task_id, int worker_socket);
  // Stealing rule at the threshold effective while loaded_sockets sockets have queued tasks
  // (adaptive_stealing.hpp); loaded_sockets = -1: the calibrated threshold itself.
  [[nodiscard]] bool may_steal(int task_class, int loaded_sockets = -1) const;
  [[nodiscard]] int workers_available(int socket) const;
  // Sockets that hold the work: at least a chunk (task_bytes) queued per worker, as every data
  // socket of the stealing calibration has (adaptive_stealing.hpp); at least 1 (the victim).
  [[nodiscard]] int loaded_sockets() const;
  // The victim's memory demand (every task reading it at its class's moving average, plus the
  // candidate) within 2 W T: the calibration's victim at the threshold (adaptive_stealing.hpp).
  [[nodiscard]] bool victim_has_room(int victim, int task_class) const;
  // adaptive_rates.cpp
  const CachedRates& rates();
  // adaptive_operations.cpp
  [[nodiscard]] std::vector<LivePart> live_parts() const;
  void run_placer();
  void start_operation(const PlacerDecision& decision);
  void finish_phase();
  void move_queued_tasks(const std::vector<int>& from_parts, const std::vector<int>& to_parts);
  void recount_queued_bytes();
  // adaptive_timeline.cpp
  void accumulate_sockets(const CachedRates& r, double dt);
  void take_sample(double begin_s, double end_s);
  void close_bin();
  AdaptiveResult summarise();

  const model::Topology& t_;
  const AdaptiveScenario& sc_;
  AdaptiveRunOptions options_;
  model::Routing routing_;
  model::BandwidthModel model_;
  std::vector<model::NodeIndex> nodes_;
  int S_;
  int C_;
  int W_ = 0;
  std::mt19937_64 rng_;
  PageCosts costs_;
  double threshold_ = kInfinity;
  double now_ = 0.0;
  long sequence_ = 0;

  std::vector<Part> parts_;
  std::vector<Task> tasks_;
  std::vector<int> free_tasks_;
  std::vector<Query> queries_;
  std::vector<int> free_queries_;
  std::vector<Client> clients_;
  std::vector<std::deque<int>> queues_;  // [socket * C + class]: task ids, oldest first
  std::vector<double> queued_bytes_;     // per socket: bytes of its queued tasks
  std::vector<int> running_;             // task ids
  std::vector<int> running_on_;          // per socket
  std::vector<int> group_count_;         // [(worker * S + data) * C + class]
  std::optional<Operation> operation_;
  std::vector<double> socket_layout_changed_s_;  // last switch that put a part on or took one off it
  std::vector<int> finished_;  // scratch: tasks done at the current event

  RateCache rate_cache_;
  ClassTracking classes_;
  QueryTypeTracking query_types_;
  SocketSamples samples_;
  TimelineBin bin_;
  RunTotals totals_;

  AdaptiveResult result_;
};

}  // namespace numatwin::sim::adaptive_detail
