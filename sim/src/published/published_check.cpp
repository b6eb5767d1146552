#include "numatwin/sim/published/published_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "numatwin/sim/adaptive/adaptive_stealing_calibration.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/search/distinct_placements.hpp"
#include "numatwin/sim/engine/energy_estimate.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

std::string number_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%#.3g", x);
  return buffer;
}

std::string point_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

std::string percent_text(double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%+.1f%%", 100.0 * x);
  return buffer;
}

bool higher_is_better(PublishedMetric metric) {
  return metric != PublishedMetric::kTimeS && metric != PublishedMetric::kDramEnergyJ;
}

PublishedOutcome evaluate_product(const std::vector<model::Topology>& topologies,
                                  const PublishedQuestion& q, PublishedRunCache* cache) {
  double x = 1.0;
  for (const PublishedTerm& term : q.terms) x *= std::pow(term_value(topologies, term, cache), term.power);
  PublishedOutcome out;
  out.predicted = x;
  out.ratio = x / q.figure.value;
  out.predicted_text = number_text(x);
  out.verdict = judge_product(x, q.figure, q.tolerance_relative) ? PublishedVerdict::kPass
                                                                 : PublishedVerdict::kMiss;
  return out;
}

PublishedOutcome evaluate_crossover(const std::vector<model::Topology>& topologies,
                                    const PublishedQuestion& q) {
  if (q.variants.size() != 2 || q.groups_per_partition.empty()) {
    throw std::invalid_argument("a crossover needs two variants and at least one sweep point");
  }
  std::vector<std::string> winners;
  std::string detail = q.variants[0].label + " / " + q.variants[1].label + " (" +
                       published_metric_name(q.metric) + "):";
  for (double per_partition : q.groups_per_partition) {
    double value[2] = {0.0, 0.0};
    for (int v = 0; v < 2; ++v) {
      const PublishedRun& run = q.variants[static_cast<std::size_t>(v)].run;
      WorkloadSpec spec = run.spec;
      spec.data.keys.groups = per_partition * spec.threads;
      value[v] = run_metric(topologies.at(static_cast<std::size_t>(run.topology)), spec, q.metric);
    }
    const bool first_wins = higher_is_better(q.metric) ? value[0] > value[1] : value[0] < value[1];
    winners.push_back(q.variants[first_wins ? 0 : 1].label);
    detail += " " + number_text(value[0] / value[1]) + " at " + point_text(per_partition) + ";";
  }
  detail.pop_back();
  PublishedOutcome out;
  out.predicted_text = winners.front() + " first, " + winners.back() + " last";
  out.detail = detail;
  out.verdict = winners.front() == q.first_winner && winners.back() == q.last_winner
                    ? PublishedVerdict::kPass
                    : PublishedVerdict::kMiss;
  return out;
}

PublishedOutcome evaluate_stealing(const std::vector<model::Topology>& topologies,
                                   const PublishedQuestion& q) {
  const StealingCalibrationOptions options;
  const StealingCalibration calibration =
      calibrate_stealing(topologies.at(static_cast<std::size_t>(q.stealing_topology)), options);
  if (calibration.points.empty())
    throw std::logic_error("the stealing calibration returned no points");
  const StealingCalibrationPoint& first = calibration.points.front();
  const StealingCalibrationPoint& last = calibration.points.back();
  PublishedOutcome out;
  out.predicted_text = std::isfinite(calibration.threshold_bytes_per_s)
                           ? number_text(calibration.threshold_bytes_per_s / 1e9) + " GB/s per task"
                           : "no threshold";
  out.detail = "stealing gain at n = " + std::to_string(first.power) + ": " +
               percent_text(first.gain) + ", at n = " + std::to_string(last.power) + ": " +
               percent_text(last.gain) + " (margin " + percent_text(options.margin) + ")";
  out.verdict = first.gain < options.margin && last.gain >= options.margin
                    ? PublishedVerdict::kPass
                    : PublishedVerdict::kMiss;
  return out;
}

}  // namespace

std::string published_verdict_name(PublishedVerdict verdict) {
  switch (verdict) {
    case PublishedVerdict::kPass:
      return "pass";
    case PublishedVerdict::kMiss:
      return "miss";
    case PublishedVerdict::kCannotSpeak:
      return "cannot speak";
  }
  return "?";
}

