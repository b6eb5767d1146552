#include "numatwin/sim/shuffle_schedule.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

#include "numatwin/model/routing.hpp"
#include "numatwin/sim/shuffle_plan.hpp"

namespace numatwin::sim {
namespace {

// Resources of the estimate: memory controllers (one per node) then links.
class StepLoads {
 public:
  StepLoads(const model::Topology& t, const std::vector<PlacedThread>& placed, double piece_bytes)
      : t_(t), routing_(t), placed_(placed), piece_(piece_bytes) {
    const std::size_t nodes = t.nodes.size();
    capacity_.assign(nodes + t.links.size(), 0.0);
    for (std::size_t n = 0; n < nodes; ++n) capacity_[n] = t.nodes[n].memory_read_bandwidth_gbps * 1e9;
    for (std::size_t l = 0; l < t.links.size(); ++l) capacity_[nodes + l] = t.links[l].bandwidth_gbps * 1e9;
  }

  [[nodiscard]] std::size_t resources() const { return capacity_.size(); }

  // Adds (sign +1) or removes (-1) thread t's read of producer p to `load`.
  void apply(std::vector<double>& load, int t, int p, double sign) const {
    const model::NodeIndex reader = placed_[t].node;
    const model::NodeIndex home = placed_[p].node;
    load[static_cast<std::size_t>(home)] += sign * piece_;
    if (home != reader) {
      for (model::LinkIndex l : routing_.route(home, reader)) load[t_.nodes.size() + static_cast<std::size_t>(l)] += sign * piece_;
    }
  }

  [[nodiscard]] double time_s(const std::vector<double>& load) const {
    double worst = 0.0;
    for (std::size_t r = 0; r < load.size(); ++r) {
      if (load[r] > 1e-9 && capacity_[r] > 0.0) worst = std::max(worst, load[r] / capacity_[r]);
    }
    return worst;
  }

  [[nodiscard]] std::vector<double> step_load(const std::vector<int>& step) const {
    std::vector<double> load(resources(), 0.0);
    for (std::size_t t = 0; t < step.size(); ++t) apply(load, static_cast<int>(t), step[t], 1.0);
    return load;
  }

 private:
  const model::Topology& t_;
  model::Routing routing_;
  const std::vector<PlacedThread>& placed_;
  double piece_;
  std::vector<double> capacity_;
};

ShuffleSchedule ring_schedule(const std::vector<PlacedThread>& placed) {
  const ShuffleOrder order = shuffle_order(placed, ShuffleAlgorithm::kRing, 1);
  const int n = static_cast<int>(placed.size());
  ShuffleSchedule s;
  s.steps.assign(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 0));
  for (int o = 0; o < n; ++o) {
    for (int k = 0; k < n; ++k) s.steps[k][order.outer[o]] = order.producers[o][k];
  }
  return s;
}

}  // namespace

std::vector<std::vector<int>> ShuffleSchedule::producer_orders() const {
  const std::size_t n = steps.size();
  std::vector<std::vector<int>> out(n, std::vector<int>(n, 0));
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t t = 0; t < n; ++t) out[t][k] = steps[k][t];
  }
  return out;
}

void check_schedule(const ShuffleSchedule& s, int threads) {
  const auto n = static_cast<std::size_t>(threads);
  if (s.steps.size() != n) {
    throw std::invalid_argument("a schedule of " + std::to_string(threads) + " threads needs " + std::to_string(threads) +
                                " steps, found " + std::to_string(s.steps.size()));
  }
  std::vector<std::vector<bool>> seen(n, std::vector<bool>(n, false));
  for (std::size_t k = 0; k < n; ++k) {
    if (s.steps[k].size() != n) throw std::invalid_argument("step " + std::to_string(k) + " does not name a producer for every thread");
    std::vector<bool> used(n, false);
    for (std::size_t t = 0; t < n; ++t) {
      const int p = s.steps[k][t];
      if (p < 0 || static_cast<std::size_t>(p) >= n) throw std::invalid_argument("step " + std::to_string(k) + ": no producer " + std::to_string(p));
      if (used[static_cast<std::size_t>(p)]) {
        throw std::invalid_argument("step " + std::to_string(k) + ": producer " + std::to_string(p) + " is read by two threads");
      }
      if (seen[t][static_cast<std::size_t>(p)]) {
        throw std::invalid_argument("thread " + std::to_string(t) + " reads producer " + std::to_string(p) + " twice (again at step " +
                                    std::to_string(k) + ")");
      }
      used[static_cast<std::size_t>(p)] = true;
      seen[t][static_cast<std::size_t>(p)] = true;
    }
  }
}

