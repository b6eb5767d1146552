#include "numatwin/sim/schedule/shuffle_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/sim/schedule/shuffle_order.hpp"

namespace numatwin::sim {
namespace {

// Resources of the estimate: the bandwidth model's (controllers, links, forwarding nodes), each
// read's load on them from the model's own terms (data, coherence), per pair of nodes.
class StepLoads {
 public:
  StepLoads(const model::Topology& t, const std::vector<PlacedThread>& placed, double piece_bytes)
      : nodes_(t.nodes.size()), placed_(placed), piece_(piece_bytes) {
    const model::Routing routing(t);
    model::BandwidthModel model(t, routing);
    capacity_.resize(static_cast<std::size_t>(model.resource_count()));
    for (int r = 0; r < model.resource_count(); ++r) capacity_[static_cast<std::size_t>(r)] = model.resource_capacity_bytes_per_s(r);
    terms_.resize(nodes_ * nodes_);
    std::vector<model::NodeIndex> used;  // the threads' nodes, once each
    for (const PlacedThread& p : placed)
      if (std::find(used.begin(), used.end(), p.node) == used.end()) used.push_back(p.node);
    for (model::NodeIndex reader : used) {
      for (model::NodeIndex home : used) terms_[index(reader, home)] = model.read_terms(reader, home);
    }
    search_terms_ = swap_terms(used);
  }

  [[nodiscard]] std::size_t resources() const { return capacity_.size(); }

  // Adds (sign +1) or removes (-1) thread t's read of producer p to `load`.
  void apply(std::vector<double>& load, int t, int p, double sign) const { apply_pair(load, pair(t, p), sign); }
  // Adds `count` reads of the node pair `pair` (see pair()) to `load`.
  void apply_pair(std::vector<double>& load, std::size_t pair, double count) const {
    for (const model::ResourceUse& u : terms_[pair]) load[static_cast<std::size_t>(u.resource)] += count * piece_ * u.coefficient;
  }
  // Adds `count` reads of `pair` to `delta`, listing each resource it touches first in `changed`
  // (delta[r] == 0 marks an untouched resource; a sum that returns to exactly 0 is listed twice:
  // the caller applies and zeroes delta[r] at its first listing, so the second adds nothing).
  void add_pair(std::vector<double>& delta, std::vector<std::size_t>& changed, std::size_t pair, int count) const {
    for (const model::ResourceUse& u : search_terms_[pair]) {
      const auto r = static_cast<std::size_t>(u.resource);
      if (delta[r] == 0.0) changed.push_back(r);
      delta[r] += count * piece_ * u.coefficient;
    }
  }
  // time_s(a + delta) and time_s(b - delta) in one pass.
  [[nodiscard]] std::pair<double, double> times_s(const std::vector<double>& a, const std::vector<double>& b,
                                                  const std::vector<double>& delta) const {
    double worst_a = 0.0, worst_b = 0.0;
    for (std::size_t r = 0; r < capacity_.size(); ++r) {
      if (!(capacity_[r] > 0.0)) continue;
      const double x = a[r] + delta[r];
      const double y = b[r] - delta[r];
      if (x > 1e-9) worst_a = std::max(worst_a, x / capacity_[r]);
      if (y > 1e-9) worst_b = std::max(worst_b, y / capacity_[r]);
    }
    return {worst_a, worst_b};
  }
  // The node pair of thread t reading producer p: the reads of one pair load the same resources.
  [[nodiscard]] std::size_t pair(int t, int p) const { return index(placed_[t].node, placed_[p].node); }
  [[nodiscard]] std::size_t pairs() const { return terms_.size(); }

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
  [[nodiscard]] std::size_t index(model::NodeIndex reader, model::NodeIndex home) const {
    return static_cast<std::size_t>(reader) * nodes_ + static_cast<std::size_t>(home);
  }

