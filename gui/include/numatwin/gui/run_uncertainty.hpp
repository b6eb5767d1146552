// What a run's figures rest on and how sure they are, as the views show it: the operator costs
// the prediction depends on and where each comes from (sim/workload/cost_basis.hpp), the 90 % interval of
// its time and rate, and a band for the throughput chart. The figures are those `numatwin
// predict` prints for the same spec: the same samples (sim::cost_samples, same seed), the same
// order statistics (sim::interval_of).
//
// The band: each of the N cost samples is simulated with its timeline; its memory throughput
// (all controllers) is a step function of time, 0 once that sample has finished. On G equally
// spaced times t_0 = 0 .. t_{G-1} = the slowest sample's end, the band is the 5th and 95th
// percentile over the samples of their throughput at t_i (linear between order statistics, as
// sim::quantile). It is pointwise: at each t it says where 90 % of the samples' throughput lies;
// no single sample need follow either edge. A run whose costs are all exact (or that rests on no
// cost at all, as every shuffle does) has no band, and says so.
#pragma once

#include <QString>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/plan/result.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::gui {

struct ThroughputBand {
  std::vector<double> time_s;
  std::vector<double> low_gbps;   // 5th percentile over the samples at time_s[i]
  std::vector<double> high_gbps;  // 95th percentile
  [[nodiscard]] bool empty() const { return time_s.empty(); }
};

struct RunUncertainty {
  std::vector<std::string> depends_on;  // costs whose change changes the predicted time
  // Drawn: every cost of the machine with a range (not only depends_on's), so that runs on one
  // machine are sampled alike whatever each depends on.
  std::vector<std::string> uncertain;
  QString basis;                        // "costs: 2 measured, 4 default (...)", or why there is none
  int samples = 0;                      // 0: the figures are points
  sim::Interval time_s;
  sim::Interval rate;                   // rate_unit per second, see below
  QString rate_unit;                    // "GB/s" (shuffled) or "M tuples/s" (operator input)
  ThroughputBand band;
  // Per sample (samples of them): the drawn values of `uncertain`, in its order, and the time.
  std::vector<std::vector<double>> drawn;
  std::vector<double> sample_time_s;
  // Why the run's time (at the costs' own values) lies outside time_s, "" when it does not
  // (sim/uncertainty/point_and_interval.hpp); set by whoever has both, simulate_run.
  QString point_note;
  // The same in a few words for time_text ("the run's time is below it: llc_usable_share at the
  // high end of its range"), "" when inside.
  QString point_short;

  // "90 %: 0.12-0.31 s" or "exact: rests on no operator cost"
  [[nodiscard]] QString time_text() const;
};

// In how many of their samples run a is faster than run b, when the two were sampled at the
// same cost values (the same uncertain costs drawn alike: same machine costs, same seed), so each
// sample is one possible machine on which both are predicted; nullopt when they were not (or
// either has no samples). Ties count for neither.
struct PairedWins {
  int a_faster = 0;
  int b_faster = 0;
  int samples = 0;
};
std::optional<PairedWins> paired_wins(const RunUncertainty& a, const RunUncertainty& b);

// The headline rate of a run: GB shuffled per second for shuffles, M input tuples per second for
// operators (sim::workload_input), as `numatwin predict` prints it.
double headline_rate(const sim::WorkloadSpec& spec, const sim::SimulationResult& result);
QString headline_rate_unit(const sim::WorkloadSpec& spec);

// Memory throughput of all controllers over time, GB/s, as a step function (one point at the
// start and one at the end of each timeline segment).
struct ThroughputPoint {
  double time_s = 0.0;
  double gbps = 0.0;
};
std::vector<ThroughputPoint> memory_throughput_series(const sim::SimulationResult& result);
// The step function's value at t (0 before the first and after the last segment).
double throughput_at(const std::vector<ThroughputPoint>& series, double t_s);

// The uncertainty of `spec` (its costs as in `basis`) on `topology`, with `samples` draws
// (0: only what it depends on) and a band of `grid_points` (>= 2) times. Throws
// std::invalid_argument for samples == 1 or grid_points < 2, and what simulating the spec throws.
RunUncertainty run_uncertainty(const model::Topology& topology, const sim::WorkloadSpec& spec, const sim::CostBasis& basis,
                               int samples = 64, int grid_points = 200);

}  // namespace numatwin::gui
