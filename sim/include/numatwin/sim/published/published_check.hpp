// The published-figures check (docs/published-checks.md): figures and statements of the studies
// the project builds on, predicted by the model and judged against a tolerance chosen from the
// nature of each figure. These figures are checks of the model, never inputs: nothing here
// changes a parameter. Plain data; the CLI reads tests/published/*.json and resolves topologies.
//
// An entry asks one question:
//   product       x = prod_k metric_k(run_k) ^ power_k
//                 (one run: a value; two runs with powers 1, -1: a ratio; four: a ratio of ratios);
//                 a term may instead be the best of several runs, max_j metric(run_j) (min for
//                 time and energy): "at least as good as the better of A and B" is
//                 metric(C) / best(A, B) >= 1. A run is a workload (WorkloadSpec) or an adaptive
//                 engine run (adaptive_engine.hpp: a scenario, metric queries per second).
//   crossover     over a sweep of groups per partition (groups = per partition x threads), which of
//                 two variants is faster at the first and at the last point of the sweep
//   stealing      the adaptive stealing calibration (adaptive_stealing.hpp) on a machine: does
//                 stealing fail to pay at the most memory-intensive power and pay at the most
//                 CPU-intensive one (a finite threshold)
//   cannot speak  the model has no term for the figure; the reason is printed
//
// Judging a product x against a published value v with relative tolerance r (the ratio is x / v):
//   about v      pass iff |x / v - 1| <= r
//   <= v, < v    pass iff x <= v (1 + r)   (strict: x < v (1 + r))
//   >= v, > v    pass iff x >= v (1 - r)   (strict: x > v (1 - r))
// A crossover passes iff the winners at both ends are the published ones (the first variant wins a
// point only when strictly better: a tie goes to the second); a stealing question
// iff the first power's gain is below the calibration's margin and the last power's is not.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/adaptive/adaptive_scenario.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// What a run contributes: bytes shuffled (shuffles) or memory traffic (operators) per second in
// GB/s; input tuples (both sides of a join) per second in millions; wall time; local access ratio;
// the DRAM energy of its memory traffic (DRAM access and background, energy_estimate.hpp: what
// RAPL's DRAM domain counts), in joules; and, as a property of the run's spec on its machine, the
// number of placements of its distinct threads up to the machine's symmetries
// (distinct_placements.hpp).
// An adaptive engine run's metric is its queries per second (AdaptiveResult::queries_per_s); it
// is the only metric of such runs and no workload has it.
enum class PublishedMetric { kGbps, kMtuplesPerS, kTimeS, kLocalAccessRatio, kDramEnergyJ, kDistinctPlacements, kQueriesPerS };

struct PublishedRun {
  int topology = 0;  // index into the topologies handed to evaluate_published
  WorkloadSpec spec;
  // Set: an adaptive engine run of this scenario (overrides applied) instead of `spec`. With
  // adaptive stealing and no threshold in the scenario, the threshold is calibrated on the
  // machine first (calibrate_stealing), as `numatwin adaptive` does.
  std::optional<AdaptiveScenario> adaptive;
  // Identifies the run among those of a data set (the loader sets it from the run as written and
  // its machine): runs with the same key give the same metric, so a PublishedRunCache runs each once.
  std::string key;
};

// Metrics of runs already simulated, by run key and metric (only runs with a key are kept).
using PublishedRunCache = std::map<std::pair<std::string, PublishedMetric>, double>;

struct PublishedTerm {
  PublishedRun run;
  std::vector<PublishedRun> best_of;  // non-empty: the term is the best of these runs' metrics, not `run`'s
  PublishedMetric metric = PublishedMetric::kGbps;
  double power = 1.0;
};

enum class PublishedRelation { kAbout, kBelow, kAtMost, kAbove, kAtLeast };

struct PublishedFigure {
  PublishedRelation relation = PublishedRelation::kAbout;
  double value = 1.0;
  std::string unit;
};

enum class QuestionKind { kProduct, kCrossover, kStealing, kCannotSpeak };

struct PublishedVariant {
  std::string label;
  PublishedRun run;
};

struct PublishedQuestion {
  QuestionKind kind = QuestionKind::kProduct;
  // kProduct
  std::vector<PublishedTerm> terms;
  PublishedFigure figure;
  double tolerance_relative = 0.0;
  // kCrossover: exactly two variants; a higher metric wins (a lower one for kTimeS).
  PublishedMetric metric = PublishedMetric::kMtuplesPerS;
  std::vector<double> groups_per_partition;
  std::vector<PublishedVariant> variants;
  std::string first_winner;  // published winner at the first sweep point
  std::string last_winner;   // ... at the last one
  // kStealing
  int stealing_topology = 0;
  // kCannotSpeak
  std::string reason;
};

struct PublishedEntry {
  std::string id;
  std::string study;
  std::string where;
  std::string source;
  std::string summary;         // one short line for the table
  std::string statement;       // the statement in words
  std::string published_text;  // the published figure as printed
  std::string tolerance_rationale;
  bool must_hold = false;
  std::string note;               // why not must_hold (known miss, tendency only), empty otherwise
  bool consistency_only = false;  // the figure is fixed by what the machine file was calibrated on
  std::string basis;
  PublishedQuestion question;
};

enum class PublishedVerdict { kPass, kMiss, kCannotSpeak };
std::string published_verdict_name(PublishedVerdict verdict);  // "pass", "miss", "cannot speak"
std::string published_metric_name(PublishedMetric metric);

struct PublishedOutcome {
  PublishedVerdict verdict = PublishedVerdict::kCannotSpeak;
  std::optional<double> predicted;  // products: x
  std::optional<double> ratio;      // products: x / v
  std::string predicted_text;
  std::string detail;  // crossover: the winner at every point; stealing: the gains; cannot speak:
                       // the reason
};

// The pure judgement of a product (formulas at the top).
bool judge_product(double predicted, const PublishedFigure& figure, double tolerance_relative);

// One run's metric. Throws std::invalid_argument for a spec that build_plan rejects.
double run_metric(const model::Topology& topology, const WorkloadSpec& spec,
                  PublishedMetric metric);

// An adaptive engine run's metric (published_adaptive_run.cpp): queries per second. Throws
// std::invalid_argument for any other metric.
double adaptive_run_metric(const model::Topology& topology, AdaptiveScenario scenario,
                           PublishedMetric metric);

// A term's value: its run's metric, or the best of its runs' (higher, or lower for time and
// energy).
double term_value(const std::vector<model::Topology>& topologies, const PublishedTerm& term,
                  PublishedRunCache* cache = nullptr);

// Evaluates one entry; `topologies` holds every machine its runs name by index.
PublishedOutcome evaluate_published(const std::vector<model::Topology>& topologies,
                                    const PublishedEntry& entry, PublishedRunCache* cache = nullptr);

}  // namespace numatwin::sim
