// The adaptive engine's event loop (adaptive_engine.hpp; the state is in adaptive_engine_state.hpp).
//
// Each step: clients whose start has come issue their first query, idle workers take tasks
// (adaptive_dispatch.cpp), the rates of what runs are looked up (adaptive_rates.cpp), and time
// advances to the next event
//     dt = min(task remaining / rate, operation phase remaining / rate, next sample,
//              next placer period, next timeline bin, next client start, end).
// Between events rates are constant, so the bytes streamed and the utilisation integrals over
// [now, now + dt) are exact. Then finished tasks complete (their queries may issue the next one),
// a finished copy phase advances the operation, and the timers that are due fire in this order:
// sample (every sample_period_s), timeline bin (every timeline_bin_s and at the end), placer
// (every period c_p, not at the end). Timer k fires at k x its period (counters kept as doubles).
#include "numatwin/sim/adaptive/adaptive_engine.hpp"

#include <algorithm>
#include <stdexcept>

#include "adaptive_engine_state.hpp"

namespace numatwin::sim {

std::vector<model::NodeIndex> adaptive_sockets(const model::Topology& topology) {
  std::vector<model::NodeIndex> sockets;
  for (model::NodeIndex n = 0; n < static_cast<model::NodeIndex>(topology.nodes.size()); ++n) {
    if (topology.nodes[n].has_cores() && topology.nodes[n].has_memory()) sockets.push_back(n);
  }
  return sockets;
}

namespace adaptive_detail {

Engine::Engine(const model::Topology& topology, const AdaptiveScenario& scenario, const AdaptiveRunOptions& options)
    : t_(topology),
      sc_(scenario),
      options_(options),
      routing_(topology),
      model_(topology, routing_),
      nodes_(adaptive_sockets(topology)),
      S_(static_cast<int>(nodes_.size())),
      C_(static_cast<int>(scenario.classes.size())),
      rng_(scenario.seed) {}

void Engine::check() const {
  if (S_ < 2) throw std::invalid_argument("adaptive: the machine needs at least two sockets with cores and memory");
  if (C_ < 1 || sc_.tables.empty()) throw std::invalid_argument("adaptive: a scenario needs task classes and tables");
  if (!(sc_.page_bytes > 0.0) || !(sc_.task_bytes > 0.0) || !(sc_.duration_s > 0.0)) {
    throw std::invalid_argument("adaptive: page_bytes, task_bytes and duration_s must be > 0");
  }
  for (const AdaptiveTable& table : sc_.tables) {
    if (table.socket < 0 || table.socket >= S_ || table.parts < 1 || !(table.size_bytes > 0.0)) {
      throw std::invalid_argument("adaptive: table " + table.name + " has a bad socket, part count or size");
    }
  }
  for (const AdaptiveQueryType& type : sc_.query_types) {
    for (int c : type.class_of_phase) {
      if (c < 0 || c >= C_) throw std::invalid_argument("adaptive: query type " + type.name + " names a class that does not exist");
    }
    if (type.kind == AdaptiveQueryKind::kJoin && (type.join_table < 0 || type.join_table >= static_cast<int>(sc_.tables.size()))) {
      throw std::invalid_argument("adaptive: join type " + type.name + " names no other table");
    }
  }
  for (const AdaptiveTable& table : sc_.tables) {
    for (int other : adaptive_group_tables(sc_, static_cast<int>(&table - sc_.tables.data()))) {
      const AdaptiveTable& o = sc_.tables[static_cast<std::size_t>(other)];
      if (o.parts != table.parts || o.socket != table.socket) {
        throw std::invalid_argument("adaptive: the tables of group " + table.group +
                                    " must start co-partitioned (the same socket and part count): " + table.name + " and " + o.name +
                                    " do not");
      }
    }
    if (!(table.row_bytes > 0.0) || !(table.distinct_values >= 1.0)) {
      throw std::invalid_argument("adaptive: table " + table.name + " needs row_bytes > 0 and distinct_values >= 1");
    }
  }
  for (const AdaptiveClientGroup& group : sc_.clients) {
    for (const WeightedChoice& q : group.query_types) {
      if (q.index < 0 || q.index >= static_cast<int>(sc_.query_types.size()) || !(q.weight > 0.0)) {
        throw std::invalid_argument("adaptive: a client names a query type that does not exist");
      }
    }
    if (group.tables.empty() || (group.classes.empty() && group.query_types.empty())) throw std::invalid_argument("adaptive: a client group without tables or classes");
    for (const WeightedChoice& c : group.tables) {
      if (c.index < 0 || c.index >= static_cast<int>(sc_.tables.size()) || !(c.weight > 0.0)) {
        throw std::invalid_argument("adaptive: a client names a table that does not exist");
      }
    }
    for (const WeightedChoice& c : group.classes) {
      if (c.index < 0 || c.index >= C_ || !(c.weight > 0.0)) throw std::invalid_argument("adaptive: a client names a class that does not exist");
    }
  }
}

void Engine::initialise() {
  int min_cores = t_.nodes[nodes_[0]].cores;
  for (model::NodeIndex n : nodes_) min_cores = std::min(min_cores, t_.nodes[n].cores);
  W_ = sc_.workers_per_socket > 0 ? std::min(sc_.workers_per_socket, min_cores) : min_cores;
  if (sc_.costs) {
    costs_ = *sc_.costs;
  } else {
    costs_ = derived_page_costs(t_, sc_.page_bytes);
    result_.costs_derived = true;
  }
  if (sc_.stealing == StealingMode::kAdaptive) {
    if (!sc_.stealing_threshold_bytes_per_s) {
      throw std::invalid_argument("adaptive: adaptive stealing needs a threshold (calibrate_stealing)");
    }
    threshold_ = *sc_.stealing_threshold_bytes_per_s;
  }
  result_.costs = costs_;
  result_.stealing_threshold_bytes_per_s = threshold_;
  result_.workers_per_socket = W_;
  for (model::NodeIndex n : nodes_) result_.sockets.push_back(t_.nodes[n].id);

  const double keep = sc_.tracking.history_s;
  for (int ti = 0; ti < static_cast<int>(sc_.tables.size()); ++ti) {
    const AdaptiveTable& table = sc_.tables[ti];
    for (int k = 0; k < table.parts; ++k) parts_.emplace_back(ti, (table.socket + k) % S_, table.size_bytes / table.parts, keep);
  }
  queues_.assign(static_cast<std::size_t>(S_) * C_, {});
  queued_bytes_.assign(S_, 0.0);
  running_on_.assign(S_, 0);
  group_count_.assign(static_cast<std::size_t>(S_) * S_ * C_, 0);
  for (int c = 0; c < C_; ++c) {
    classes_.ema.emplace_back(sc_.tracking.class_ema_weight);
    classes_.stats.push_back(AdaptiveClassStats{sc_.classes[c].name});
  }
  for (const AdaptiveQueryType& type : sc_.query_types) {
    AdaptiveQueryTypeStats st;
    st.name = type.name;
    query_types_.stats.push_back(st);
  }
  classes_.task_seconds.assign(C_, 0.0);
  classes_.bytes.assign(C_, 0.0);
  samples_.busy_integral.assign(S_, 0.0);
  samples_.memory_integral.assign(S_, 0.0);
  samples_.busy_history.assign(S_, SampledHistory(keep));
  samples_.memory_history.assign(S_, SampledHistory(keep));
  socket_layout_changed_s_.assign(S_, -kInfinity);
  bin_.class_queries.assign(C_, 0);
  bin_.busy.assign(S_, 0.0);
  bin_.memory.assign(S_, 0.0);
  bin_.memory_util.assign(S_, 0.0);
  totals_.busy.assign(S_, 0.0);
  totals_.memory_util.assign(S_, 0.0);
  for (int g = 0; g < static_cast<int>(sc_.clients.size()); ++g) {
    for (int k = 0; k < sc_.clients[g].count; ++k) clients_.push_back(Client{g, false});
  }
}

NextEvent Engine::next_event(const CachedRates& r, double timer_s) const {
  NextEvent e;
  e.at_s = timer_s;
  for (const Client& c : clients_) {
    if (!c.started) e.at_s = std::min(e.at_s, std::max(now_, sc_.clients[c.group].start_s));
  }
  for (int id : running_) {
    const Task& task = tasks_[id];
    const double rate = r.group_rate[(task.worker_socket * S_ + task.data_socket) * C_ + task.task_class];
    if (rate > 0.0 && now_ + task.remaining / rate < e.at_s) {
      e.at_s = now_ + task.remaining / rate;
      e.first_done = id;
    }
  }
  if (operation_ && r.operation_rate > 0.0 && now_ + operation_->remaining / r.operation_rate <= e.at_s) {
    e.at_s = now_ + operation_->remaining / r.operation_rate;
    e.operation_done = true;
    e.first_done = -1;
  }
  if (operation_ && operation_->remaining <= 0.0) {
    e.at_s = now_;
    e.operation_done = true;
    e.first_done = -1;
  }
  return e;
}

void Engine::advance(const CachedRates& r, const NextEvent& event) {
  const double dt = event.at_s - now_;
  for (int id : running_) {
    Task& task = tasks_[id];
    const double rate = r.group_rate[(task.worker_socket * S_ + task.data_socket) * C_ + task.task_class];
    const double bytes = std::min(task.remaining, rate * dt);
    task.remaining -= bytes;
    if (task.part >= 0) {
      Part& part = parts_[task.part];
      part.cpu_integral += dt;
      part.memory_integral += bytes;
    }
    if (task.query_type >= 0) account_phase(task, dt, bytes);
    bin_.bytes += bytes;
    result_.bytes += bytes;
    classes_.task_seconds[task.task_class] += dt;
    classes_.bytes[task.task_class] += bytes;
    if (id == event.first_done) task.remaining = 0.0;
  }
  accumulate_sockets(r, dt);
  if (operation_) operation_->remaining = event.operation_done ? 0.0 : operation_->remaining - r.operation_rate * dt;
  now_ = event.at_s;
}

void Engine::complete_tasks() {
  finished_.clear();
  for (int id : running_) {
    if (tasks_[id].remaining <= 1e-9 * tasks_[id].bytes) finished_.push_back(id);
  }
  if (finished_.empty()) return;
  running_.erase(std::remove_if(running_.begin(), running_.end(),
                                [&](int id) { return std::find(finished_.begin(), finished_.end(), id) != finished_.end(); }),
                 running_.end());
  for (int id : finished_) finish_task(id);
}

AdaptiveResult Engine::run() {
  check();
  initialise();
  const double end = sc_.duration_s;
  const double sample = sc_.tracking.sample_period_s;
  const double period = sc_.placer.period_s;
  const double bin = options_.timeline_bin_s;
  double sample_index = 1;  // counters kept as doubles: timer k fires at k x period
  double placer_index = 1;
  double bin_index = 1;
  long stalled = 0;
  while (true) {
    start_due_clients();
    dispatch();
    if (now_ >= end) break;
    const CachedRates& r = rates();
    double timer = std::min({end, sample_index * sample, bin_index * bin});
    if (sc_.placer_enabled) timer = std::min(timer, placer_index * period);
    const NextEvent event = next_event(r, timer);
    const double dt = event.at_s - now_;
    advance(r, event);
    complete_tasks();
    if (event.operation_done) finish_phase();
    if (now_ >= sample_index * sample - 1e-12) {
      take_sample((sample_index - 1) * sample, now_);
      ++sample_index;
    }
    if (now_ >= bin_index * bin - 1e-12 || now_ >= end) {
      close_bin();
      ++bin_index;
    }
    if (sc_.placer_enabled && now_ >= placer_index * period - 1e-12) {
      ++placer_index;
      if (now_ < end) run_placer();
    }
    stalled = dt > 0.0 ? 0 : stalled + 1;
    if (stalled > 1000000) throw std::logic_error("adaptive: time does not advance");
  }
  if (bin_.begin_s < now_) close_bin();
  return summarise();
}

}  // namespace adaptive_detail

AdaptiveResult run_adaptive(const model::Topology& topology, const AdaptiveScenario& scenario, const AdaptiveRunOptions& options) {
  if (!(options.timeline_bin_s > 0.0)) throw std::invalid_argument("adaptive: timeline bins must be > 0 s");
  adaptive_detail::Engine engine(topology, scenario, options);
  return engine.run();
}

}  // namespace numatwin::sim
