#include "numatwin/sim/uncertainty/prediction_interval.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/uncertainty/sample_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

// Only figures of the run are read (its time; rate_of may read any total), never the timeline.
constexpr SimulationOptions kNoTimeline{.record_timeline = false, .time_only = false};
// Where only the time is read (the cost probes, the base run): simulation.hpp's time_only.
constexpr SimulationOptions kTimeOnly{.record_timeline = false, .time_only = true};

}  // namespace

std::vector<std::string> uncertain_costs(const CostBasis& basis, const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const std::string& name : names) {
    const BasisCost& c = basis.at(name);
    if (!c.given && c.cost.low < c.cost.high) out.push_back(name);
  }
  return out;
}

std::vector<WorkloadSpec> cost_samples(const WorkloadSpec& spec, const CostBasis& basis, const std::vector<std::string>& uncertain,
                                       const IntervalOptions& options) {
  if (options.samples < 2) throw std::invalid_argument("--interval-samples must be >= 2");
  const int n = options.samples;
  std::vector<WorkloadSpec> samples(n, spec);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (const std::string& name : uncertain) {
    // Each cost draws from its own stream (the seed and its name's FNV-1a hash): its values do
    // not depend on which other costs are drawn, so two runs that draw different sets agree on
    // the costs they share (a paired comparison of two strategies in the GUI).
    std::uint64_t hash = 1469598103934665603ULL;
    for (const char ch : name) hash = (hash ^ static_cast<unsigned char>(ch)) * 1099511628211ULL;
    std::mt19937_64 rng(options.seed ^ hash);
    const model::CostValue& c = basis.at(name).cost;
    // Log-uniform within [low, high]; a range starting at 0 starts at high / 1e3 instead.
    const double lo = std::log(c.low > 0.0 ? c.low : c.high * 1e-3);
    const double hi = std::log(c.high);
    std::vector<int> strata(n);
    std::iota(strata.begin(), strata.end(), 0);
    std::shuffle(strata.begin(), strata.end(), rng);
    for (int s = 0; s < n; ++s) {
      const double u = (strata[s] + unit(rng)) / n;
      cost_field(samples[s].costs, name) = std::exp(lo + u * (hi - lo));
    }
  }
  return samples;
}

double quantile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no values");
  const double position = p * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double w = position - static_cast<double>(below);
  return sorted[below] * (1.0 - w) + sorted[above] * w;
}

Interval interval_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return Interval{quantile(values, 0.5), quantile(values, 0.05), quantile(values, 0.95)};
}

void sequential_for(std::size_t n, const std::function<void(std::size_t)>& body) {
  for (std::size_t i = 0; i < n; ++i) body(i);
}

std::vector<std::string> costs_depended_on(const WorkloadSpec& spec, const std::function<double(const WorkloadSpec&)>& time_of,
                                           const ParallelFor& parallel) {
  const auto table = model::operator_cost_table();
  std::vector<double> times(table.size() + 1, 0.0);
  parallel(times.size(), [&](std::size_t i) {
    WorkloadSpec probe = spec;
    if (i > 0) {
      double& field = cost_field(probe.costs, table[i - 1].name);
      // Moved well away, within the cost's bounds (a share <= 1 is halved).
      field = std::isfinite(table[i - 1].largest) ? field * 0.5 : field * 2.0 + 1.0;
    }
    times[i] = time_of(probe);
  });
  std::vector<std::string> names;
  for (std::size_t i = 1; i < times.size(); ++i) {
    if (std::abs(times[i] - times[0]) > 1e-9 * std::abs(times[0])) names.emplace_back(table[i - 1].name);
  }
  return names;
}

namespace {

// The probes of costs_depended_on on `topology`, given the spec's plan and its simulated time.
std::vector<std::string> costs_depended_on(const model::Topology& topology, const WorkloadSpec& spec, const Plan& base,
                                           double base_time, const ParallelFor& parallel) {
  // A probe whose plan equals the spec's own has the spec's time exactly (the simulation reads
  // only the plan), so only the probes that change the plan are simulated: a shuffle reads no
  // operator cost at all.
  return costs_depended_on(
      spec,
      [&](const WorkloadSpec& s) {
        const Plan plan = build_plan(topology, s);
        return plan == base ? base_time : Simulation(topology).run(plan, kTimeOnly).time_s;
      },
      parallel);
}

}  // namespace

