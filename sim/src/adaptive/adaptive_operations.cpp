// The Data Placer's side of the adaptive engine (adaptive_engine_state.hpp): the snapshot it
// decides on (the rule itself is adaptive_placer.hpp) and the operations that carry out its
// decisions.
//
// Snapshot, every period c_p: per socket the CPU share (busy workers / W) and memory throughput
// over the last period; per placement unit (a live part, or the matching parts of a table
// group's tables together: adaptive_table_groups.hpp) the sums of the same over its parts' own
// histories, its pages (sum of ceil(bytes / page_bytes)) and its eligibility, which compares the
// recent share with the mean over W_m = 2 x pages x move cost (to move) or W_p = 2 x pages x
// (move + partition cost) (to partition). The placer takes no snapshot until a whole period has
// passed since the last layout switch on any socket, so every socket's recent window describes
// the current layout (not the parts that just left it, nor the copy).
//
// Operations (one at a time; each phase is one copy stream that holds one worker of the socket
// it runs on, limited to page_bytes / cost per page, adaptive_rates.cpp), on every part of the
// unit, one after the other:
//     move       copy each part to the cold socket (pages x move cost at full speed), then switch;
//     partition  rewrite each part locally (pages x partition cost), then copy half of each to the
//                cold socket (pages / 2 x move cost), then split each into two parts;
//     merge      copy every part of the table (of every table of its group) that is elsewhere to
//                the target, one after the other, then join each table's parts into one part.
// The bytes copied are recorded per table. Queries keep reading the old layout meanwhile (slowed
// by the copy's traffic and the held worker); at the switch, which is one instant for the whole
// unit, queued tasks follow their data, keeping their order (a partitioned part's tasks
// alternate between the two halves).
// Per-page costs come from the scenario, or else from derived_page_costs (adaptive_engine.hpp),
// which is here with the operations it prices.
#include "numatwin/sim/adaptive/adaptive_engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <stdexcept>
#include <vector>

#include "adaptive_engine_state.hpp"

namespace numatwin::sim {

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

namespace adaptive_detail {

std::vector<LivePart> Engine::live_parts() const {
  std::vector<LivePart> live;
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    if (parts_[p].alive) live.push_back(LivePart{p, parts_[p].table, parts_[p].socket});
  }
  return live;
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
    st.cpu_share = samples_.busy_history[s].average(now_, period) / W_;
    st.memory_bytes_per_s = samples_.memory_history[s].average(now_, period);
    st.memory_capacity_bytes_per_s = model_.resource_capacity_bytes_per_s(model_.memory_resource(nodes_[s]));
    snap.sockets.push_back(st);
  }
  std::vector<int> table_parts(sc_.tables.size(), 0);
  for (const Part& part : parts_) {
    if (part.alive) ++table_parts[part.table];
  }
  // One state per unit (a part, or the matching parts of a table group's tables): its id and
  // table are its first part's, its shares, throughput and pages the sums over its parts.
  for (const std::vector<int>& unit : adaptive_placement_units(sc_, live_parts())) {
    const Part& first = parts_[unit.front()];
    PlacerPartState ps;
    ps.part = unit.front();
    ps.table = first.table;
    ps.socket = first.socket;
    ps.table_parts = table_parts[first.table];
    const double move_window_per_page = 2.0 * costs_.move_s_per_page;
    const double partition_window_per_page = 2.0 * (costs_.move_s_per_page + costs_.partition_s_per_page);
    for (int p : unit) ps.pages += std::ceil(parts_[p].bytes / sc_.page_bytes);
    double move_average = 0.0;
    double partition_average = 0.0;
    double history_s = std::numeric_limits<double>::infinity();
    for (int p : unit) {
      const Part& part = parts_[p];
      ps.cpu_share += part.cpu_history.average(now_, period) / W_;
      ps.memory_bytes_per_s += part.memory_history.average(now_, period);
      // The study's rule (docs/adaptive.md): the utilisation over the time a move would take,
      // times 2, within c_e of the recent one.
      move_average += part.cpu_history.average(now_, move_window_per_page * ps.pages) / W_;
      partition_average += part.cpu_history.average(now_, partition_window_per_page * ps.pages) / W_;
      history_s = std::min(history_s, part.cpu_history.covered_s());
    }
    ps.history_s = history_s;
    ps.move_window_s = move_window_per_page * ps.pages;
    ps.partition_window_s = partition_window_per_page * ps.pages;
    // The rule needs the history it averages over: a unit whose history (its own, or what it
    // inherited from the parts it came from) is shorter than the window is not eligible (one
    // sample period of slack for the sample clock).
    const double slack = sc_.tracking.sample_period_s;
    const double c_e = sc_.placer.eligibility_divergence;
    ps.move_history_short = history_s + slack < ps.move_window_s;
    ps.move_eligible = !ps.move_history_short && placer_eligible(ps.cpu_share, move_average, c_e);
    ps.partition_eligible = history_s + slack >= ps.partition_window_s && placer_eligible(ps.cpu_share, partition_average, c_e);
    snap.parts.push_back(ps);
  }
  const PlacerDecision decision = decide_placement(snap, sc_.placer);
  if (decision.action != PlacerAction::kNone) {
    start_operation(decision);
  } else {
    result_.placer_last_idle_s = now_;
    result_.placer_last_idle_reason = decision.reason;
  }
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
  event.group = sc_.tables[decision.table].group;
  const std::vector<int> tables = adaptive_group_tables(sc_, decision.table);
  std::vector<double> copied(sc_.tables.size(), 0.0);
  if (decision.action == PlacerAction::kMerge) {
    op.members = tables;
    for (const Part& part : parts_) {
      if (!part.alive || part.socket == decision.to_socket) continue;
      if (std::find(tables.begin(), tables.end(), part.table) == tables.end()) continue;
      op.phases.push_back({part.socket, decision.to_socket, decision.to_socket, part.bytes, move_rate});
      copied[part.table] += part.bytes;
    }
  } else {
    for (const std::vector<int>& unit : adaptive_placement_units(sc_, live_parts())) {
      if (unit.front() == decision.part) op.members = unit;
    }
    if (op.members.empty()) throw std::logic_error("adaptive: the placer chose a part that is not live");
    if (decision.action == PlacerAction::kMove) {
      for (int p : op.members) {
        op.phases.push_back({parts_[p].socket, decision.to_socket, decision.to_socket, parts_[p].bytes, move_rate});
        copied[parts_[p].table] += parts_[p].bytes;
      }
    } else {  // partition: every member rewritten locally, then every member's half copied
      for (int p : op.members) {
        op.phases.push_back({parts_[p].socket, parts_[p].socket, parts_[p].socket, parts_[p].bytes, partition_rate});
        copied[parts_[p].table] += parts_[p].bytes;
      }
      for (int p : op.members) {
        op.phases.push_back({parts_[p].socket, decision.to_socket, decision.to_socket, parts_[p].bytes / 2.0, move_rate});
        copied[parts_[p].table] += parts_[p].bytes / 2.0;
      }
    }
  }
  for (int t : tables) {
    event.copies.push_back(AdaptiveTableCopy{sc_.tables[t].name, copied[t]});
    event.bytes += copied[t];
  }
  op.event = static_cast<int>(result_.placer_events.size());
  result_.placer_events.push_back(event);
  if (op.phases.empty()) {  // a merge with every part already on the target
    op.phases.push_back({decision.to_socket, decision.to_socket, decision.to_socket, 0.0, move_rate});
  }
  op.remaining = op.phases.front().bytes;
  operation_ = std::move(op);
  rate_cache_.dirty = true;
  rate_cache_.new_group = true;
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
  recount_queued_bytes();
}