double schedule_estimate_s(const model::Topology& topology, const std::vector<PlacedThread>& placed, double piece_bytes,
                           const ShuffleSchedule& schedule) {
  check_schedule(schedule, static_cast<int>(placed.size()));
  const StepLoads loads(topology, placed, piece_bytes);
  double sum = 0.0;
  for (const std::vector<int>& step : schedule.steps) sum += loads.time_s(loads.step_load(step));
  return sum;
}

ScheduleDesign design_schedule(const model::Topology& topology, const std::vector<PlacedThread>& placed, double piece_bytes,
                               const ScheduleOptions& options) {
  const int n = static_cast<int>(placed.size());
  if (n < 1) throw std::invalid_argument("a schedule needs at least one thread");
  const StepLoads loads(topology, placed, piece_bytes);
  ScheduleDesign d;
  d.schedule = ring_schedule(placed);
  std::vector<std::vector<double>> load;
  std::vector<double> time;
  std::vector<double> total(loads.resources(), 0.0);
  for (const std::vector<int>& step : d.schedule.steps) {
    load.push_back(loads.step_load(step));
    time.push_back(loads.time_s(load.back()));
    for (std::size_t r = 0; r < total.size(); ++r) total[r] += load.back()[r];
  }
  for (double x : time) d.ring_estimate_s += x;
  d.bound_s = loads.time_s(total);
  double estimate = d.ring_estimate_s;
  if (n > 1) {
    // inverse[k][p]: the thread that reads producer p at step k.
    std::vector<std::vector<int>> inverse(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 0));
    for (int k = 0; k < n; ++k) {
      for (int t = 0; t < n; ++t) inverse[k][d.schedule.steps[k][t]] = t;
    }
    std::mt19937_64 random(options.seed);
    std::uniform_int_distribution<int> pick(0, n - 1);
    std::vector<int> cycle;
    const double tolerance = 1e-12 * std::max(1e-30, d.ring_estimate_s);
    long long stall = 0;
    for (long long tried = 0; tried < options.max_swaps && stall < options.max_stall && estimate > d.bound_s + tolerance; ++tried) {
      const int k = pick(random);
      const int l = pick(random);
      if (k == l) continue;
      ++d.swaps_tried;
      ++stall;
      std::vector<int>& a = d.schedule.steps[k];
      std::vector<int>& b = d.schedule.steps[l];
      // The cycle through t: t, the thread reading b[t] at step k, ...
      cycle.clear();
      int t = pick(random);
      do {
        cycle.push_back(t);
        t = inverse[k][b[t]];
      } while (t != cycle.front());
      std::vector<double> load_k = load[k];
      std::vector<double> load_l = load[l];
      for (int c : cycle) {
        loads.apply(load_k, c, a[c], -1.0);
        loads.apply(load_k, c, b[c], 1.0);
        loads.apply(load_l, c, b[c], -1.0);
        loads.apply(load_l, c, a[c], 1.0);
      }
      const double time_k = loads.time_s(load_k);
      const double time_l = loads.time_s(load_l);
      const double change = time_k + time_l - time[k] - time[l];
      if (!(change < -tolerance)) continue;
      for (int c : cycle) std::swap(a[c], b[c]);
      for (int c : cycle) {
        inverse[k][a[c]] = c;
        inverse[l][b[c]] = c;
      }
      load[k] = std::move(load_k);
      load[l] = std::move(load_l);
      time[k] = time_k;
      time[l] = time_l;
      estimate += change;
      ++d.swaps_kept;
      stall = 0;
    }
  }
  d.design_estimate_s = 0.0;
  for (double x : time) d.design_estimate_s += x;
  return d;
}

std::vector<std::vector<int>> designed_producer_orders(const model::Topology& topology, const WorkloadSpec& spec,
                                                       const ScheduleOptions& options) {
  const std::vector<PlacedThread> placed = place_threads(topology, spec.threads, spec.placement);
  const double piece = spec.total_bytes / (static_cast<double>(spec.threads) * spec.threads);
  return design_schedule(topology, placed, piece, options).schedule.producer_orders();
}

}  // namespace numatwin::sim