  // What a swap can change. A swap of steps k and l over a cycle moves reads between node pairs
  // but keeps, in each step, every reader node's reads and every home node's reads (each step
  // reads each producer once; the cycle's producers in step k after the swap are those before
  // it). So any part of a pair's terms that depends on the reader alone, A(n), or on the home
  // alone, B(h), cancels in every swap, whatever A and B are: the search needs only
  // C(n, h) = T(n, h) - B(h) - A(n). Chosen for a sparse C: B(h), per resource, the value most
  // readers give (their mode), and A(n) the mode of T - B over the homes. Then C keeps what few
  // pairs differ in: the data's route (most readers' routes miss a given link), the one
  // reader a home's probe tree or responses leave out (most readers get them all), the
  // controller and the source-snoop probes not at all (the same for every home, or every
  // reader). On sgi-uv300h-32s a pair's T has 78 terms. Entries below 1e-12 of the pair's
  // largest are rounding, dropped.
  [[nodiscard]] std::vector<std::vector<model::ResourceUse>> swap_terms(const std::vector<model::NodeIndex>& used) const {
    const std::size_t resources = capacity_.size();
    std::vector<std::vector<double>> t(nodes_ * nodes_);  // dense T of the used pairs
    for (model::NodeIndex n : used) {
      for (model::NodeIndex h : used) {
        std::vector<double>& v = t[index(n, h)];
        v.assign(resources, 0.0);
        for (const model::ResourceUse& u : terms_[index(n, h)]) v[static_cast<std::size_t>(u.resource)] = u.coefficient;
      }
    }
    // The most frequent of `values` (ties: the smallest), equal within 1e-12 relative.
    auto mode = [](std::vector<double>& values) {
      std::sort(values.begin(), values.end());
      double best = values.front();
      std::size_t best_run = 0;
      for (std::size_t i = 0; i < values.size();) {
        std::size_t j = i;
        while (j < values.size() && values[j] - values[i] <= 1e-12 * std::max(1.0, std::abs(values[i]))) ++j;
        if (j - i > best_run) {
          best_run = j - i;
          best = values[i];
        }
        i = j;
      }
      return best;
    };
    std::vector<double> values;
    std::vector<std::vector<double>> b(nodes_, std::vector<double>(resources, 0.0));
    for (model::NodeIndex h : used) {
      for (std::size_t r = 0; r < resources; ++r) {
        values.clear();
        for (model::NodeIndex n : used) values.push_back(t[index(n, h)][r]);
        b[static_cast<std::size_t>(h)][r] = mode(values);
      }
    }
    std::vector<std::vector<double>> a(nodes_, std::vector<double>(resources, 0.0));
    for (model::NodeIndex n : used) {
      for (std::size_t r = 0; r < resources; ++r) {
        values.clear();
        for (model::NodeIndex h : used) values.push_back(t[index(n, h)][r] - b[static_cast<std::size_t>(h)][r]);
        a[static_cast<std::size_t>(n)][r] = mode(values);
      }
    }
    std::vector<std::vector<model::ResourceUse>> out(nodes_ * nodes_);
    for (model::NodeIndex n : used) {
      for (model::NodeIndex h : used) {
        const std::vector<double>& v = t[index(n, h)];
        double largest = 0.0;
        for (double x : v) largest = std::max(largest, std::abs(x));
        for (std::size_t r = 0; r < resources; ++r) {
          const double c = v[r] - b[static_cast<std::size_t>(h)][r] - a[static_cast<std::size_t>(n)][r];
          if (std::abs(c) > 1e-12 * largest) out[index(n, h)].push_back(model::ResourceUse{static_cast<int>(r), c});
        }
      }
    }
    return out;
  }

  std::size_t nodes_;
  const std::vector<PlacedThread>& placed_;
  double piece_;
  std::vector<double> capacity_;
  std::vector<std::vector<model::ResourceUse>> terms_;  // [reader node * nodes + home node]
  std::vector<std::vector<model::ResourceUse>> search_terms_;  // C of swap_terms, same index
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
    std::vector<int> net(loads.pairs(), 0);  // per node pair: reads moved into step k by a swap
    std::vector<std::size_t> touched;
    std::vector<double> delta(loads.resources(), 0.0);  // a swap's change of step k's loads
    std::vector<std::size_t> changed;                   // the resources delta touches
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
      // The swap moves reads between node pairs: step k loses (c, a[c]) and gains (c, b[c]),
      // step l the reverse. Net the moves per node pair first: reads of producers on the same
      // node cancel (threads of one node load the same resources), often all of them.
      touched.clear();
      for (int c : cycle) {
        const std::size_t from = loads.pair(c, a[c]);
        const std::size_t to = loads.pair(c, b[c]);
        if (from == to) continue;
        for (const auto& [q, step] : {std::pair{from, -1}, std::pair{to, 1}}) {
          if (net[q] == 0) touched.push_back(q);
          net[q] += step;
        }
      }
      bool moved = false;
      for (std::size_t q : touched) moved = moved || net[q] != 0;
      if (!moved) {
        for (std::size_t q : touched) net[q] = 0;
        continue;  // the same loads in both steps: nothing to gain
      }
      // The change of step k's loads (step l's is its negative), summed once over the moved pairs'
      // terms; the steps' times then in one pass over the resources.
      changed.clear();
      for (std::size_t q : touched) {  // a pair whose count went back to 0 is listed twice
        if (net[q] == 0) continue;
        loads.add_pair(delta, changed, q, net[q]);
        net[q] = 0;
      }
      const auto [time_k, time_l] = loads.times_s(load[k], load[l], delta);
      const double change = time_k + time_l - time[k] - time[l];
      const bool keep = change < -tolerance;
      for (std::size_t r : changed) {
        if (keep) {
          load[k][r] += delta[r];
          load[l][r] -= delta[r];
        }
        delta[r] = 0.0;
      }
      if (!keep) continue;
      for (int c : cycle) std::swap(a[c], b[c]);
      for (int c : cycle) {
        inverse[k][a[c]] = c;
        inverse[l][b[c]] = c;
      }
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
  const double pairs = static_cast<double>(spec.threads) * spec.threads;
  // The sort-merge join's order is its merge's: pieces of the fact runs.
  const double piece = spec.kind == WorkloadKind::kSortMergeJoin ? spec.data.records * spec.data.tuple_bytes / pairs
                                                                  : spec.total_bytes / pairs;
  return design_schedule(topology, placed, piece, options).schedule.producer_orders();
}

}  // namespace numatwin::sim