namespace {

// A shuffle's plan (build_shuffle_plan: pieces, binds, barriers) reads no field of spec.costs, so
// every probe's plan equals the spec's and its time is the spec's: the shuffle depends on no
// operator cost, without building a plan of n^2 transfers once per probe to find that out
// (PredictionIntervalTest checks the probes' plans). The spec is still checked as building would.
bool reads_no_operator_cost(const model::Topology& topology, const WorkloadSpec& spec) {
  if (!is_shuffle_family(spec.kind)) return false;
  check_workload(topology, spec);
  return true;
}

}  // namespace

std::vector<std::string> costs_depended_on(const model::Topology& topology, const WorkloadSpec& spec, const ParallelFor& parallel) {
  if (reads_no_operator_cost(topology, spec)) return {};
  const Plan base = build_plan(topology, spec);
  return costs_depended_on(topology, spec, base, Simulation(topology).run(base, kTimeOnly).time_s, parallel);
}

PredictionUncertainty prediction_uncertainty(const model::Topology& topology, const WorkloadSpec& spec, const CostBasis& basis,
                                             int samples,
                                             const std::function<double(const WorkloadSpec&, const SimulationResult&)>& rate_of,
                                             const ParallelFor& parallel, bool rate_reads_time_only) {
  if (samples < 0 || samples == 1) throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
  PredictionUncertainty u;
  if (reads_no_operator_cost(topology, spec)) {  // nothing to draw: the basis of no cost
    u.basis = cost_basis_summary(basis, u.depends_on);
    return u;
  }
  const Plan base = build_plan(topology, spec);
  u.depends_on = costs_depended_on(topology, spec, base, Simulation(topology).run(base, kTimeOnly).time_s, parallel);
  u.uncertain = uncertain_costs(basis, u.depends_on);
  u.basis = cost_basis_summary(basis, u.depends_on);
  if (samples == 0 || u.uncertain.empty()) return u;
  IntervalOptions options;
  options.samples = samples;
  const std::vector<WorkloadSpec> specs = cost_samples(spec, basis, u.uncertain, options);
  std::vector<double> times(specs.size());
  std::vector<double> rates(specs.size());
  const auto record = [&](std::size_t i, const Plan& plan) {
    // The timeline only feeds per-step utilisations, which neither figure reads.
    const SimulationResult r = Simulation(topology).run(plan, rate_reads_time_only ? kTimeOnly : kNoTimeline);
    times[i] = r.time_s;
    rates[i] = rate_of(specs[i], r);
  };
  // One drawn cost that only scales rates: one plan, rescaled per sample (sample_plan.hpp), in
  // batches of kSamplesPerCopy so that a parallel caller still has work for several threads.
  std::optional<SamplePlan> shared;
  if (u.uncertain.size() == 1) {
    const std::string& name = u.uncertain.front();
    double lowest = cost_field(specs.front().costs, name);
    double highest = lowest;
    for (const WorkloadSpec& s : specs) {
      lowest = std::min(lowest, cost_field(s.costs, name));
      highest = std::max(highest, cost_field(s.costs, name));
    }
    shared = rate_only_sample_plan(topology, spec, base, name, lowest, highest);
  }
  if (shared) {
    constexpr std::size_t kSamplesPerCopy = 4;
    const std::size_t batches = (specs.size() + kSamplesPerCopy - 1) / kSamplesPerCopy;
    parallel(batches, [&](std::size_t b) {
      Plan plan = shared->plan;
      for (std::size_t i = b * kSamplesPerCopy; i < std::min(specs.size(), (b + 1) * kSamplesPerCopy); ++i) {
        shared->apply(plan, cost_field(specs[i].costs, shared->cost));
        record(i, plan);
      }
    });
  } else {
    parallel(specs.size(), [&](std::size_t i) { record(i, build_plan(topology, specs[i])); });
  }
  u.samples = samples;
  u.time_s = interval_of(times);
  u.rate = interval_of(rates);
  return u;
}
}  // namespace numatwin::sim
