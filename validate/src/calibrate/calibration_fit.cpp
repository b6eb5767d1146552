// The calibration's predictions of its points and its least-squares fit (calibration_problem.hpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "calibration_problem.hpp"
#include "numatwin/model/microbenchmark.hpp"

namespace numatwin::validate::calibration_internal {
model::Measurement as_measurement(const CalibrationPoint& point) {
  model::Measurement m;
  m.id = point.id;
  m.description = point.description;
  m.value = point.value;
  if (point.metric == CalibrationMetric::kReadBandwidthGbps) {
    m.metric = model::MeasurementMetric::kReadBandwidthGbps;
    m.streams = point.streams;
  } else {
    m.metric = model::MeasurementMetric::kIdleLatencyNs;
    m.streams = {point.chaser};
  }
  return m;
}

namespace {

double predict_loaded(const model::Topology& t, const model::Routing& routing, model::BandwidthModel& model,
                      const CalibrationPoint& point) {
  std::vector<model::Stream> streams;
  std::map<model::NodeIndex, int> used;
  auto place = [&](model::NodeIndex cpu_node, model::NodeIndex memory_node, double limit) {
    const model::Node& node = t.nodes.at(cpu_node);
    const int slot = used[cpu_node]++;
    if (slot >= node.hardware_threads()) {
      throw std::invalid_argument("loaded latency " + point.id + " puts more threads on " + node.id + " than it has");
    }
    model::Stream s;
    s.cpu_node = cpu_node;
    s.core = model.core_of(cpu_node, slot % node.cores);
    s.read_node = memory_node;
    s.rate_limit_bytes_per_s = limit;
    streams.push_back(s);
  };
  const double line = t.performance.cache_line_bytes;
  place(point.chaser.cpu_node, point.chaser.memory_node, line / (point.value * 1e-9));
  int load_threads = 0;
  for (const auto& s : point.streams) load_threads += s.threads;
  const double per_thread = load_threads > 0 ? point.load_bandwidth_gbps * 1e9 / load_threads : 0.0;
  for (const auto& s : point.streams) {
    for (int k = 0; k < s.threads; ++k) place(s.cpu_node, s.memory_node, per_thread);
  }
  (void)routing;
  return model.solve(streams).latency_ns.at(0);
}

}  // namespace

double predict_with(const model::Topology& t, const model::Routing& routing, model::BandwidthModel& model,
                    const CalibrationPoint& point) {
  if (point.metric == CalibrationMetric::kLoadedLatencyNs) return predict_loaded(t, routing, model, point);
  return model::predict_measurement(t, routing, model, as_measurement(point)).predicted;
}

std::vector<double> predict_all(const model::Topology& t, const CalibrationData& data) {
  const model::Routing routing(t);
  std::vector<double> out;
  out.reserve(data.points.size());
  for (const CalibrationPoint& p : data.points) {
    model::BandwidthModel model(t, routing);  // fresh: no warm start, so predictions are deterministic
    out.push_back(predict_with(t, routing, model, p));
  }
  return out;
}

FitOutcome levenberg_marquardt(const Problem& problem, Eigen::VectorXd theta, int max_iterations) {
  FitOutcome out;
  Eigen::VectorXd r = problem.residuals(theta);
  double cost = r.squaredNorm();
  double lambda = 1e-3;
  for (int iteration = 0; iteration < max_iterations; ++iteration) {
    out.iterations = iteration + 1;
    const Eigen::MatrixXd J = problem.jacobian(theta, r);
    const Eigen::MatrixXd A = J.transpose() * J;
    const Eigen::VectorXd g = J.transpose() * r;
    bool improved = false;
    double step_norm = 0.0;
    while (lambda < 1e12) {
      Eigen::MatrixXd damped = A;
      for (Eigen::Index k = 0; k < A.rows(); ++k) damped(k, k) += lambda * std::max(A(k, k), 1e-12);
      Eigen::VectorXd delta = damped.ldlt().solve(-g);
      const double largest = delta.cwiseAbs().maxCoeff();
      if (largest > 2.0) delta *= 2.0 / largest;  // at most a factor e^2 per step
      const Eigen::VectorXd candidate = theta + delta;
      const Eigen::VectorXd rc = problem.residuals(candidate);
      const double candidate_cost = rc.squaredNorm();
      if (std::isfinite(candidate_cost) && candidate_cost < cost) {
        const double decrease = (cost - candidate_cost) / std::max(cost, 1e-300);
        theta = candidate;
        r = rc;
        cost = candidate_cost;
        lambda = std::max(lambda / 3.0, 1e-9);
        improved = true;
        step_norm = delta.norm();
        if (decrease < 1e-10 || cost < 1e-20) out.converged = true;
        break;
      }
      lambda *= 4.0;
    }
    if (!improved) {
      out.converged = true;  // no direction lowers the cost: a (local) minimum
      break;
    }
    if (out.converged || step_norm < 1e-9) {
      out.converged = true;
      break;
    }
  }
  out.theta = theta;
  out.residuals = r;
  out.jacobian = problem.jacobian(theta, r);
  return out;
}

std::vector<int> identifiable(const Eigen::MatrixXd& J) {
  std::vector<int> nonzero;
  for (Eigen::Index k = 0; k < J.cols(); ++k) {
    if (J.col(k).norm() > 1e-7) nonzero.push_back(static_cast<int>(k));
  }
  if (nonzero.empty()) return {};
  // Columns scaled to unit length: the rank test then measures collinearity, not sensitivity.
  Eigen::MatrixXd sub(J.rows(), static_cast<Eigen::Index>(nonzero.size()));
  for (std::size_t c = 0; c < nonzero.size(); ++c) sub.col(static_cast<Eigen::Index>(c)) = J.col(nonzero[c]).normalized();
  Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(sub);
  qr.setThreshold(1e-3);  // forward differences are good to ~1e-4: finer structure is noise
  const Eigen::Index rank = qr.rank();
  std::vector<int> keep;
  for (Eigen::Index c = 0; c < rank; ++c) keep.push_back(nonzero[static_cast<std::size_t>(qr.colsPermutation().indices()[c])]);
  std::sort(keep.begin(), keep.end());
  return keep;
}

}  // namespace numatwin::validate::calibration_internal