std::string published_metric_name(PublishedMetric metric) {
  switch (metric) {
    case PublishedMetric::kGbps:
      return "gbps";
    case PublishedMetric::kMtuplesPerS:
      return "mtuples_per_s";
    case PublishedMetric::kTimeS:
      return "time_s";
    case PublishedMetric::kLocalAccessRatio:
      return "local_access_ratio";
    case PublishedMetric::kDramEnergyJ:
      return "dram_energy_j";
    case PublishedMetric::kDistinctPlacements:
      return "distinct_placements";
    case PublishedMetric::kQueriesPerS:
      return "queries_per_s";
  }
  return "?";
}

bool judge_product(double predicted, const PublishedFigure& figure, double tolerance_relative) {
  const double v = figure.value;
  const double r = tolerance_relative;
  switch (figure.relation) {
    case PublishedRelation::kAbout:
      return std::abs(predicted / v - 1.0) <= r;
    case PublishedRelation::kBelow:
      return predicted < v * (1.0 + r);
    case PublishedRelation::kAtMost:
      return predicted <= v * (1.0 + r);
    case PublishedRelation::kAbove:
      return predicted > v * (1.0 - r);
    case PublishedRelation::kAtLeast:
      return predicted >= v * (1.0 - r);
  }
  return false;
}

double term_value(const std::vector<model::Topology>& topologies, const PublishedTerm& term,
                  PublishedRunCache* cache) {
  const auto value = [&](const PublishedRun& run) {
    const bool cached = cache != nullptr && !run.key.empty();
    if (cached) {
      const auto found = cache->find({run.key, term.metric});
      if (found != cache->end()) return found->second;
    }
    const model::Topology& t = topologies.at(static_cast<std::size_t>(run.topology));
    const double v = run.adaptive ? adaptive_run_metric(t, *run.adaptive, term.metric)
                                  : run_metric(t, run.spec, term.metric);
    if (cached) (*cache)[{run.key, term.metric}] = v;
    return v;
  };
  if (term.best_of.empty()) return value(term.run);
  double best = value(term.best_of.front());
  for (std::size_t i = 1; i < term.best_of.size(); ++i) {
    const double v = value(term.best_of[i]);
    best = higher_is_better(term.metric) ? std::max(best, v) : std::min(best, v);
  }
  return best;
}

double run_metric(const model::Topology& topology, const WorkloadSpec& spec,
                  PublishedMetric metric) {
  if (metric == PublishedMetric::kQueriesPerS)
    throw std::invalid_argument("queries_per_s is the metric of adaptive engine runs (a scenario), not of workloads");
  if (metric == PublishedMetric::kDistinctPlacements) return search_distinct_placements(topology, spec).machine_classes;
  const Plan plan = build_plan(topology, spec);
  Simulation simulation(topology);
  SimulationOptions options;
  options.record_timeline = false;
  const SimulationResult result = simulation.run(plan, options);
  if (!(result.time_s > 0.0)) throw std::logic_error("a run took no time");
  switch (metric) {
    case PublishedMetric::kGbps:
      return (is_shuffle_family(spec.kind) ? spec.total_bytes : result.bytes) / result.time_s / 1e9;
    case PublishedMetric::kMtuplesPerS: {
      const bool join =
          spec.kind == WorkloadKind::kHashJoin || spec.kind == WorkloadKind::kSortMergeJoin;
      return (spec.data.records + (join ? spec.data.build_records : 0.0)) / result.time_s / 1e6;
    }
    case PublishedMetric::kTimeS:
      return result.time_s;
    case PublishedMetric::kLocalAccessRatio:
      return result.local_access_ratio();
    case PublishedMetric::kDramEnergyJ: {
      const EnergyEstimate e = estimate_energy(topology, result);
      return e.dram_j + e.background_j;
    }
    case PublishedMetric::kDistinctPlacements:
    case PublishedMetric::kQueriesPerS:
      break;
  }
  return 0.0;
}

PublishedOutcome evaluate_published(const std::vector<model::Topology>& topologies,
                                    const PublishedEntry& entry, PublishedRunCache* cache) {
  const PublishedQuestion& q = entry.question;
  switch (q.kind) {
    case QuestionKind::kProduct:
      return evaluate_product(topologies, q, cache);
    case QuestionKind::kCrossover:
      return evaluate_crossover(topologies, q);
    case QuestionKind::kStealing:
      return evaluate_stealing(topologies, q);
    case QuestionKind::kCannotSpeak: {
      PublishedOutcome out;
      out.verdict = PublishedVerdict::kCannotSpeak;
      out.predicted_text = "-";
      out.detail = q.reason;
      return out;
    }
  }
  throw std::logic_error("unknown question kind");
}

}  // namespace numatwin::sim
