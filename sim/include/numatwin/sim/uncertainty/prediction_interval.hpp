// How uncertain a prediction is, from the ranges of the costs it rests on (cost_basis.hpp).
//
// Sampling: every cost the prediction depends on whose range is not a point (a given cost is
// exact) is drawn log-uniformly within [low, high]; the N draws (N = 64 by default) form a Latin
// hypercube: each cost's log-range is cut into N strata of equal width, one draw falls uniformly
// in each stratum, and the strata are permuted independently per cost (mt19937_64 seeded with the
// seed and the cost's name, so an interval is reproducible and a cost's draws do not depend on
// which other costs are drawn: runs that draw different sets agree on the costs they share). With k uncertain costs, every cost's whole range is
// covered by N draws however large k is, which plain random sampling does not give at N = 64.
// Every sample is predicted in full; a figure's interval is the median and the 5th and 95th
// percentiles of its N predictions (order statistics, linear interpolation between neighbours),
// a 90 % interval under the assumption that each cost is equally likely anywhere in its range
// on a log scale (ranges are statements of where a value lies, not fitted distributions).
// Crossovers and rankings are taken per sample, so they carry the costs' joint uncertainty.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/result.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// Runs body(i) for every i in [0, n), in any order and possibly at once: the caller may supply
// threads (sim/ has none); body(i) writes only to what belongs to i.
using ParallelFor = std::function<void(std::size_t n, const std::function<void(std::size_t)>& body)>;
void sequential_for(std::size_t n, const std::function<void(std::size_t)>& body);

struct IntervalOptions {
  int samples = 64;
  std::uint64_t seed = 1;
};

struct Interval {
  double median = 0.0;
  double low = 0.0;   // 5th percentile
  double high = 0.0;  // 95th percentile
};

// The costs of `names` that are drawn: those of the basis with low < high and not given.
std::vector<std::string> uncertain_costs(const CostBasis& basis, const std::vector<std::string>& names);

// `options.samples` copies of `spec` with the costs of `uncertain` drawn as above (the other
// costs as in `spec`). Throws std::invalid_argument for samples < 2.
std::vector<WorkloadSpec> cost_samples(const WorkloadSpec& spec, const CostBasis& basis, const std::vector<std::string>& uncertain,
                                       const IntervalOptions& options = {});

// Median and 5th / 95th percentiles of `values` (at least one).
Interval interval_of(std::vector<double> values);

// A prediction's uncertainty: the costs it rests on, which of them are drawn, and the interval
// of its time and of a rate (`rate_of`: e.g. GB/s for shuffles, M tuples/s for operators).
struct PredictionUncertainty {
  std::vector<std::string> depends_on;  // costs whose change changes the predicted time
  std::vector<std::string> uncertain;   // of those, the ones drawn (a range, not given)
  std::string basis;                    // cost_basis_summary of depends_on
  int samples = 0;                      // 0: nothing drawn, the figures are points
  Interval time_s;
  Interval rate;
};

// Simulates `spec` on `topology` once per cost (which costs it depends on: doubling each) and
// once per sample, through `parallel`; with samples == 0 only the basis is computed. Throws
// std::invalid_argument for samples == 1. The samples are simulated without a timeline (rate_of
// sees no timeline and per-step utilisations of 0). With one drawn cost that only scales rates,
// the samples share one plan (sample_plan.hpp: built at both ends and the middle of the draws,
// not per sample). `rate_reads_time_only`: rate_of reads nothing of the result but time_s, so
// the samples are simulated with SimulationOptions::time_only (the same times, bit for bit,
// without the bookkeeping). The probes of the costs are always simulated so: they read only the
// time. A shuffle's plan reads no operator cost: it depends on none and nothing is built or
// simulated for it (its spec is only checked).
PredictionUncertainty prediction_uncertainty(const model::Topology& topology, const WorkloadSpec& spec, const CostBasis& basis,
                                             int samples,
                                             const std::function<double(const WorkloadSpec&, const SimulationResult&)>& rate_of,
                                             const ParallelFor& parallel = sequential_for, bool rate_reads_time_only = false);

// The costs the prediction of `spec` depends on: those whose change (x 2 + 1; a share <= 1 halved)
// predicted time by more than 1e-9 relative; `time_of` predicts a spec's time, and the probes run
// through `parallel`. The second form predicts by simulating on `topology` (a shuffle: none, at once).
std::vector<std::string> costs_depended_on(const WorkloadSpec& spec, const std::function<double(const WorkloadSpec&)>& time_of,
                                           const ParallelFor& parallel = sequential_for);
std::vector<std::string> costs_depended_on(const model::Topology& topology, const WorkloadSpec& spec,
                                           const ParallelFor& parallel = sequential_for);

// The p-th quantile (0 <= p <= 1) of `sorted` (ascending, non-empty), linear between order statistics.
double quantile(const std::vector<double>& sorted, double p);

}  // namespace numatwin::sim
