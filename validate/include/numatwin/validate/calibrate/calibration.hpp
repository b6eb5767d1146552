// Fitting the model's parameters to measured microbenchmarks (from `validate measure` or an
// imported mlc file) by nonlinear least squares, and writing the calibrated topology.
//
// ── Data ────────────────────────────────────────────────────────────────────────────────────
// A point is a streaming read bandwidth (threads of cpu nodes reading memory nodes: the
// model's MeasurementMetric::kReadBandwidthGbps), an idle latency (kIdleLatencyNs), or a
// loaded latency: one pointer-chasing thread (slot 0 of its node) while load streams read at a
// known total bandwidth B. Read bandwidth and idle latency are predicted by
// model::predict_measurement; a loaded latency by BandwidthModel::solve on the chaser plus the
// load streams, each load stream limited to B / (load threads) and the chaser to S / L_measured,
// taking the chaser's loaded latency.
//
// ── Fit ─────────────────────────────────────────────────────────────────────────────────────
// Parameters p_k > 0 (memory_read_bandwidth_gbps and local_latency_ns per memory node, one
// machine-wide miss_buffers_per_core, bandwidth and latency per link entry, coherence
// probe/response bytes and remote_access_overhead_ns, memory/link queue ns, queue_exponent)
// are fitted as θ_k = ln p_k, minimising the sum of squared relative residuals
//     r_i(θ) = (prediction_i(θ) - measured_i) / measured_i
// by Levenberg–Marquardt: (JᵀJ + λ diag(JᵀJ)) δ = -Jᵀr with a forward-difference Jacobian
// (step 1e-4 in θ), λ divided by 3 on success and multiplied by 4 on failure.
// miss_buffers_per_core is an integer in the model: during the fit the prediction at a
// non-integer m interpolates linearly between floor(m) and ceil(m); the result is rounded and
// the other parameters refitted with it fixed.
// Which parameters the data determine: the candidates whose Jacobian column at the start is
// zero are held at their prior value, then a column-pivoted QR of the Jacobian keeps a
// largest well-conditioned subset (|R_kk| > 1e-6 max |R_jj|) and holds the others (they are
// reported as "not determined by these data", e.g. remote overhead next to the link latency of
// a two-node machine). The selection is repeated once at the optimum.
// Uncertainty: with m points and q fitted parameters, s² = |r|² / (m - q) and
// Cov(θ) = s² (JᵀJ)⁻¹ at the optimum; sd(p_k) ≈ p_k sqrt(Cov_kk) (delta method). With m <= q
// there is no residual degree of freedom and sd is reported as unknown.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::validate {

enum class CalibrationMetric { kReadBandwidthGbps, kIdleLatencyNs, kLoadedLatencyNs };

struct CalibrationPoint {
  std::string id;
  std::string description;
  CalibrationMetric metric = CalibrationMetric::kReadBandwidthGbps;
  std::vector<model::MeasurementStream> streams;  // bandwidth: the readers; latencies: the load streams
  model::MeasurementStream chaser;                // latencies: the pointer chaser (threads = 1)
  double load_bandwidth_gbps = 0.0;               // loaded latency: total bandwidth of `streams`
  double value = 0.0;                             // GB/s or ns
};

struct CalibrationData {
  std::string source;  // file and kind, for provenance
  std::vector<CalibrationPoint> points;
  std::vector<std::string> notes;     // what was left out and why
  std::vector<std::string> warnings;  // figures named as doubtful (outliers left out, SNC quirks), each naming file and entry
};

// From mlc: bandwidth matrix (all hardware threads of the CPU node, like mlc), latency matrix,
// idle latency (when there is no matrix), peak injection "ALL Reads" (every node reading its
// own memory), loaded latency (chaser on the first node; every other hardware thread reads its
// node's memory, like mlc). mlc node i is the topology's i-th NUMA node. A matrix's rows are the
// nodes with CPUs and its columns every memory node: a CPU-less node (a column without a row)
// gets memory figures (its capacity and latency are fitted) but is no initiator; the topology
// must agree (a row for a node without cores, or a column for one without memory, is an error; a
// node with cores that mlc gives no row is a note).
// Before anything else the figures are checked against each other (check_mlc_consistency: refused,
// or warnings), and the bandwidth matrix's outliers (find_bandwidth_outliers, entries alike when
// the topology predicts them within 15 % of each other) are left out with a warning each. Without a
// --loaded_latency sweep a note says the loaded-latency curve is not measured.
// Throws model::InputError naming the mlc file when the topology does not fit the data.
CalibrationData calibration_data_from_mlc(const MlcResults& mlc, const model::Topology& topology);

// From a `validate measure` report: its read bandwidth points, idle latencies and loaded
// latencies. Node "n<os index>" of the topology when it has one, else the topology's k-th NUMA
// node for the report's k-th node. Throws model::InputError(file, pointer, ...) for a report
// that is not one or does not fit the topology.
CalibrationData calibration_data_from_measurements(const nlohmann::ordered_json& report, const model::Topology& topology,
                                                   const std::string& file);

// The model's prediction of one point. Throws std::invalid_argument when it does not fit.
double predict_point(const model::Topology& topology, const CalibrationPoint& point);

struct FittedParameter {
  std::string pointer;  // JSON pointer in the topology file, e.g. /nodes/0/local_latency_ns
  std::string unit;
  double prior = 0.0;
  double value = 0.0;
  double std_error = -1.0;  // < 0: unknown
  bool fitted = false;
  // What the data bound once fitted (calibration_problem.hpp, "what the data bound"): halving and
  // doubling it alone moves some point's prediction by more than 0.5 % (determined), or the data
  // give only a lower or an upper bound, or neither direction moves a point (not determined).
  bool determined = true;
  double lower_bound = -1.0;  // >= 0: the data bound it below only, at this value
  double upper_bound = -1.0;  // >= 0: above only
  std::string note;  // why it was held, when it was; what the data do not bound
};

struct PointResidual {
  std::string id;
  std::string description;
  CalibrationMetric metric = CalibrationMetric::kReadBandwidthGbps;
  double measured = 0.0;
  double predicted = 0.0;
  [[nodiscard]] double relative_error() const { return (predicted - measured) / measured; }
};

struct CalibrationResult {
  model::Topology topology;  // calibrated, passes check_topology
  std::vector<FittedParameter> parameters;
  std::vector<PointResidual> residuals;    // calibrated model vs the data
  std::vector<PointResidual> prior_residuals;  // the prior topology vs the data
  double rms_relative_error = 0.0;
  double max_abs_relative_error = 0.0;
  int iterations = 0;
  bool converged = false;
  std::vector<std::string> notes;
  std::vector<std::string> warnings;  // the data's (CalibrationData::warnings)
};

struct CalibrationOptions {
  int max_iterations = 60;
};

// Throws std::invalid_argument when there are no points.
CalibrationResult calibrate(const model::Topology& prior, const CalibrationData& data, const CalibrationOptions& options = {});

std::string metric_name(CalibrationMetric metric);
nlohmann::ordered_json to_json(const CalibrationResult& result);

}  // namespace numatwin::validate
