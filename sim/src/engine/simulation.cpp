#include "numatwin/sim/engine/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace numatwin::sim {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct ThreadState {
  std::size_t op = 0;
  int core = 0;
  bool done = false;
  bool at_barrier = false;
  bool timed = false;        // in a Compute or Bind overhead until `timed_end`
  double timed_end = 0.0;
  Phase timed_phase = Phase::kOther;
  bool timed_on_core = false;  // a Compute (the core works), not a Bind's overhead
  double timed_cache_share = 0.0;   // of a Compute: the share waiting on cache hits
  double timed_memory_share = 0.0;  // ... and on dependent misses
  bool transferring = false;
  double remaining = 0.0;
  int leaving_core = 0;  // while a Bind is being resolved (core == -1)
};

}  // namespace

PhaseBound phase_bound(const PhaseTime& p) {
  const double core = p.core_s + p.core_carried_s;
  if (!(core > 0.0) && !(p.memory_alone_s > 0.0) && !(p.cache_transfer_s > 0.0)) return PhaseBound::kNone;
  if (p.cache_transfer_s > p.memory_alone_s && p.cache_transfer_s > core) return PhaseBound::kCache;
  if (p.memory_alone_s >= core) return PhaseBound::kMemory;
  if (p.core_carried_s > p.core_s) return PhaseBound::kCarried;
  return p.cache_s > p.core_s - p.cache_s ? PhaseBound::kCache : PhaseBound::kCore;
}

const char* phase_bound_name(PhaseBound bound) {
  switch (bound) {
    case PhaseBound::kNone: return "-";
    case PhaseBound::kCore: return "core";
    case PhaseBound::kCache: return "cache";
    case PhaseBound::kMemory: return "memory";
    case PhaseBound::kCarried: return "carried";
  }
  return "-";
}

int SimulationResult::bottleneck_resource() const {
  int best = -1;
  for (std::size_t r = 0; r < saturated_fraction.size(); ++r) {
    if (saturated_fraction[r] <= 0.0) continue;
    if (best < 0 || saturated_fraction[r] > saturated_fraction[best]) best = static_cast<int>(r);
  }
  return best;
}

int SimulationResult::busiest_resource() const {
  int best = -1;
  for (std::size_t r = 0; r < mean_utilisation.size(); ++r) {
    if (best < 0 || mean_utilisation[r] > mean_utilisation[best]) best = static_cast<int>(r);
  }
  return best;
}

Simulation::Simulation(const model::Topology& topology)
    : topology_(&topology), routing_(topology), model_(topology, routing_) {}

