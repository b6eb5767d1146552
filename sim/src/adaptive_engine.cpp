#include "numatwin/sim/adaptive_engine.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/sim/adaptive_stealing.hpp"
#include "numatwin/sim/adaptive_utilisation.hpp"

namespace numatwin::sim {

std::vector<model::NodeIndex> adaptive_sockets(const model::Topology& topology) {
  std::vector<model::NodeIndex> sockets;
  for (model::NodeIndex n = 0; n < static_cast<model::NodeIndex>(topology.nodes.size()); ++n) {
    if (topology.nodes[n].has_cores() && topology.nodes[n].has_memory()) sockets.push_back(n);
  }
  return sockets;
}

PageCosts derived_page_costs(const model::Topology& topology, double page_bytes) {
  const std::vector<model::NodeIndex> sockets = adaptive_sockets(topology);
  const model::Routing routing(topology);
  model::BandwidthModel model(topology, routing);
  double move_s = 0.0;
  double partition_s = 0.0;
  int pairs = 0;
  for (model::NodeIndex from : sockets) {
    for (model::NodeIndex to : sockets) {
      model::Stream copy;
      copy.cpu_node = to;
      copy.core = model.core_of(to, 0);
      copy.read_node = from;
      copy.write_node = to;
      const double rate = model.solve(std::span<const model::Stream>(&copy, 1)).rate_bytes_per_s.at(0);
      if (from == to) {
        partition_s += page_bytes / rate;
      } else {
        move_s += page_bytes / rate;
        ++pairs;
      }
    }
  }
  PageCosts costs;
  costs.move_s_per_page = pairs > 0 ? move_s / pairs : 0.0;
  costs.partition_s_per_page = partition_s / static_cast<double>(sockets.size());
  costs.source =
      "derived from the machine model (no per-page costs given): one copy stream on an idle machine, "
      "page / remote copy rate (mean over socket pairs) to move, page / local copy rate to partition";
  return costs;
}

namespace {

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
  int part = 0;
  int task_class = 0;
  double bytes = 0.0;
  double remaining = 0.0;
  double start_s = 0.0;
  long sequence = 0;
  int worker_socket = -1;
  int data_socket = -1;
  bool stolen = false;
};

struct Query {
  int client = 0;
  int task_class = 0;
  int tasks_left = 0;
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

double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

int draw(std::mt19937_64& rng, const std::vector<WeightedChoice>& choices) {
  double total = 0.0;
  for (const WeightedChoice& c : choices) total += c.weight;
  double x = uniform01(rng) * total;
  for (const WeightedChoice& c : choices) {
    if (x < c.weight) return c.index;
    x -= c.weight;
  }
  return choices.back().index;
}

class Engine {
 public:
  Engine(const model::Topology& topology, const AdaptiveScenario& scenario, const AdaptiveRunOptions& options)
      : t_(topology),
        sc_(scenario),
        options_(options),
        routing_(topology),
        model_(topology, routing_),
        nodes_(adaptive_sockets(topology)),
        S_(static_cast<int>(nodes_.size())),
        C_(static_cast<int>(scenario.classes.size())),
        rng_(scenario.seed) {}

  AdaptiveResult run();

 private:
  void check() const;
  void issue_query(int client);
  void enqueue(int task_id, int socket);
  void dispatch();
  std::optional<int> pop_oldest(int socket, bool stealing);
  void start_task(int task_id, int worker_socket);
  const CachedRates& rates();
  void finish_task(int task_id);
  void take_sample(double begin_s, double end_s);
  void run_placer();
  void start_operation(const PlacerDecision& decision);
  void finish_phase();
  void move_queued_tasks(const std::vector<int>& from_parts, const std::vector<int>& to_parts);
  void close_bin();
  [[nodiscard]] bool may_steal(int task_class) const;
  [[nodiscard]] int workers_available(int socket) const;

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
  std::vector<int> running_;             // task ids
  std::vector<int> running_on_;          // per socket
  std::vector<int> group_count_;         // [(worker * S + data) * C + class]
  std::optional<Operation> operation_;
  std::map<std::vector<int>, CachedRates> cache_;
  const CachedRates* current_ = nullptr;
  bool dirty_ = true;       // counts changed since the last solve
  bool new_group_ = true;   // a group started running, or the operation changed: solve now
  double solved_s_ = 0.0;

