// Utilisation samples, the timeline and the run's summary in the adaptive engine
// (adaptive_engine_state.hpp; the tracking itself is adaptive_utilisation.hpp).
//
// Between events rates are constant, so over [now, now + dt) a socket accrues
// running tasks x dt busy worker-seconds, memory load x dt bytes through its controller and
// utilisation x dt; a part accrues dt per running task of it and the bytes they stream. Every
// sample period the integrals become one sample (integral / period length) in the histories
// the placer reads (adaptive_operations.cpp). Every timeline bin (and at the end) the bin's
// integrals become one AdaptiveTimelinePoint: queries/s and bytes/s streamed by tasks, per class
// queries/s, per socket CPU share = busy worker-seconds / length / W, memory bytes/s and mean
// utilisation of its controller, and the steals in the bin. The summary: queries/s over the
// run, the live parts where they are, per class bytes / task-seconds, its moving average and
// whether stealing is allowed at the end, per socket whole-run means.
#include <algorithm>

#include "adaptive_engine_state.hpp"

namespace numatwin::sim::adaptive_detail {

void Engine::accumulate_sockets(const CachedRates& r, double dt) {
  for (int s = 0; s < S_; ++s) {
    samples_.busy_integral[s] += running_on_[s] * dt;
    samples_.memory_integral[s] += r.memory_load[s] * dt;
    bin_.busy[s] += running_on_[s] * dt;
    bin_.memory[s] += r.memory_load[s] * dt;
    bin_.memory_util[s] += r.memory_utilisation[s] * dt;
    totals_.busy[s] += running_on_[s] * dt;
    totals_.memory_util[s] += r.memory_utilisation[s] * dt;
  }
}

void Engine::take_sample(double begin_s, double end_s) {
  const double length = end_s - begin_s;
  if (!(length > 0.0)) return;
  for (int s = 0; s < S_; ++s) {
    samples_.busy_history[s].add(begin_s, end_s, samples_.busy_integral[s] / length);
    samples_.memory_history[s].add(begin_s, end_s, samples_.memory_integral[s] / length);
    samples_.busy_integral[s] = 0.0;
    samples_.memory_integral[s] = 0.0;
  }
  for (Part& part : parts_) {
    if (!part.alive) continue;
    part.cpu_history.add(begin_s, end_s, part.cpu_integral / length);
    part.memory_history.add(begin_s, end_s, part.memory_integral / length);
    part.cpu_integral = 0.0;
    part.memory_integral = 0.0;
  }
}

void Engine::close_bin() {
  const double length = now_ - bin_.begin_s;
  if (!(length > 0.0)) return;
  AdaptiveTimelinePoint p;
  p.begin_s = bin_.begin_s;
  p.end_s = now_;
  p.queries_per_s = static_cast<double>(bin_.queries) / length;
  p.bytes_per_s = bin_.bytes / length;
  for (int c = 0; c < C_; ++c) p.class_queries_per_s.push_back(static_cast<double>(bin_.class_queries[c]) / length);
  for (int s = 0; s < S_; ++s) {
    p.socket_cpu_share.push_back(bin_.busy[s] / length / W_);
    p.socket_memory_bytes_per_s.push_back(bin_.memory[s] / length);
    p.socket_memory_utilisation.push_back(bin_.memory_util[s] / length);
  }
  p.steals = bin_.steals;
  result_.timeline.push_back(std::move(p));
  bin_.begin_s = now_;
  bin_.queries = 0;
  bin_.bytes = 0.0;
  bin_.steals = 0;
  std::fill(bin_.class_queries.begin(), bin_.class_queries.end(), 0);
  std::fill(bin_.busy.begin(), bin_.busy.end(), 0.0);
  std::fill(bin_.memory.begin(), bin_.memory.end(), 0.0);
  std::fill(bin_.memory_util.begin(), bin_.memory_util.end(), 0.0);
}

AdaptiveResult Engine::summarise() {
  result_.duration_s = now_;
  result_.queries_per_s = now_ > 0.0 ? static_cast<double>(result_.queries) / now_ : 0.0;
  for (const Part& part : parts_) {
    if (part.alive) result_.final_placement.push_back(AdaptivePart{sc_.tables[part.table].name, part.socket, part.bytes});
  }
  for (int c = 0; c < C_; ++c) {
    AdaptiveClassStats& cs = classes_.stats[c];
    cs.task_bytes_per_s = classes_.task_seconds[c] > 0.0 ? classes_.bytes[c] / classes_.task_seconds[c] : 0.0;
    cs.ema_task_bytes_per_s = classes_.ema[c].empty() ? 0.0 : classes_.ema[c].value();
    cs.stealing_allowed_at_end = may_steal(c);
  }
  result_.classes = classes_.stats;
  result_.query_types = query_types_.stats;
  for (int s = 0; s < S_; ++s) {
    result_.socket_cpu_share.push_back(now_ > 0.0 ? totals_.busy[s] / now_ / W_ : 0.0);
    result_.socket_memory_utilisation.push_back(now_ > 0.0 ? totals_.memory_util[s] / now_ : 0.0);
  }
  return std::move(result_);
}

}  // namespace numatwin::sim::adaptive_detail