SimulationResult Simulation::run(const Plan& plan, const SimulationOptions& options) {
  const model::Topology& t = *topology_;
  const int thread_count = static_cast<int>(plan.threads.size());
  const int core_count = model_.core_count();
  const int node_count = static_cast<int>(t.nodes.size());

  SimulationResult result;
  for (int r = 0; r < model_.resource_count(); ++r) {
    result.resources.push_back(ResourceInfo{model_.resource_name(r), model_.resource_kind(r),
                                            model_.resource_capacity_bytes_per_s(r)});
  }
  const int resource_count = model_.resource_count();
  std::vector<double> busy(resource_count, 0.0);       // integral of utilisation over time
  std::vector<double> saturated(resource_count, 0.0);  // time spent at >= kSaturatedUtilisation
  result.steps.resize(static_cast<std::size_t>(std::max(plan.steps, 0)));
  for (int k = 0; k < plan.steps; ++k) {
    result.steps[k].step = k;
    result.steps[k].begin_s = kInfinity;
  }

  result.phases.resize(kPhaseCount);
  for (int p = 0; p < kPhaseCount; ++p) result.phases[p].phase = static_cast<Phase>(p);
  auto phase_of = [&](Phase p) -> PhaseTime& { return result.phases[static_cast<std::size_t>(p)]; };

  std::vector<ThreadState> threads(thread_count);
  std::vector<int> on_core(core_count, 0);
  for (int i = 0; i < thread_count; ++i) {
    const ThreadPlan& tp = plan.threads[i];
    if (tp.core < 0 || tp.core >= core_count) {
      throw std::invalid_argument("plan: thread " + std::to_string(i) + " starts on core " + std::to_string(tp.core) +
                                  ", which does not exist");
    }
    for (const Op& op : tp.ops) {
      const auto bad_node = [&](model::NodeIndex node) { return node < -1 || node >= node_count; };
      if (const auto* tr = std::get_if<Transfer>(&op)) {
        const bool nothing = tr->read_node < 0 && tr->write_node < 0 && tr->read_spread.empty() && tr->write_spread.empty();
        if (bad_node(tr->read_node) || bad_node(tr->write_node) || nothing || !(tr->bytes >= 0.0) ||
            tr->step >= plan.steps || !(tr->cycles_per_byte >= 0.0) || !(tr->lines_in_flight >= 0.0)) {
          throw std::invalid_argument("plan: thread " + std::to_string(i) + " has an invalid transfer");
        }
      } else if (const auto* b = std::get_if<Bind>(&op)) {
        if (b->node < 0 || b->node >= node_count || !t.nodes[b->node].has_cores()) {
          throw std::invalid_argument("plan: thread " + std::to_string(i) + " binds to a node without cores");
        }
      }
    }
    threads[i].core = tp.core;
    ++on_core[tp.core];
  }

  auto core_share = [&](int core) {
    const int per_core = t.nodes[model_.node_of_core(core)].threads_per_core;
    return std::min(1.0, static_cast<double>(per_core) / std::max(1, on_core[core]));
  };
  auto pick_core = [&](model::NodeIndex node) {
    const int first = model_.core_of(node, 0);
    int best = first;
    for (int c = first; c < first + t.nodes[node].cores; ++c) {
      if (on_core[c] < on_core[best]) best = c;
    }
    return best;
  };

  const bool time_only = options.time_only;
  // A transfer's progress from `now` to `next` at `rate`: the bytes it moves, and whether it
  // completes exactly at `next` (then all its remaining bytes). Both paths below use it, so a
  // time-only run advances bit for bit as a full one.
  struct Advance {
    double moved;
    bool finishes;
  };
  double now = 0.0;
  auto advance = [&now](ThreadState& th, double rate, double next) {
    const bool finishes = rate > 0.0 && now + th.remaining / rate <= next;
    const double moved = finishes ? th.remaining : std::min(th.remaining, rate * (next - now));
    th.remaining -= moved;
    return Advance{moved, finishes};
  };
  double stage_begin_s = 0.0;  // when the current named stage began (result.stages)
  std::vector<int> active;  // threads with a transfer in flight
  std::vector<model::Stream> streams;

  // Runs instantaneous ops until every thread is transferring, timed, at a barrier or done.
  auto settle = [&]() {
    bool changed = true;
    while (changed) {
      changed = false;
      // Threads about to move leave their cores first, so that threads released together (after a
      // barrier) do not see cores that are about to empty as busy.
      for (int i = 0; i < thread_count; ++i) {
        ThreadState& th = threads[i];
        const ThreadPlan& tp = plan.threads[i];
        if (th.done || th.at_barrier || th.timed || th.transferring || th.core < 0 || th.op >= tp.ops.size()) continue;
        if (std::holds_alternative<Bind>(tp.ops[th.op])) {
          --on_core[th.core];
          th.leaving_core = th.core;
          th.core = -1;
        }
      }
      int waiting = 0;
      int running = 0;
      for (int i = 0; i < thread_count; ++i) {
        ThreadState& th = threads[i];
        const ThreadPlan& tp = plan.threads[i];
        while (!th.done && !th.at_barrier && !th.timed && !th.transferring) {
          if (th.op >= tp.ops.size()) {
            th.done = true;
            --on_core[th.core];
            changed = true;
            break;
          }
          const Op& op = tp.ops[th.op];
          if (const auto* tr = std::get_if<Transfer>(&op)) {
            if (tr->bytes <= 0.0) {
              ++th.op;
              continue;
            }
            th.transferring = true;
            th.remaining = tr->bytes;
            if (tr->step >= 0 && !time_only) result.steps[tr->step].begin_s = std::min(result.steps[tr->step].begin_s, now);
          } else if (const auto* c = std::get_if<Compute>(&op)) {
            ++th.op;
            if (c->seconds > 0.0) {
              th.timed = true;
              th.timed_end = now + c->seconds / core_share(th.core);
              th.timed_phase = c->phase;
              th.timed_on_core = true;
              th.timed_memory_share = std::clamp(c->memory_share, 0.0, 1.0);
              th.timed_cache_share = std::clamp(c->cache_share, 0.0, 1.0 - th.timed_memory_share);
            }
          } else if (const auto* b = std::get_if<Bind>(&op)) {
            ++th.op;
            if (th.core >= 0) {  // reached this Bind within the same pass: leave now
              --on_core[th.core];
              th.leaving_core = th.core;
            }
            // Staying on the node keeps the core; moving takes the least busy core there.
            th.core = model_.node_of_core(th.leaving_core) == b->node ? th.leaving_core : pick_core(b->node);
            ++on_core[th.core];
            if (b->overhead_seconds > 0.0) {
              th.timed = true;
              th.timed_end = now + b->overhead_seconds;
              th.timed_phase = b->phase;
              th.timed_on_core = false;
            }
          } else {
            th.at_barrier = true;
          }
        }
        if (!th.done) ++running;
        if (th.at_barrier) ++waiting;
      }
      if (running > 0 && waiting == running) {
        for (int i = 0; i < thread_count; ++i) {  // the stage this barrier ends, if named
          if (!threads[i].at_barrier) continue;
          const std::string_view stage = std::get<Barrier>(plan.threads[i].ops[threads[i].op]).ends_stage;
          if (!stage.empty()) {
            result.stages.push_back(StageSpan{std::string(stage), stage_begin_s, now});
            stage_begin_s = now;
          }
          break;
        }
        for (ThreadState& th : threads) {
          if (th.at_barrier) {
            th.at_barrier = false;
            ++th.op;
          }
        }
        changed = true;
      }
    }
  };

  settle();
  for (;;) {
    active.clear();
    streams.clear();
    double next = kInfinity;
    for (int i = 0; i < thread_count; ++i) {
      const ThreadState& th = threads[i];
      if (th.timed) next = std::min(next, th.timed_end);
      if (!th.transferring) continue;
      const auto& tr = std::get<Transfer>(plan.threads[i].ops[th.op]);
      model::Stream s;
      s.core = th.core;
      s.cpu_node = model_.node_of_core(th.core);
      s.read_node = tr.read_node;
      s.write_node = tr.write_node;
      s.read_spread = tr.read_spread.span();
      s.write_spread = tr.write_spread.span();
      s.lines_in_flight = tr.lines_in_flight;
      const double cycles = tr.cycles_per_byte;
      if (cycles > 0.0) {
        s.rate_limit_bytes_per_s = t.nodes[s.cpu_node].frequency_ghz * 1e9 * core_share(th.core) / cycles;
      }
      active.push_back(i);
      streams.push_back(s);
    }
    if (active.empty() && next == kInfinity) break;  // everything finished

    const model::StreamRates* rates = nullptr;
    if (!active.empty()) {
      rates = &model_.solve(streams);
      result.solver_rounds += rates->rounds;
      for (std::size_t a = 0; a < active.size(); ++a) {
        const double rate = rates->rate_bytes_per_s[a];
        if (rate > 0.0) next = std::min(next, now + threads[active[a]].remaining / rate);
      }
    }
    if (next == kInfinity) {
      throw std::logic_error("simulation stalled at t = " + std::to_string(now) + " s: transfers with no bandwidth");
    }
    const double dt = next - now;
    ++result.events;
    if (time_only) {
      // The same advance as below without the bookkeeping: remaining bytes and completions.
      for (std::size_t a = 0; a < active.size(); ++a) {
        ThreadState& th = threads[active[a]];
        const double rate = rates->rate_bytes_per_s[a];
        if (advance(th, rate, next).finishes) {
          th.transferring = false;
          th.remaining = 0.0;
          ++th.op;
        }
      }
      for (ThreadState& th : threads) {
        if (th.timed && th.timed_end <= next) th.timed = false;
      }
      now = next;
      settle();
      continue;
    }
    if (rates != nullptr) {
      for (int r = 0; r < resource_count; ++r) {
        busy[r] += rates->utilisation[r] * dt;
        if (rates->utilisation[r] >= SimulationResult::kSaturatedUtilisation) saturated[r] += dt;
      }
      if (options.record_timeline && dt > 0.0) {
        TimelineSegment seg;
        seg.begin_s = now;
        seg.end_s = next;
        seg.utilisation.assign(rates->utilisation.begin(), rates->utilisation.end());
        seg.active_transfers = static_cast<int>(active.size());
        result.timeline.push_back(std::move(seg));
      }
    }
    // Phases: every thread spends dt in exactly one phase (plan.hpp: Phase); the wall clock's dt
    // is shared by the threads that work (transfer, compute or re-bind).
    int working = 0;
    for (const ThreadState& th : threads) working += th.transferring || th.timed ? 1 : 0;
    const double wall = working > 0 ? dt / working : 0.0;
    for (const ThreadState& th : threads) {
      if (th.transferring) continue;  // below, with its rate
      PhaseTime& p = phase_of(th.done ? Phase::kFinished : th.at_barrier ? Phase::kBarrierWait : th.timed_phase);
      p.thread_s += dt;
      if (th.timed) p.wall_s += wall;
      if (th.timed && th.timed_on_core) {
        // A dependent miss timed on the core is the memory's time (the core waits on it).
        p.core_s += dt * (1.0 - th.timed_memory_share);
        p.cache_s += dt * th.timed_cache_share;
        p.memory_s += dt * th.timed_memory_share;
        p.memory_alone_s += dt * th.timed_memory_share;
        result.bound.core_s += dt * (1.0 - th.timed_memory_share);
        result.bound.miss_buffers_s += dt * th.timed_memory_share;  // one dependent miss in flight
      }
    }
    // Advance every transfer; the ones due at `next` complete exactly.
    for (std::size_t a = 0; a < active.size(); ++a) {
      ThreadState& th = threads[active[a]];
      const auto& tr = std::get<Transfer>(plan.threads[active[a]].ops[th.op]);
      const double rate = rates->rate_bytes_per_s[a];
      switch (rates->limits[a]) {
        case model::StreamLimit::kResource: result.bound.resource_s += dt; break;
        case model::StreamLimit::kMissBuffers: result.bound.miss_buffers_s += dt; break;
        case model::StreamLimit::kRateLimit: result.bound.core_s += dt; break;
        case model::StreamLimit::kCachePath: result.bound.cache_path_s += dt; break;
      }
      {
        // The core works a share u of dt (rate over the core-bound rate), split between the
        // transfer's phase and the core phase it carries by their cycles; the rest is memory.
        const double limit = streams[a].rate_limit_bytes_per_s;
        const double u = limit > 0.0 && std::isfinite(limit) ? std::clamp(rate / limit, 0.0, 1.0) : 0.0;
        const double other = std::clamp(tr.core_phase_share, 0.0, 1.0);
        PhaseTime& own = phase_of(tr.phase);
        PhaseTime& carried = phase_of(tr.core_phase);
        own.thread_s += dt * (1.0 - u * other);
        own.core_s += dt * u * (1.0 - other);
        own.memory_s += dt * (1.0 - u);
        own.wall_s += wall * (1.0 - u * other);
        carried.thread_s += dt * u * other;
        carried.core_s += dt * u * other;
        carried.wall_s += wall * u * other;
        own.core_carried_s += dt * u * other;
        // Cache waits are the carried phase's when there is one (a scan's own work has none).
        (other > 0.0 ? carried : own).cache_s += dt * u * tr.cache_share();
      }
      const auto [moved, finishes] = advance(th, rate, next);
      {
        // What the memory alone would take for these bytes, hidden under the core's work or not.
        const double memory_rate = rates->memory_rate_bytes_per_s[a];
        phase_of(tr.phase).memory_alone_s += memory_rate > 0.0 ? std::min(moved / memory_rate, dt) : dt;
        phase_of(tr.phase).cache_transfer_s += moved * rates->in_cache_s_per_byte[a];
      }
      const model::NodeIndex here = model_.node_of_core(th.core);
      for (model::NodeIndex memory : {tr.read_node, tr.write_node}) {
        if (memory < 0) continue;
        (memory == here ? result.local_bytes : result.remote_bytes) += moved;
      }
      for (const auto* spread : {&tr.read_spread, &tr.write_spread}) {
        for (const model::NodeShare& share : *spread) {
          (share.node == here ? result.local_bytes : result.remote_bytes) += moved * share.fraction;
        }
      }
      result.bytes += moved;
      phase_of(tr.phase).bytes += moved;
      if (tr.step >= 0) result.steps[tr.step].bytes += moved;
      if (finishes) {
        th.transferring = false;
        th.remaining = 0.0;
        if (tr.step >= 0) result.steps[tr.step].end_s = std::max(result.steps[tr.step].end_s, next);
        ++th.op;
      }
    }
    for (ThreadState& th : threads) {
      if (th.timed && th.timed_end <= next) th.timed = false;
    }
    now = next;
    settle();
  }

  result.time_s = now;
  if (!plan.final_stage.empty() && !result.stages.empty())
    result.stages.push_back(StageSpan{std::string(plan.final_stage), stage_begin_s, now});
  result.mean_utilisation.assign(resource_count, 0.0);
  result.saturated_fraction.assign(resource_count, 0.0);
  if (now > 0.0) {
    for (int r = 0; r < resource_count; ++r) {
      result.mean_utilisation[r] = busy[r] / now;
      result.saturated_fraction[r] = saturated[r] / now;
    }
  }
  // Per-step utilisation: time average of the timeline over each step's window.
  for (StepStats& step : result.steps) {
    if (step.begin_s == kInfinity) step.begin_s = step.end_s = 0.0;
    step.mean_utilisation.assign(resource_count, 0.0F);
    const double window = step.end_s - step.begin_s;
    if (window <= 0.0) continue;
    std::vector<double> sum(resource_count, 0.0);
    // Segments are in time order: start at the first one that ends after the window opens.
    auto first = std::upper_bound(result.timeline.begin(), result.timeline.end(), step.begin_s,
                                  [](double t0, const TimelineSegment& seg) { return t0 < seg.end_s; });
    for (auto it = first; it != result.timeline.end() && it->begin_s < step.end_s; ++it) {
      const TimelineSegment& seg = *it;
      const double overlap = std::min(seg.end_s, step.end_s) - std::max(seg.begin_s, step.begin_s);
      if (overlap <= 0.0) continue;
      for (int r = 0; r < resource_count; ++r) sum[r] += seg.utilisation[r] * overlap;
    }
    for (int r = 0; r < resource_count; ++r) step.mean_utilisation[r] = static_cast<float>(sum[r] / window);
  }
  return result;
}

}  // namespace numatwin::sim