  std::vector<ExponentialAverage> class_ema_;
  std::vector<AdaptiveClassStats> class_stats_;
  std::vector<double> class_task_seconds_;
  std::vector<double> class_bytes_;

  // Sample accumulators (integrals over the current sample period) and histories, per socket.
  std::vector<double> socket_busy_integral_;
  std::vector<double> socket_memory_integral_;
  std::vector<SampledHistory> socket_busy_history_;
  std::vector<SampledHistory> socket_memory_history_;
  std::vector<double> socket_layout_changed_s_;  // last switch that put a part on or took one off it
  // Timeline bin accumulators.
  double bin_begin_ = 0.0;
  long bin_queries_ = 0;
  double bin_bytes_ = 0.0;
  int bin_steals_ = 0;
  std::vector<long> bin_class_queries_;
  std::vector<double> bin_busy_;
  std::vector<double> bin_memory_;
  std::vector<double> bin_memory_util_;
  std::vector<double> run_busy_;
  std::vector<double> run_memory_util_;

  AdaptiveResult result_;
};

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
  for (const AdaptiveClientGroup& group : sc_.clients) {
    if (group.tables.empty() || group.classes.empty()) throw std::invalid_argument("adaptive: a client group without tables or classes");
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

int Engine::workers_available(int socket) const {
  const bool held = operation_ && operation_->phases[operation_->phase].run_socket == socket;
  return W_ - (held ? 1 : 0);
}

bool Engine::may_steal(int task_class) const {
  const ExponentialAverage& ema = class_ema_[task_class];
  return stealing_allowed(sc_.stealing, ema.empty() ? std::nullopt : std::optional<double>(ema.value()), threshold_);
}

void Engine::enqueue(int task_id, int socket) { queues_[socket * C_ + tasks_[task_id].task_class].push_back(task_id); }

void Engine::issue_query(int client) {
  const AdaptiveClientGroup& group = sc_.clients[clients_[client].group];
  if (now_ >= group.stop_s) return;
  const int table = draw(rng_, group.tables);
  const int task_class = draw(rng_, group.classes);
  int query_id;
  if (!free_queries_.empty()) {
    query_id = free_queries_.back();
    free_queries_.pop_back();
  } else {
    query_id = static_cast<int>(queries_.size());
    queries_.emplace_back();
  }
  Query& q = queries_[query_id];
  q = Query{client, task_class, 0};
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    if (!parts_[p].alive || parts_[p].table != table) continue;
    const int chunks = std::max(1, static_cast<int>(std::ceil(parts_[p].bytes / sc_.task_bytes - 1e-9)));
    for (int k = 0; k < chunks; ++k) {
      int id;
      if (!free_tasks_.empty()) {
        id = free_tasks_.back();
        free_tasks_.pop_back();
      } else {
        id = static_cast<int>(tasks_.size());
        tasks_.emplace_back();
      }
      Task& task = tasks_[id];
      task = Task{};
      task.query = query_id;
      task.part = p;
      task.task_class = task_class;
      task.bytes = parts_[p].bytes / chunks;
      task.remaining = task.bytes;
      task.sequence = sequence_++;
      ++queries_[query_id].tasks_left;
      enqueue(id, parts_[p].socket);
    }
  }
}

std::optional<int> Engine::pop_oldest(int socket, bool stealing) {
  int best = -1;
  for (int c = 0; c < C_; ++c) {
    const std::deque<int>& q = queues_[socket * C_ + c];
    if (q.empty() || (stealing && !may_steal(c))) continue;
    if (best < 0 || tasks_[q.front()].sequence < tasks_[queues_[socket * C_ + best].front()].sequence) best = c;
  }
  if (best < 0) return std::nullopt;
  const int id = queues_[socket * C_ + best].front();
  queues_[socket * C_ + best].pop_front();
  return id;
}

void Engine::start_task(int task_id, int worker_socket) {
  Task& task = tasks_[task_id];
  task.worker_socket = worker_socket;
  task.data_socket = parts_[task.part].socket;
  task.start_s = now_;
  running_.push_back(task_id);
  ++running_on_[worker_socket];
  if (group_count_[(worker_socket * S_ + task.data_socket) * C_ + task.task_class]++ == 0) new_group_ = true;
  dirty_ = true;
}

void Engine::dispatch() {
  for (int s = 0; s < S_; ++s) {
    while (running_on_[s] < workers_available(s)) {
      std::optional<int> id = pop_oldest(s, false);
      if (!id && sc_.stealing != StealingMode::kDeny) {
        // Victims: longest queue, then fewest hops, then lowest index.
        std::vector<int> victims;
        std::vector<std::size_t> length(S_, 0);
        for (int v = 0; v < S_; ++v) {
          if (v == s) continue;
          for (int c = 0; c < C_; ++c) {
            if (may_steal(c)) length[v] += queues_[v * C_ + c].size();
          }
          if (length[v] > 0) victims.push_back(v);
        }
        std::stable_sort(victims.begin(), victims.end(), [&](int a, int b) {
          if (length[a] != length[b]) return length[a] > length[b];
          return routing_.hops(nodes_[s], nodes_[a]) < routing_.hops(nodes_[s], nodes_[b]);
        });
        for (int v : victims) {
          id = pop_oldest(v, true);
          if (id) break;
        }
        if (id) {
          tasks_[*id].stolen = true;
          ++bin_steals_;
        }
      }
      if (!id) break;
      start_task(*id, s);
    }
  }
}

const CachedRates& Engine::rates() {
  if (current_ != nullptr && (!dirty_ || (!new_group_ && now_ - solved_s_ < options_.rate_refresh_s))) return *current_;
  new_group_ = false;
  solved_s_ = now_;
  std::vector<int> key = group_count_;
  if (operation_) {
    const OperationPhase& ph = operation_->phases[operation_->phase];
    key.insert(key.end(), {ph.read_socket, ph.write_socket, ph.run_socket});
  }
  auto it = cache_.find(key);
  if (it == cache_.end()) {
    if (cache_.size() > 50000) cache_.clear();
    std::vector<model::Stream> streams;
    std::vector<int> stream_group;
    for (int w = 0; w < S_; ++w) {
      const model::Node& node = t_.nodes[nodes_[w]];
      int core = 0;
      for (int d = 0; d < S_; ++d) {
        for (int c = 0; c < C_; ++c) {
          const int g = (w * S_ + d) * C_ + c;
          for (int k = 0; k < group_count_[g]; ++k) {
            model::Stream st;
            st.cpu_node = nodes_[w];
            st.core = model_.core_of(nodes_[w], core++ % node.cores);
            st.read_node = nodes_[d];
            st.lines_in_flight = sc_.classes[c].lines_in_flight;
            const double cpb = sc_.classes[c].cycles_per_byte;
            if (cpb > 0.0) st.rate_limit_bytes_per_s = node.frequency_ghz * 1e9 / cpb;
            streams.push_back(st);
            stream_group.push_back(g);
          }
        }
      }
    }
    if (operation_) {
      const OperationPhase& ph = operation_->phases[operation_->phase];
      const model::Node& node = t_.nodes[nodes_[ph.run_socket]];
      model::Stream st;
      st.cpu_node = nodes_[ph.run_socket];
      st.core = model_.core_of(st.cpu_node, std::max(0, std::min(W_, node.cores) - 1));
      st.read_node = nodes_[ph.read_socket];
      st.write_node = nodes_[ph.write_socket];
      st.rate_limit_bytes_per_s = ph.limit_bytes_per_s;
      streams.push_back(st);
      stream_group.push_back(-1);
    }
    CachedRates cr;
    cr.group_rate.assign(group_count_.size(), 0.0);
    cr.memory_load.assign(S_, 0.0);
    cr.memory_utilisation.assign(S_, 0.0);
    if (!streams.empty()) {
      const model::StreamRates& r = model_.solve(streams);
      for (std::size_t i = 0; i < streams.size(); ++i) {
        if (stream_group[i] < 0) {
          cr.operation_rate = r.rate_bytes_per_s[i];
        } else {
          cr.group_rate[stream_group[i]] += r.rate_bytes_per_s[i] / group_count_[stream_group[i]];
        }
      }
      for (int s = 0; s < S_; ++s) {
        const int res = model_.memory_resource(nodes_[s]);
        cr.memory_load[s] = r.resource_load_bytes_per_s[res];
        cr.memory_utilisation[s] = r.utilisation[res];
      }
    }
    it = cache_.emplace(std::move(key), std::move(cr)).first;
  }
  current_ = &it->second;
  dirty_ = false;
  return *current_;
}

void Engine::finish_task(int task_id) {
  Task& task = tasks_[task_id];
  const double seconds = now_ - task.start_s;
  if (seconds > 0.0) class_ema_[task.task_class].add(task.bytes / seconds);
  AdaptiveClassStats& cs = class_stats_[task.task_class];
  ++cs.tasks;
  if (task.stolen) ++cs.stolen_tasks;
  --running_on_[task.worker_socket];
  --group_count_[(task.worker_socket * S_ + task.data_socket) * C_ + task.task_class];
  dirty_ = true;
  Query& q = queries_[task.query];
  free_tasks_.push_back(task_id);
  if (--q.tasks_left == 0) {
    ++cs.queries;
    ++result_.queries;
    ++bin_queries_;
    ++bin_class_queries_[q.task_class];
    free_queries_.push_back(task.query);
    issue_query(q.client);
  }
}

void Engine::take_sample(double begin_s, double end_s) {
  const double length = end_s - begin_s;
  if (!(length > 0.0)) return;
  for (int s = 0; s < S_; ++s) {
    socket_busy_history_[s].add(begin_s, end_s, socket_busy_integral_[s] / length);
    socket_memory_history_[s].add(begin_s, end_s, socket_memory_integral_[s] / length);
    socket_busy_integral_[s] = 0.0;
    socket_memory_integral_[s] = 0.0;
  }
  for (Part& part : parts_) {
    if (!part.alive) continue;
    part.cpu_history.add(begin_s, end_s, part.cpu_integral / length);
    part.memory_history.add(begin_s, end_s, part.memory_integral / length);
    part.cpu_integral = 0.0;
    part.memory_integral = 0.0;
  }
}

void Engine::run_placer() {
  if (operation_) return;  // one operation at a time
  const double period = sc_.placer.period_s;
  // The snapshot must describe the current layout: wait until a whole period has passed since
  // the last switch, so no socket's recent window still counts a part that has left it (or
  // misses one that has arrived) nor the copy traffic of the operation that moved it.
  for (int s = 0; s < S_; ++s) {
    if (now_ - socket_layout_changed_s_[s] < period - 1e-9) return;
  }
  PlacerSnapshot snap;
  for (int s = 0; s < S_; ++s) {
    PlacerSocketState st;
    st.cpu_share = socket_busy_history_[s].average(now_, period) / W_;
    st.memory_bytes_per_s = socket_memory_history_[s].average(now_, period);
    st.memory_capacity_bytes_per_s = model_.resource_capacity_bytes_per_s(model_.memory_resource(nodes_[s]));
    snap.sockets.push_back(st);
  }
  std::vector<int> table_parts(sc_.tables.size(), 0);
  for (const Part& part : parts_) {
    if (part.alive) ++table_parts[part.table];
  }
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    const Part& part = parts_[p];
    if (!part.alive) continue;
    PlacerPartState ps;
    ps.part = p;
    ps.table = part.table;
    ps.socket = part.socket;
    ps.table_parts = table_parts[part.table];
    ps.pages = std::ceil(part.bytes / sc_.page_bytes);
    ps.cpu_share = part.cpu_history.average(now_, period) / W_;
    ps.memory_bytes_per_s = part.memory_history.average(now_, period);
    const double covered = part.cpu_history.covered_s() + 1e-9;
    const double move_window = 2.0 * ps.pages * costs_.move_s_per_page;
    const double partition_window = 2.0 * ps.pages * (costs_.move_s_per_page + costs_.partition_s_per_page);
    const double c_e = sc_.placer.eligibility_divergence;
    ps.move_eligible = placer_eligible(ps.cpu_share, part.cpu_history.average(now_, move_window) / W_,
                                       covered >= move_window && move_window <= sc_.tracking.history_s, c_e);
    ps.partition_eligible = placer_eligible(ps.cpu_share, part.cpu_history.average(now_, partition_window) / W_,
                                            covered >= partition_window && partition_window <= sc_.tracking.history_s, c_e);
    snap.parts.push_back(ps);
  }
  const PlacerDecision decision = decide_placement(snap, sc_.placer);
  if (decision.action != PlacerAction::kNone) start_operation(decision);
}

void Engine::start_operation(const PlacerDecision& decision) {
  Operation op;
  op.decision = decision;
  const double move_rate = sc_.page_bytes / costs_.move_s_per_page;
  const double partition_rate = sc_.page_bytes / costs_.partition_s_per_page;
  AdaptivePlacerEvent event;
  event.decided_s = now_;
  event.decision = decision;
  event.table = sc_.tables[decision.table].name;
  if (decision.action == PlacerAction::kMove) {
    const Part& part = parts_[decision.part];
    op.phases.push_back({part.socket, decision.to_socket, decision.to_socket, part.bytes, move_rate});
    event.bytes = part.bytes;
  } else if (decision.action == PlacerAction::kPartition) {
    const Part& part = parts_[decision.part];
    op.phases.push_back({part.socket, part.socket, part.socket, part.bytes, partition_rate});
    op.phases.push_back({part.socket, decision.to_socket, decision.to_socket, part.bytes / 2.0, move_rate});
    event.bytes = 1.5 * part.bytes;
  } else {
    for (const Part& part : parts_) {
      if (!part.alive || part.table != decision.table || part.socket == decision.to_socket) continue;
      op.phases.push_back({part.socket, decision.to_socket, decision.to_socket, part.bytes, move_rate});
      event.bytes += part.bytes;
    }
  }
  op.event = static_cast<int>(result_.placer_events.size());
  result_.placer_events.push_back(event);
  if (op.phases.empty()) {  // a merge with every part already on the target
    op.phases.push_back({decision.to_socket, decision.to_socket, decision.to_socket, 0.0, move_rate});
  }
  op.remaining = op.phases.front().bytes;
  operation_ = std::move(op);
  dirty_ = true;
  new_group_ = true;
}

void Engine::move_queued_tasks(const std::vector<int>& from_parts, const std::vector<int>& to_parts) {
  // Queued tasks of from_parts[i] now belong to to_parts[i % size] (round robin over the
  // tasks of each part), and move to that part's socket queue, keeping their order.
  std::vector<int> moved;
  for (std::deque<int>& q : queues_) {
    std::deque<int> kept;
    for (int id : q) {
      const auto f = std::find(from_parts.begin(), from_parts.end(), tasks_[id].part);
      if (f == from_parts.end()) {
        kept.push_back(id);
      } else {
        moved.push_back(id);
      }
    }
    q.swap(kept);
  }
  std::sort(moved.begin(), moved.end(), [&](int a, int b) { return tasks_[a].sequence < tasks_[b].sequence; });
  std::size_t k = 0;
  for (int id : moved) {
    const int to = to_parts[k++ % to_parts.size()];
    tasks_[id].part = to;
    std::deque<int>& q = queues_[parts_[to].socket * C_ + tasks_[id].task_class];
    const auto pos = std::upper_bound(q.begin(), q.end(), tasks_[id].sequence,
                                      [&](long seq, int other) { return seq < tasks_[other].sequence; });
    q.insert(pos, id);
  }
}

void Engine::finish_phase() {
  Operation& op = *operation_;
  ++op.phase;
  dirty_ = true;
  new_group_ = true;
  if (op.phase < op.phases.size()) {
    op.remaining = op.phases[op.phase].bytes;
    return;
  }
  const PlacerDecision& d = op.decision;
  const double keep = sc_.tracking.history_s;
  // The layout switches now on every socket that gains or loses data (run_placer waits a period).
  socket_layout_changed_s_[d.to_socket] = now_;
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    const bool affected = p == d.part || (d.action == PlacerAction::kMerge && parts_[p].table == d.table);
    if (parts_[p].alive && affected) socket_layout_changed_s_[parts_[p].socket] = now_;
  }
  if (d.action == PlacerAction::kMove) {
    parts_[d.part].socket = d.to_socket;
    move_queued_tasks({d.part}, {d.part});
  } else if (d.action == PlacerAction::kPartition) {
    const double half = parts_[d.part].bytes / 2.0;
    parts_[d.part].bytes = half;
    parts_.emplace_back(d.table, d.to_socket, half, keep);
    move_queued_tasks({d.part}, {d.part, static_cast<int>(parts_.size()) - 1});
  } else {
    std::vector<int> members;
    double bytes = 0.0;
    for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
      if (parts_[p].alive && parts_[p].table == d.table) {
        members.push_back(p);
        bytes += parts_[p].bytes;
      }
    }
    parts_.emplace_back(d.table, d.to_socket, bytes, keep);
    for (int p : members) parts_[p].alive = false;
    move_queued_tasks(members, {static_cast<int>(parts_.size()) - 1});
  }
  result_.placer_events[op.event].done_s = now_;
  operation_.reset();
}

