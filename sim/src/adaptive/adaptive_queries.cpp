// Clients, queries and tasks of the adaptive engine (adaptive_engine_state.hpp).
//
// A client of group g starts at its start_s and issues queries back to back until stop_s: each
// query draws a table and a task class from the group's weights (seeded mt19937_64; a draw is
// the first choice whose cumulative weight exceeds u x total weight, u uniform in [0, 1) from the
// top 53 bits). A query of class c on table T becomes one task per task_bytes chunk of every live
// part of T,
//     chunks = max(1, ceil(part bytes / task_bytes - 1e-9)),   task bytes = part bytes / chunks,
// queued in class c's queue at the part's socket (adaptive_dispatch.cpp). The query completes
// when its last task does, and its client issues the next one at once (a closed system). A
// finished task adds bytes / run time to its class's moving average (adaptive_utilisation.hpp),
// which adaptive stealing reads. A query of a query type runs its stages instead
// (adaptive_query_stages.cpp); it completes when the last task of its last stage does.
#include <algorithm>
#include <cmath>

#include "adaptive_engine_state.hpp"

namespace numatwin::sim::adaptive_detail {

namespace {

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

}  // namespace

void Engine::start_due_clients() {
  for (int c = 0; c < static_cast<int>(clients_.size()); ++c) {
    if (!clients_[c].started && sc_.clients[clients_[c].group].start_s <= now_) {
      clients_[c].started = true;
      issue_query(c);
    }
  }
}

void Engine::issue_query(int client) {
  const AdaptiveClientGroup& group = sc_.clients[clients_[client].group];
  if (now_ >= group.stop_s) return;
  const int table = draw(rng_, group.tables);
  // A class or a query type, drawn together: query type q is coded -(q + 1). A group without
  // query types draws exactly as before they existed.
  int task_class;
  if (group.query_types.empty()) {
    task_class = draw(rng_, group.classes);
  } else {
    std::vector<WeightedChoice> both = group.classes;
    for (const WeightedChoice& q : group.query_types) both.push_back(WeightedChoice{-(q.index + 1), q.weight});
    task_class = draw(rng_, both);
  }
  int query_id;
  if (!free_queries_.empty()) {
    query_id = free_queries_.back();
    free_queries_.pop_back();
  } else {
    query_id = static_cast<int>(queries_.size());
    queries_.emplace_back();
  }
  Query& q = queries_[query_id];
  if (task_class < 0) {
    q = Query{client, -1, 0, -(task_class + 1), table, 0, now_};
    issue_stage(query_id);
    return;
  }
  q = Query{client, task_class, 0, -1, table, 0, now_};
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    if (!parts_[p].alive || parts_[p].table != table) continue;
    const int chunks = std::max(1, static_cast<int>(std::ceil(parts_[p].bytes / sc_.task_bytes - 1e-9)));
    for (int k = 0; k < chunks; ++k) {
      const int id = new_task();
      Task& task = tasks_[id];
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

int Engine::new_task() {
  int id = 0;
  if (!free_tasks_.empty()) {
    id = free_tasks_.back();
    free_tasks_.pop_back();
  } else {
    id = static_cast<int>(tasks_.size());
    tasks_.emplace_back();
  }
  tasks_[id] = Task{};
  return id;
}

void Engine::finish_task(int task_id) {
  Task& task = tasks_[task_id];
  const double seconds = now_ - task.start_s;
  // The moving average is of tasks that ran as with stealing denied (the calibration's per-task
  // throughput): not stolen, and no stolen task read their data socket meanwhile. A stolen
  // task's remote rate, or a local one slowed by thieves' streams, would lower it, and a
  // memory-bound class would then look light and be stolen more (it ran away on skewed-8-tables:
  // the scans' average fell from 5.1 to 2.4 GB/s per task, under the threshold).
  if (seconds > 0.0 && !task.stolen && !task.beside_stolen) classes_.ema[task.task_class].add(task.bytes / seconds);
  AdaptiveClassStats& cs = classes_.stats[task.task_class];
  ++cs.tasks;
  if (task.stolen) ++cs.stolen_tasks;
  if (task.query_type >= 0) ++query_types_.stats[task.query_type].phases[task.phase].tasks;
  --running_on_[task.worker_socket];
  --group_count_[(task.worker_socket * S_ + task.data_socket) * C_ + task.task_class];
  rate_cache_.dirty = true;
  Query& q = queries_[task.query];
  free_tasks_.push_back(task_id);
  if (--q.tasks_left == 0 && q.query_type >= 0) {
    if (++q.stage < kAdaptiveQueryStages) {
      issue_stage(task.query);
      return;
    }
    finish_query_type(q);
    free_queries_.push_back(task.query);
    issue_query(q.client);
    return;
  }
  if (q.tasks_left == 0) {
    ++cs.queries;
    ++result_.queries;
    ++bin_.queries;
    ++bin_.class_queries[q.task_class];
    free_queries_.push_back(task.query);
    issue_query(q.client);
  }
}

}  // namespace numatwin::sim::adaptive_detail
