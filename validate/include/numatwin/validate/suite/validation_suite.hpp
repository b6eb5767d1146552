// `numatwin validate suite`: the standard set of workloads run for real and simulated on this
// machine, and the fit of the model's kernel costs (OperatorCosts, cycles per shuffled element)
// to the measurements.
//
// Suite (T = usable CPUs of node 0, capped by --max-threads; each workload at 1 and T threads,
// dense placement, first touch by the workers, unless said otherwise):
//   shuffles        naive tight, ring tight, ring loose, coordinated random loose, migration
//                   ring tight, migration & copy ring tight; `shuffle_bytes` in all
//   partitioned     aggregation by shuffle and by migration (ring)
//   aggregations    COUNT over few groups (cache-resident table) and many groups, uniform and
//                   zipf(0.5) keys; MEDIAN, uniform keys
//   joins           hash join (non-partitioned, then radix on the same data) and index
//                   nested-loop join, uniform keys
//   the OS default  COUNT and hash join at T threads unpinned with first touch by one loader
//                   thread (what issue 9's advice is compared with)
// Sizes scale with `scale` (quick: 1/16) and are checked against free memory before any run.
//
// Cost fit: coordinate descent over the logarithms of the costs and of the two streaming
// factors of KernelCosts (golden-section search within a factor of 10 of the current value and
// always within each cost's plausible range, listed in validation_suite.cpp; sweeps until one
// gains less than 0.01 %, at most 16; then restarts, see fit_kernel_costs), minimising the sum of
// (smoothed) absolute log errors
// |ln(predicted / measured)| over the training runs: a least-absolute-deviations fit, which
// aims at the median error (the suite's figure of merit) and which a few runs the model cannot
// describe (say, a cache-resident table on one thread) do not drag along. The suite fits on every run (the calibrated
// costs) and, to say how well the model predicts runs it was not fitted to, cross-validates:
// 4 folds, each predicted with the costs fitted on the other three.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/run/run_comparison.hpp"

namespace numatwin::validate {

struct SuiteOptions {
  int threads = 2;               // T
  double scale = 1.0;            // multiplies every size
  double shuffle_bytes = 1.0 * 1024 * 1024 * 1024;
  double operator_records = 2e7;
  double build_records = 2e6;
};

std::vector<sim::WorkloadSpec> standard_suite(const model::Topology& topology, const SuiteOptions& options);

// The switch subset (allocators, huge pages): COUNT over many uniform groups, MEDIAN and the
// non-partitioned hash join, at `threads` threads, dense, first touch by the workers, taken from `suite`.
std::vector<sim::WorkloadSpec> switch_subset(const std::vector<sim::WorkloadSpec>& suite, int threads);

// The fitted kernel costs: OperatorCosts plus the shuffle consumer's cycles per element.
struct KernelCosts {
  sim::OperatorCosts operators;
  double cycles_per_element = 1.0;
  // Streaming as the suite's kernels see it, relative to the calibrated topology: factors on
  // every node's miss_buffers_per_core (one thread's streaming bandwidth) and on its memory
  // read and write bandwidths (what several threads share). This VM's streaming bandwidth
  // drifts by about 10 % between the calibration and the suite a minute later, and 2 cores
  // never saturate the controller, so its calibrated capacity is only a lower bound.
  double stream_scale = 1.0;
  double memory_bandwidth_scale = 1.0;
};

// A cost the fit may change: its name (as in reports), where it lives, and the range of
// plausible values the fit stays in (the model's own lower bounds are above 0; the upper ones
// keep degenerate directions, where two costs trade freely, from running off).
struct CostParameter {
  const char* name;
  double* (*field)(KernelCosts&);
  double smallest;
  double largest;
};
// Every cost the fit may change, in the order reports list them.
std::span<const CostParameter> cost_parameters();

// `topology` with the streaming factors of `costs` applied.
model::Topology with_stream_scales(const model::Topology& topology, const KernelCosts& costs);

inline constexpr int kCostFitRestarts = 4;

struct CostFit {
  KernelCosts before;
  KernelCosts after;
  int training_runs = 0;
  int held_out_runs = 0;
  std::vector<double> errors_before;  // per comparison, in input order
  std::vector<double> errors_after;
  std::vector<std::string> notes;     // parameters no training run depends on, and so kept
};

KernelCosts costs_of(const sim::WorkloadSpec& spec);
void apply_costs(const KernelCosts& costs, sim::WorkloadSpec& spec);

// Fits on the comparisons flagged in `training` (same length); re-predicts every comparison with
// the fitted costs. `predict` is predict_workload (a parameter for tests).
// `restarts`: descents from perturbed starts after the first (see above). `predict` must be
// safe to call from several threads at once (cross_validated_errors fits its folds in parallel).
CostFit fit_kernel_costs(const model::Topology& topology, const std::vector<KernelComparison>& comparisons,
                         const std::vector<bool>& training,
                         const std::function<Prediction(const model::Topology&, const sim::WorkloadSpec&)>& predict,
                         int restarts = kCostFitRestarts);

// K-fold cross-validation of the fit: runs are grouped in families (the id without its thread
// count: one kernel at 1 and T threads); families take folds round robin in order of first
// appearance and a family's later runs the next folds, so no kernel is only ever predicted
// without a run of itself in training. Each fold's runs are predicted
// with the costs fitted on the other folds. Returns one error per comparison (a run whose fold
// leaves no training run depending on a cost keeps that cost's value from before the fit).
std::vector<double> cross_validated_errors(const model::Topology& topology, const std::vector<KernelComparison>& comparisons,
                                           int folds,
                                           const std::function<Prediction(const model::Topology&, const sim::WorkloadSpec&)>& predict,
                                           int restarts = kCostFitRestarts);

// Median of |x| (0 for an empty list).
double median_abs(std::vector<double> values);

}  // namespace numatwin::validate