void Engine::close_bin() {
  const double length = now_ - bin_begin_;
  if (!(length > 0.0)) return;
  AdaptiveTimelinePoint p;
  p.begin_s = bin_begin_;
  p.end_s = now_;
  p.queries_per_s = static_cast<double>(bin_queries_) / length;
  p.bytes_per_s = bin_bytes_ / length;
  for (int c = 0; c < C_; ++c) p.class_queries_per_s.push_back(static_cast<double>(bin_class_queries_[c]) / length);
  for (int s = 0; s < S_; ++s) {
    p.socket_cpu_share.push_back(bin_busy_[s] / length / W_);
    p.socket_memory_bytes_per_s.push_back(bin_memory_[s] / length);
    p.socket_memory_utilisation.push_back(bin_memory_util_[s] / length);
  }
  p.steals = bin_steals_;
  result_.timeline.push_back(std::move(p));
  bin_begin_ = now_;
  bin_queries_ = 0;
  bin_bytes_ = 0.0;
  bin_steals_ = 0;
  std::fill(bin_class_queries_.begin(), bin_class_queries_.end(), 0);
  std::fill(bin_busy_.begin(), bin_busy_.end(), 0.0);
  std::fill(bin_memory_.begin(), bin_memory_.end(), 0.0);
  std::fill(bin_memory_util_.begin(), bin_memory_util_.end(), 0.0);
}

