// The calibration's least-squares problem, private to validate/src: the topology parameters it can
// fit and how they are read and set (calibration_parameters.cpp), the predictions it compares with
// the measured points, and the Levenberg-Marquardt fit in log space with its choice of the
// parameters the data determine (calibration_fit.cpp). calibration.cpp drives them.
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"

namespace numatwin::validate::calibration_internal {

// ── parameters ──────────────────────────────────────────────────────────────────────────────
enum class Kind { kMemoryBandwidth, kLocalLatency, kMissBuffers, kLinkBandwidth, kLinkLatency, kRemoteOverhead,
                  kMemoryQueue, kLinkQueue, kQueueExponent, kProbeBytes, kResponseBytes };

struct Parameter {
  Kind kind;
  int index = -1;  // node index or link spec index
  std::string pointer;
  std::string unit;
  double floor = 1e-6;    // the value is clamp(exp(θ), floor, ceiling)
  double ceiling = 1e12;
};

inline Parameter of(Kind kind, int index = -1) { return Parameter{kind, index, "", "", 1e-6, 1e12}; }

// Largest miss-buffer count the fit considers (a core with more outstanding misses than this
// is not a machine numatwin models).
inline constexpr double kMaxMissBuffers = 256.0;

double get(const model::Topology& t, const Parameter& p);
// Sets a parameter; miss buffers take the integer `value` (callers interpolate).
void set(model::Topology& t, const Parameter& p, double value);
// The parameters the data can speak to: the capacity and latency of each memory node the points
// use, miss buffers with bandwidth points, the links and the remote overhead when a point crosses
// a link, the queue terms with loaded latencies or bandwidths, coherence bytes with bandwidth
// points on a machine with links.
std::vector<Parameter> candidate_parameters(const model::Topology& t, const CalibrationData& data);

// ── predictions ─────────────────────────────────────────────────────────────────────────────
// A bandwidth or idle-latency point as the topology file's measurement entry.
model::Measurement as_measurement(const CalibrationPoint& point);
double predict_with(const model::Topology& t, const model::Routing& routing, model::BandwidthModel& model,
                    const CalibrationPoint& point);
// Every point of `data`, each with a fresh model (no warm start: deterministic).
std::vector<double> predict_all(const model::Topology& t, const CalibrationData& data);

// ── the fit ─────────────────────────────────────────────────────────────────────────────────
class Problem {
 public:
  Problem(const model::Topology& base, const CalibrationData& data, std::vector<Parameter> parameters)
      : base_(base), data_(data), parameters_(std::move(parameters)) {}

  [[nodiscard]] const std::vector<Parameter>& parameters() const { return parameters_; }
  [[nodiscard]] int size() const { return static_cast<int>(parameters_.size()); }

  [[nodiscard]] model::Topology apply(const Eigen::VectorXd& theta, double miss_buffers) const {
    model::Topology t = base_;
    for (int k = 0; k < size(); ++k) {
      if (parameters_[k].kind == Kind::kMissBuffers) continue;
      set(t, parameters_[k], std::clamp(std::exp(theta[k]), parameters_[k].floor, parameters_[k].ceiling));
    }
    set(t, of(Kind::kMissBuffers), miss_buffers);
    return t;
  }

  // Relative residuals; a non-integer miss-buffer count interpolates between its neighbours.
  [[nodiscard]] Eigen::VectorXd residuals(const Eigen::VectorXd& theta) const {
    double m = get(base_, of(Kind::kMissBuffers));
    for (int k = 0; k < size(); ++k) {
      if (parameters_[k].kind == Kind::kMissBuffers) m = std::clamp(std::exp(theta[k]), 1.0, kMaxMissBuffers);
    }
    const double low = std::floor(m);
    const double fraction = m - low;
    std::vector<double> predicted = predict_all(apply(theta, low), data_);
    if (fraction > 1e-9) {
      const std::vector<double> high = predict_all(apply(theta, low + 1.0), data_);
      for (std::size_t i = 0; i < predicted.size(); ++i) predicted[i] = (1.0 - fraction) * predicted[i] + fraction * high[i];
    }
    Eigen::VectorXd r(static_cast<Eigen::Index>(predicted.size()));
    for (std::size_t i = 0; i < predicted.size(); ++i) {
      r[static_cast<Eigen::Index>(i)] = (predicted[i] - data_.points[i].value) / data_.points[i].value;
    }
    return r;
  }

  [[nodiscard]] Eigen::MatrixXd jacobian(const Eigen::VectorXd& theta, const Eigen::VectorXd& r0) const {
    constexpr double kStep = 1e-4;
    Eigen::MatrixXd J(r0.size(), size());
    for (int k = 0; k < size(); ++k) {
      Eigen::VectorXd shifted = theta;
      // Miss buffers: a larger step, since the prediction is piecewise linear in m.
      const double step = parameters_[k].kind == Kind::kMissBuffers ? 1e-2 : kStep;
      shifted[k] += step;
      J.col(k) = (residuals(shifted) - r0) / step;
    }
    return J;
  }

 private:
  const model::Topology& base_;
  const CalibrationData& data_;
  std::vector<Parameter> parameters_;
};

struct FitOutcome {
  Eigen::VectorXd theta;
  Eigen::VectorXd residuals;
  Eigen::MatrixXd jacobian;
  int iterations = 0;
  bool converged = false;
};

FitOutcome levenberg_marquardt(const Problem& problem, Eigen::VectorXd theta, int max_iterations);
// Indices (into `parameters`) of a largest set whose Jacobian columns are well conditioned.
std::vector<int> identifiable(const Eigen::MatrixXd& J);

// ── what the data bound (calibration_bounds.cpp) ────────────────────────────────────────────
// A parameter can be identifiable where its stage starts and not where the fit ends: a memory
// capacity started just above the largest bandwidth measured binds the two-reader point, its stage
// raises it until it binds nothing, and from there the capacity and the memory queue trade off
// along a ridge (on this 2-vCPU VM the same measurement gave capacities from 37 to 654 GB/s). The
// joint pass then leaves it out ("fitted in its stage"). For each such parameter the profile of the
// fit is taken: the parameter is held at v x s, every other fitted continuous parameter refitted, and the fit's
// rms relative error r(s) compared with r(1). In each direction the bound is the farthest v s with r
// within kBoundTolerance (absolute, on the rms) of r(1): found by stepping s by powers of two
// (k = 1..kBoundHalvings) until r leaves the tolerance, then by bisection on log2 s between the
// last power inside and the first outside (kBoundBisections steps, so it terminates). A direction
// where r stays inside up to 2^kBoundHalvings has no bound (lower 0, upper infinity). The
// parameter counts as determined when both bounds lie within a factor 2 of v.
inline constexpr double kBoundTolerance = 0.001;  // 0.1 point of rms relative error
inline constexpr int kBoundHalvings = 6;          // the search stops at a factor 64 either way
inline constexpr int kBoundBisections = 10;

struct DataBound {
  double lower = 0.0;       // 0: none within v / 2^kBoundHalvings
  double upper = HUGE_VAL;  // infinity: none within v 2^kBoundHalvings
  bool determined = false;  // both within a factor 2 of v
};
// profile_rms(s): the fit's rms relative error with the parameter held at v x s and the others refitted.
DataBound data_bound(double v, double fitted_rms, const std::function<double(double)>& profile_rms);

}  // namespace numatwin::validate::calibration_internal
