// Worker pools, queues and task stealing in the adaptive engine (adaptive_engine_state.hpp).
//
// Each socket has W workers (one per core of the smallest socket unless the scenario sets
// workers_per_socket); while the placer's copy runs on a socket it holds one of them. Each socket
// has one FIFO queue per task class; tasks carry a global sequence number (their issue order). An
// idle worker takes the oldest task over its socket's queues. If there is none and stealing is
// not denied, it steals: victims are the other sockets with stealable tasks queued, the one with
// the most first, then the fewest hops from the worker's socket, then the lowest index; it takes
// the oldest stealable task of the first victim. Whether a class may be stolen is the rule of
// adaptive_stealing.hpp on the class's moving average of task throughput, at the threshold
// effective for the sockets that hold the work now (loaded_sockets: at least one chunk of
// task_bytes queued per worker; at least one, the victim), and only while the victim's memory
// demand stays within the calibration's (victim_has_room). Tasks that start while a stolen task reads their data socket
// (or that are stolen) are marked: the moving average skips them (adaptive_queries.cpp).
// A task that starts joins its (worker socket, data socket, class) group; a group that had no
// running task makes the rates be solved again at once (adaptive_rates.cpp).
#include <algorithm>

#include "adaptive_engine_state.hpp"
#include "numatwin/sim/adaptive/adaptive_stealing.hpp"

namespace numatwin::sim::adaptive_detail {

int Engine::workers_available(int socket) const {
  const bool held = operation_ && operation_->phases[operation_->phase].run_socket == socket;
  return W_ - (held ? 1 : 0);
}

bool Engine::may_steal(int task_class, int loaded_sockets) const {
  const ExponentialAverage& ema = classes_.ema[task_class];
  const double threshold = loaded_sockets < 0 ? threshold_ : effective_stealing_threshold(threshold_, S_, loaded_sockets);
  return stealing_allowed(sc_.stealing, ema.empty() ? std::nullopt : std::optional<double>(ema.value()), threshold);
}

bool Engine::victim_has_room(int victim, int task_class) const {
  const auto rate = [&](int c) { return classes_.ema[c].empty() ? 0.0 : classes_.ema[c].value(); };
  double demand = rate(task_class);
  for (int w = 0; w < S_; ++w) {
    for (int c = 0; c < C_; ++c) {
      const int n = group_count_[(w * S_ + victim) * C_ + c];
      if (n > 0) demand += n * rate(c);
    }
  }
  return demand <= 2.0 * W_ * threshold_;
}

int Engine::loaded_sockets() const {
  int loaded = 0;
  for (int v = 0; v < S_; ++v) {
    // Sums kept incrementally drift in the last digits; a queue of exactly W chunks counts.
    if (queued_bytes_[v] >= W_ * sc_.task_bytes * (1.0 - 1e-9)) ++loaded;
  }
  return std::max(1, loaded);  // a victim, whatever its queue, holds work
}

void Engine::enqueue(int task_id, int socket) {
  queues_[socket * C_ + tasks_[task_id].task_class].push_back(task_id);
  queued_bytes_[socket] += tasks_[task_id].remaining;
}

void Engine::recount_queued_bytes() {
  for (int s = 0; s < S_; ++s) {
    queued_bytes_[s] = 0.0;
    for (int c = 0; c < C_; ++c) {
      for (int id : queues_[s * C_ + c]) queued_bytes_[s] += tasks_[id].remaining;
    }
  }
}

std::optional<int> Engine::pop_oldest(int socket, bool stealing, int loaded_sockets) {
  int best = -1;
  for (int c = 0; c < C_; ++c) {
    const std::deque<int>& q = queues_[socket * C_ + c];
    if (q.empty() || (stealing && !may_steal(c, loaded_sockets))) continue;
    if (stealing && loaded_sockets >= 0 && !victim_has_room(socket, c)) continue;
    if (best < 0 || tasks_[q.front()].sequence < tasks_[queues_[socket * C_ + best].front()].sequence) best = c;
  }
  if (best < 0) return std::nullopt;
  const int id = queues_[socket * C_ + best].front();
  queues_[socket * C_ + best].pop_front();
  queued_bytes_[socket] = std::max(0.0, queued_bytes_[socket] - tasks_[id].remaining);
  return id;
}

void Engine::start_task(int task_id, int worker_socket) {
  Task& task = tasks_[task_id];
  task.worker_socket = worker_socket;
  task.data_socket = task.read_socket >= 0 ? task.read_socket : parts_[task.part].socket;
  task.start_s = now_;
  // A task that runs while a stolen task reads its data socket is slowed by stealing: its
  // throughput is not the "stealing denied" one the threshold was calibrated on.
  for (int other : running_) {
    Task& o = tasks_[other];
    if (o.data_socket != task.data_socket) continue;
    if (o.stolen) task.beside_stolen = true;
    if (task.stolen) o.beside_stolen = true;
  }
  running_.push_back(task_id);
  ++running_on_[worker_socket];
  if (group_count_[(worker_socket * S_ + task.data_socket) * C_ + task.task_class]++ == 0) rate_cache_.new_group = true;
  rate_cache_.dirty = true;
}

void Engine::dispatch() {
  for (int s = 0; s < S_; ++s) {
    while (running_on_[s] < workers_available(s)) {
      std::optional<int> id = pop_oldest(s, false);
      if (!id && sc_.stealing != StealingMode::kDeny) {
        const int loaded = loaded_sockets();
        // Victims: longest queue, then fewest hops, then lowest index.
        std::vector<int> victims;
        std::vector<std::size_t> length(S_, 0);
        for (int v = 0; v < S_; ++v) {
          if (v == s) continue;
          for (int c = 0; c < C_; ++c) {
            if (may_steal(c, loaded)) length[v] += queues_[v * C_ + c].size();
          }
          if (length[v] > 0) victims.push_back(v);
        }
        std::stable_sort(victims.begin(), victims.end(), [&](int a, int b) {
          if (length[a] != length[b]) return length[a] > length[b];
          return routing_.hops(nodes_[s], nodes_[a]) < routing_.hops(nodes_[s], nodes_[b]);
        });
        for (int v : victims) {
          id = pop_oldest(v, true, loaded);
          if (id) break;
        }
        if (id) {
          tasks_[*id].stolen = true;
          ++bin_.steals;
        }
      }
      if (!id) break;
      start_task(*id, s);
    }
  }
}

}  // namespace numatwin::sim::adaptive_detail
