// Query types in the adaptive engine (adaptive_engine_state.hpp): a query of a type runs the
// stages of adaptive_query_plan.hpp one after the other. Each stage is planned when it starts,
// on the layout of that moment (the table's live parts in part order; for a join, the other
// table's too), so a placer operation that finished meanwhile is seen by the next stage. Its
// tasks are queued like any other: a task that follows a part at the part's socket (and moves
// with it), any other at its queue socket; a task reads from its read socket, or its part's.
// A stage without tasks is skipped. The query completes when its last stage does.
// Accounting per type and phase: task-seconds, bytes, and bytes read remotely (data socket !=
// worker socket); per type: queries and the summed latency (issue to completion).
#include "adaptive_engine_state.hpp"

namespace numatwin::sim::adaptive_detail {

void Engine::issue_stage(int query_id) {
  Query& q = queries_[query_id];
  const AdaptiveQueryType& type = sc_.query_types[q.query_type];
  std::vector<PlanPart> parts;
  std::vector<PlanPart> other;
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    if (!parts_[p].alive) continue;
    if (parts_[p].table == q.table) parts.push_back(PlanPart{p, parts_[p].socket, parts_[p].bytes});
    if (type.kind == AdaptiveQueryKind::kJoin && parts_[p].table == type.join_table) {
      other.push_back(PlanPart{p, parts_[p].socket, parts_[p].bytes});
    }
  }
  for (; q.stage < kAdaptiveQueryStages; ++q.stage) {
    const std::vector<PlannedTask> planned =
        plan_adaptive_query_stage(sc_, type, q.table, parts, other, q.stage);
    if (planned.empty()) continue;
    for (const PlannedTask& pt : planned) {
      const int id = new_task();
      Task& task = tasks_[id];
      task.query = query_id;
      task.part = pt.part;
      task.query_type = q.query_type;
      task.phase = static_cast<int>(pt.phase);
      task.read_socket = pt.read_socket;
      task.task_class = pt.task_class;
      task.bytes = pt.bytes;
      task.remaining = pt.bytes;
      task.sequence = sequence_++;
      ++q.tasks_left;
      enqueue(id, pt.part >= 0 ? parts_[pt.part].socket : pt.queue_socket);
    }
    return;
  }
  // Only an empty plan gets here (a table without live parts cannot happen): complete the query.
  finish_query_type(q);
  free_queries_.push_back(query_id);
  issue_query(q.client);
}

void Engine::account_phase(const Task& task, double dt, double bytes) {
  AdaptivePhaseStats& ph = query_types_.stats[task.query_type].phases[task.phase];
  ph.task_seconds += dt;
  ph.bytes += bytes;
  if (task.data_socket != task.worker_socket) ph.remote_bytes += bytes;
}

void Engine::finish_query_type(const Query& q) {
  AdaptiveQueryTypeStats& st = query_types_.stats[q.query_type];
  ++st.queries;
  st.latency_s += now_ - q.issued_s;
  ++result_.queries;
  ++bin_.queries;
}

}  // namespace numatwin::sim::adaptive_detail