AdaptiveResult Engine::run() {
  check();
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
  running_on_.assign(S_, 0);
  group_count_.assign(static_cast<std::size_t>(S_) * S_ * C_, 0);
  for (int c = 0; c < C_; ++c) {
    class_ema_.emplace_back(sc_.tracking.class_ema_weight);
    class_stats_.push_back(AdaptiveClassStats{sc_.classes[c].name});
  }
  class_task_seconds_.assign(C_, 0.0);
  class_bytes_.assign(C_, 0.0);
  socket_busy_integral_.assign(S_, 0.0);
  socket_memory_integral_.assign(S_, 0.0);
  socket_busy_history_.assign(S_, SampledHistory(keep));
  socket_memory_history_.assign(S_, SampledHistory(keep));
  socket_layout_changed_s_.assign(S_, -kInfinity);
  bin_class_queries_.assign(C_, 0);
  bin_busy_.assign(S_, 0.0);
  bin_memory_.assign(S_, 0.0);
  bin_memory_util_.assign(S_, 0.0);
  run_busy_.assign(S_, 0.0);
  run_memory_util_.assign(S_, 0.0);
  for (int g = 0; g < static_cast<int>(sc_.clients.size()); ++g) {
    for (int k = 0; k < sc_.clients[g].count; ++k) clients_.push_back(Client{g, false});
  }

  const double end = sc_.duration_s;
  const double sample = sc_.tracking.sample_period_s;
  const double period = sc_.placer.period_s;
  const double bin = options_.timeline_bin_s;
  double sample_index = 1;  // counters kept as doubles: timer k fires at k x period
  double placer_index = 1;
  double bin_index = 1;
  std::vector<int> finished;
  long stalled = 0;
  while (true) {
    // Clients whose start time has come issue their first query.
    for (int c = 0; c < static_cast<int>(clients_.size()); ++c) {
      if (!clients_[c].started && sc_.clients[clients_[c].group].start_s <= now_) {
        clients_[c].started = true;
        issue_query(c);
      }
    }
    dispatch();
    if (now_ >= end) break;
    const CachedRates& r = rates();
    double next = std::min({end, sample_index * sample, bin_index * bin});
    if (sc_.placer_enabled) next = std::min(next, placer_index * period);
    for (const Client& c : clients_) {
      if (!c.started) next = std::min(next, std::max(now_, sc_.clients[c.group].start_s));
    }
    int first_done = -1;
    for (int id : running_) {
      const Task& task = tasks_[id];
      const double rate = r.group_rate[(task.worker_socket * S_ + task.data_socket) * C_ + task.task_class];
      if (rate > 0.0 && now_ + task.remaining / rate < next) {
        next = now_ + task.remaining / rate;
        first_done = id;
      }
    }
    bool operation_done = false;
    if (operation_ && r.operation_rate > 0.0 && now_ + operation_->remaining / r.operation_rate <= next) {
      next = now_ + operation_->remaining / r.operation_rate;
      operation_done = true;
      first_done = -1;
    }
    if (operation_ && operation_->remaining <= 0.0) {
      next = now_;
      operation_done = true;
      first_done = -1;
    }
    const double dt = next - now_;
    // Integrate over [now, next).
    for (int id : running_) {
      Task& task = tasks_[id];
      const double rate = r.group_rate[(task.worker_socket * S_ + task.data_socket) * C_ + task.task_class];
      const double bytes = std::min(task.remaining, rate * dt);
      task.remaining -= bytes;
      Part& part = parts_[task.part];
      part.cpu_integral += dt;
      part.memory_integral += bytes;
      bin_bytes_ += bytes;
      result_.bytes += bytes;
      class_task_seconds_[task.task_class] += dt;
      class_bytes_[task.task_class] += bytes;
      if (id == first_done) task.remaining = 0.0;
    }
    for (int s = 0; s < S_; ++s) {
      socket_busy_integral_[s] += running_on_[s] * dt;
      socket_memory_integral_[s] += r.memory_load[s] * dt;
      bin_busy_[s] += running_on_[s] * dt;
      bin_memory_[s] += r.memory_load[s] * dt;
      bin_memory_util_[s] += r.memory_utilisation[s] * dt;
      run_busy_[s] += running_on_[s] * dt;
      run_memory_util_[s] += r.memory_utilisation[s] * dt;
    }
    if (operation_) operation_->remaining = operation_done ? 0.0 : operation_->remaining - r.operation_rate * dt;
    now_ = next;
    // Completions.
    finished.clear();
    for (int id : running_) {
      if (tasks_[id].remaining <= 1e-9 * tasks_[id].bytes) finished.push_back(id);
    }
    if (!finished.empty()) {
      running_.erase(std::remove_if(running_.begin(), running_.end(),
                                    [&](int id) { return std::find(finished.begin(), finished.end(), id) != finished.end(); }),
                     running_.end());
      for (int id : finished) finish_task(id);
    }
    if (operation_done) finish_phase();
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
  if (bin_begin_ < now_) close_bin();

  result_.duration_s = now_;
  result_.queries_per_s = now_ > 0.0 ? static_cast<double>(result_.queries) / now_ : 0.0;
  for (const Part& part : parts_) {
    if (part.alive) result_.final_placement.push_back(AdaptivePart{sc_.tables[part.table].name, part.socket, part.bytes});
  }
  for (int c = 0; c < C_; ++c) {
    AdaptiveClassStats& cs = class_stats_[c];
    cs.task_bytes_per_s = class_task_seconds_[c] > 0.0 ? class_bytes_[c] / class_task_seconds_[c] : 0.0;
    cs.ema_task_bytes_per_s = class_ema_[c].empty() ? 0.0 : class_ema_[c].value();
    cs.stealing_allowed_at_end = may_steal(c);
  }
  result_.classes = class_stats_;
  for (int s = 0; s < S_; ++s) {
    result_.socket_cpu_share.push_back(now_ > 0.0 ? run_busy_[s] / now_ / W_ : 0.0);
    result_.socket_memory_utilisation.push_back(now_ > 0.0 ? run_memory_util_[s] / now_ : 0.0);
  }
  return std::move(result_);
}

}  // namespace

AdaptiveResult run_adaptive(const model::Topology& topology, const AdaptiveScenario& scenario, const AdaptiveRunOptions& options) {
  if (!(options.timeline_bin_s > 0.0)) throw std::invalid_argument("adaptive: timeline bins must be > 0 s");
  Engine engine(topology, scenario, options);
  return engine.run();
}

}  // namespace numatwin::sim