void Engine::finish_phase() {
  Operation& op = *operation_;
  ++op.phase;
  rate_cache_.dirty = true;
  rate_cache_.new_group = true;
  if (op.phase < op.phases.size()) {
    op.remaining = op.phases[op.phase].bytes;
    return;
  }
  const PlacerDecision& d = op.decision;
  const double keep = sc_.tracking.history_s;
  const bool merge = d.action == PlacerAction::kMerge;
  const auto member = [&](int p) {
    return merge ? std::find(op.members.begin(), op.members.end(), parts_[p].table) != op.members.end()
                 : std::find(op.members.begin(), op.members.end(), p) != op.members.end();
  };
  // The layout switches now, for every part of the unit (or every table of the group) at once,
  // on every socket that gains or loses data (run_placer waits a period).
  socket_layout_changed_s_[d.to_socket] = now_;
  for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
    if (parts_[p].alive && member(p)) socket_layout_changed_s_[parts_[p].socket] = now_;
  }
  if (d.action == PlacerAction::kMove) {
    for (int p : op.members) {
      parts_[p].socket = d.to_socket;
      move_queued_tasks({p}, {p});
    }
  } else if (d.action == PlacerAction::kPartition) {
    // Second halves appended in member order: each is its table's last live part, all on d.to_socket.
    // Each half keeps half the parent's history (adaptive_utilisation.hpp), and half of what it
    // has gathered since the last sample.
    for (int p : op.members) {
      const double half = parts_[p].bytes / 2.0;
      parts_[p].bytes = half;
      parts_[p].cpu_history.scale(0.5);
      parts_[p].memory_history.scale(0.5);
      parts_[p].cpu_integral *= 0.5;
      parts_[p].memory_integral *= 0.5;
      Part fresh = parts_[p];
      fresh.socket = d.to_socket;
      parts_.push_back(std::move(fresh));
      move_queued_tasks({p}, {p, static_cast<int>(parts_.size()) - 1});
    }
  } else {
    for (int table : op.members) {
      std::vector<int> old_parts;
      double bytes = 0.0;
      for (int p = 0; p < static_cast<int>(parts_.size()); ++p) {
        if (parts_[p].alive && parts_[p].table == table) {
          old_parts.push_back(p);
          bytes += parts_[p].bytes;
        }
      }
      // The merged part starts with the sum of its parts' histories (adaptive_utilisation.hpp).
      Part merged(table, d.to_socket, bytes, keep);
      for (int p : old_parts) {
        merged.cpu_history.add_history(parts_[p].cpu_history);
        merged.memory_history.add_history(parts_[p].memory_history);
        merged.cpu_integral += parts_[p].cpu_integral;
        merged.memory_integral += parts_[p].memory_integral;
      }
      parts_.push_back(std::move(merged));
      for (int p : old_parts) parts_[p].alive = false;
      move_queued_tasks(old_parts, {static_cast<int>(parts_.size()) - 1});
    }
  }
  AdaptivePlacerEvent& event = result_.placer_events[op.event];
  event.done_s = now_;
  for (int table : adaptive_group_tables(sc_, d.table)) {
    for (const Part& part : parts_) {
      if (part.alive && part.table == table) event.parts_after.push_back(AdaptivePart{sc_.tables[table].name, part.socket, part.bytes});
    }
  }
  operation_.reset();
}

}  // namespace adaptive_detail
}  // namespace numatwin::sim
