#include "numatwin/validate/calibrate/calibration.hpp"

#include "calibration_problem.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_check.hpp"
#include "numatwin/validate/calibrate/queue_defaults.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace numatwin::validate {
namespace {

using Json = nlohmann::ordered_json;
using namespace calibration_internal;  // NOLINT(google-build-using-namespace): this file drives it

std::string fixed(double value, int digits = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

// Starting values read off the data: local latency from local idle latencies, link latency
// from one-hop remote ones, capacities just above the largest bandwidths seen, miss buffers
// from one thread's bandwidth x latency (Little's law).
// Returns the pointers of what it read off the data, so that a parameter the least squares then
// cannot determine keeps that value rather than going back to the prior.
std::set<std::string> informed_start(model::Topology& t, const CalibrationData& data) {
  std::set<std::string> derived;
  const model::Routing routing(t);
  std::map<int, double> local_latency;
  for (const CalibrationPoint& p : data.points) {
    if (p.metric == CalibrationMetric::kIdleLatencyNs && p.chaser.cpu_node == p.chaser.memory_node) {
      local_latency[p.chaser.memory_node] = p.value;
      t.nodes[p.chaser.memory_node].local_latency_ns = p.value;
      derived.insert("/nodes/" + std::to_string(p.chaser.memory_node) + "/local_latency_ns");
    }
  }
  std::map<int, std::vector<double>> link_latency;
  for (const CalibrationPoint& p : data.points) {
    if (p.metric != CalibrationMetric::kIdleLatencyNs || p.chaser.cpu_node == p.chaser.memory_node) continue;
    const auto& route = routing.route(p.chaser.cpu_node, p.chaser.memory_node);
    const auto local = local_latency.find(p.chaser.memory_node);
    if (route.size() == 1 && local != local_latency.end()) {
      link_latency[t.links[route[0]].spec_index].push_back(std::max(1.0, p.value - local->second));
    }
  }
  for (const auto& [spec, values] : link_latency) {
    double sum = 0.0;
    for (double v : values) sum += v;
    set(t, of(Kind::kLinkLatency, spec), sum / static_cast<double>(values.size()));
  }
  if (!link_latency.empty()) t.coherence.remote_access_overhead_ns = std::max(t.coherence.remote_access_overhead_ns, 1.0);
  std::map<int, double> best_local, best_link;
  std::map<int, int> best_local_threads;
  for (const CalibrationPoint& p : data.points) {
    if (p.metric != CalibrationMetric::kReadBandwidthGbps || p.streams.size() != 1) continue;
    const auto& s = p.streams[0];
    if (s.cpu_node == s.memory_node) {
      if (p.value > best_local[s.memory_node]) best_local_threads[s.memory_node] = s.threads;
      best_local[s.memory_node] = std::max(best_local[s.memory_node], p.value);
      if (s.threads == 1) {
        const double latency = t.nodes[s.memory_node].local_latency_ns;
        const double m = std::ceil(p.value * latency / t.performance.cache_line_bytes);
        set(t, of(Kind::kMissBuffers), std::clamp(m, 1.0, 64.0));
        derived.insert("/nodes/*/miss_buffers_per_core");
      }
    } else {
      for (model::LinkIndex l : routing.route(s.memory_node, s.cpu_node)) {
        best_link[t.links[l].spec_index] = std::max(best_link[t.links[l].spec_index], p.value);
      }
    }
  }
  // Little's law on the most loaded loaded-latency point: the cores in flight hold
  // B x L / S lines, so each core at least that share (mlc's 56 cores at 216 GB/s and 283 ns
  // need 17 lines each).
  for (const CalibrationPoint& p : data.points) {
    if (p.metric != CalibrationMetric::kLoadedLatencyNs) continue;
    std::map<model::NodeIndex, int> threads;
    for (const auto& s : p.streams) threads[s.cpu_node] += s.threads;
    ++threads[p.chaser.cpu_node];
    int cores = 0;
    for (const auto& [node, count] : threads) cores += std::min(count, t.nodes[node].cores);
    if (cores == 0) continue;
    const double lines = p.load_bandwidth_gbps * p.value / t.performance.cache_line_bytes;
    const double m = std::ceil(lines / cores);
    if (m > get(t, of(Kind::kMissBuffers))) {
      set(t, of(Kind::kMissBuffers), std::clamp(m, 1.0, 64.0));
      derived.insert("/nodes/*/miss_buffers_per_core");
    }
  }
  // Without a loaded-latency point the memory queue is read off the saturated local bandwidth by
  // Little's law on the closed loop (queue_defaults.hpp), averaged over the nodes where it holds.
  const bool any_loaded = std::any_of(data.points.begin(), data.points.end(), [](const CalibrationPoint& p) {
    return p.metric == CalibrationMetric::kLoadedLatencyNs;
  });
  if (!any_loaded) {
    double sum = 0.0;
    int count = 0;
    for (const auto& [node, value] : best_local) {
      const auto latency = local_latency.find(node);
      if (latency == local_latency.end()) continue;
      const int cores = std::min(best_local_threads[node], t.nodes[node].cores);
      const std::optional<double> q = saturation_queue_ns(cores, t.nodes[node].miss_buffers_per_core,
                                                          t.performance.cache_line_bytes, value, latency->second);
      if (!q) continue;
      sum += *q;
      ++count;
    }
    if (count > 0) {
      t.performance.memory_queue_ns = sum / count;
      derived.insert("/performance/memory_queue_ns");
    }
  }
  for (const auto& [node, value] : best_local) t.nodes[node].memory_read_bandwidth_gbps = 1.05 * value;
  for (const auto& [spec, value] : best_link) set(t, of(Kind::kLinkBandwidth, spec), 1.05 * value);
  // Queue terms and probe bytes must start above zero to be fitted in log space.
  t.performance.memory_queue_ns = std::max(t.performance.memory_queue_ns, 1.0);
  t.performance.link_queue_ns = std::max(t.performance.link_queue_ns, 1.0);
  t.coherence.probe_bytes_per_line = std::max(t.coherence.probe_bytes_per_line, 1.0);
  t.coherence.response_bytes_per_line = std::max(t.coherence.response_bytes_per_line, 1.0);
  return derived;
}

std::vector<PointResidual> residuals_of(const model::Topology& t, const CalibrationData& data) {
  const std::vector<double> predicted = predict_all(t, data);
  std::vector<PointResidual> out;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const CalibrationPoint& p = data.points[i];
    out.push_back(PointResidual{p.id, p.description, p.metric, p.value, predicted[i]});
  }
  return out;
}

}  // namespace

std::string metric_name(CalibrationMetric metric) {
  switch (metric) {
    case CalibrationMetric::kReadBandwidthGbps: return "read_bandwidth_gbps";
    case CalibrationMetric::kIdleLatencyNs: return "idle_latency_ns";
    case CalibrationMetric::kLoadedLatencyNs: return "loaded_latency_ns";
  }
  return "?";
}

double predict_point(const model::Topology& topology, const CalibrationPoint& point) {
  const model::Routing routing(topology);
  model::BandwidthModel model(topology, routing);
  return predict_with(topology, routing, model, point);
}

CalibrationResult calibrate(const model::Topology& prior, const CalibrationData& data, const CalibrationOptions& options) {
  if (data.points.empty()) throw std::invalid_argument("calibrate: no measurement points");
  CalibrationResult result;
  result.prior_residuals = residuals_of(prior, data);
  model::Topology start = prior;
  const std::set<std::string> derived = informed_start(start, data);
  std::vector<Parameter> candidates = candidate_parameters(start, data);
  // Bounds from the data: no latency term above 10x the largest latency seen, no capacity above
  // 10x the largest bandwidth seen (the fit must not escape to where the data say nothing).
  double max_latency = 0.0, max_bandwidth = 0.0;
  for (const CalibrationPoint& p : data.points) {
    (p.metric == CalibrationMetric::kReadBandwidthGbps ? max_bandwidth : max_latency) =
        std::max(p.metric == CalibrationMetric::kReadBandwidthGbps ? max_bandwidth : max_latency, p.value);
    max_bandwidth = std::max(max_bandwidth, p.load_bandwidth_gbps);
  }
  for (Parameter& p : candidates) {
    switch (p.kind) {
      case Kind::kMemoryBandwidth:
      case Kind::kLinkBandwidth: p.ceiling = 10.0 * std::max(max_bandwidth, get(start, p)); break;
      case Kind::kLocalLatency:
      case Kind::kLinkLatency:
      case Kind::kRemoteOverhead:
      case Kind::kMemoryQueue:
      case Kind::kLinkQueue: p.ceiling = 10.0 * std::max(max_latency, get(start, p)); break;
      case Kind::kQueueExponent: p.ceiling = 16.0; break;
      case Kind::kProbeBytes:
      case Kind::kResponseBytes: p.ceiling = 1024.0; break;
      case Kind::kMissBuffers: break;
    }
  }
  Eigen::VectorXd theta(static_cast<Eigen::Index>(candidates.size()));
  for (std::size_t k = 0; k < candidates.size(); ++k) theta[static_cast<Eigen::Index>(k)] = std::log(std::max(get(start, candidates[k]), candidates[k].floor));

  // Choose the determined parameters at the start, fit, choose again at the optimum, refit.
  std::vector<int> chosen;
  FitOutcome fit;
  model::Topology current = start;
  auto subset_problem = [&](const std::vector<int>& keep, const model::Topology& base) {
    std::vector<Parameter> ps;
    for (int k : keep) ps.push_back(candidates[static_cast<std::size_t>(k)]);
    return Problem(base, data, ps);
  };
  auto subset_theta = [&](const std::vector<int>& keep, const model::Topology& base) {
    Eigen::VectorXd th(static_cast<Eigen::Index>(keep.size()));
    for (std::size_t c = 0; c < keep.size(); ++c) {
      const Parameter& p = candidates[static_cast<std::size_t>(keep[c])];
      th[static_cast<Eigen::Index>(c)] = std::log(std::max(get(base, p), p.floor));
    }
    return th;
  };
  // Fits the `chosen` parameters from `current`, rounds the miss buffers (an integer in the
  // model) and makes the result the new `current`.
  auto fit_chosen = [&]() {
    const Problem problem = subset_problem(chosen, current);
    fit = levenberg_marquardt(problem, subset_theta(chosen, current), options.max_iterations);
    result.iterations += fit.iterations;
    double m = get(current, of(Kind::kMissBuffers));
    for (int c = 0; c < problem.size(); ++c) {
      if (problem.parameters()[static_cast<std::size_t>(c)].kind == Kind::kMissBuffers) {
        m = std::clamp(std::exp(fit.theta[c]), 1.0, kMaxMissBuffers);
      }
    }
    current = problem.apply(fit.theta, std::round(m));
  };
  std::set<int> ever_fitted;  // fitted in a stage or a joint pass; the others return to the prior
  std::vector<int> all(candidates.size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int>(k);
  // Stages: the latencies on the idle latencies, the capacities on the bandwidths, the queue
  // terms on the loaded latencies, each from the previous stage's values; then everything
  // together. A good start matters: the max-min model is piecewise smooth.
  const std::vector<std::pair<std::vector<CalibrationMetric>, std::vector<Kind>>> stages = {
      {{CalibrationMetric::kIdleLatencyNs}, {Kind::kLocalLatency, Kind::kLinkLatency, Kind::kRemoteOverhead}},
      {{CalibrationMetric::kReadBandwidthGbps},
       {Kind::kMemoryBandwidth, Kind::kMissBuffers, Kind::kLinkBandwidth, Kind::kProbeBytes, Kind::kResponseBytes}},
      {{CalibrationMetric::kLoadedLatencyNs}, {Kind::kMemoryQueue, Kind::kQueueExponent, Kind::kLinkQueue}},
  };
  for (const auto& [metrics, kinds] : stages) {
    CalibrationData subset;
    for (const CalibrationPoint& p : data.points) {
      if (std::find(metrics.begin(), metrics.end(), p.metric) != metrics.end()) subset.points.push_back(p);
    }
    std::vector<int> stage_parameters;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (std::find(kinds.begin(), kinds.end(), candidates[k].kind) != kinds.end()) stage_parameters.push_back(static_cast<int>(k));
    }
    if (subset.points.empty() || stage_parameters.empty()) continue;
    auto stage_problem = [&](const std::vector<int>& keep) {
      std::vector<Parameter> ps;
      for (int k : keep) ps.push_back(candidates[static_cast<std::size_t>(k)]);
      return Problem(current, subset, ps);
    };
    const Problem everything = stage_problem(stage_parameters);
    const Eigen::VectorXd th_all = subset_theta(stage_parameters, current);
    std::vector<int> keep;
    for (int c : identifiable(everything.jacobian(th_all, everything.residuals(th_all)))) keep.push_back(stage_parameters[static_cast<std::size_t>(c)]);
    if (keep.empty()) continue;
    ever_fitted.insert(keep.begin(), keep.end());
    const Problem problem = stage_problem(keep);
    const FitOutcome stage = levenberg_marquardt(problem, subset_theta(keep, current), options.max_iterations);
    result.iterations += stage.iterations;
    double m = get(current, of(Kind::kMissBuffers));
    for (int c = 0; c < problem.size(); ++c) {
      if (problem.parameters()[static_cast<std::size_t>(c)].kind == Kind::kMissBuffers) {
        m = std::clamp(std::exp(stage.theta[c]), 1.0, kMaxMissBuffers);
      }
    }
    current = problem.apply(stage.theta, std::round(m));
  }
  for (int pass = 0; pass < 2; ++pass) {
    const Problem everything = subset_problem(all, current);
    const Eigen::VectorXd th_all = subset_theta(all, current);
    const Eigen::VectorXd r_all = everything.residuals(th_all);
    chosen = identifiable(everything.jacobian(th_all, r_all));
    if (chosen.empty()) break;
    ever_fitted.insert(chosen.begin(), chosen.end());
    fit_chosen();
  }
  // Parameters never fitted go back to the prior (or keep what was read off the data), and the
  // chosen ones are refitted once with them in place.
  {
    bool changed = false;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      if (ever_fitted.count(static_cast<int>(k)) != 0) continue;
      const double value = derived.count(candidates[k].pointer) != 0 ? get(start, candidates[k]) : get(prior, candidates[k]);
      if (value != get(current, candidates[k])) changed = true;
      set(current, candidates[k], value);
    }
    if (changed && !chosen.empty()) {
      fit_chosen();
    }
  }
  // Uncertainty at the continuous optimum (before rounding the miss buffers).
  std::map<int, double> std_error;
  if (!chosen.empty()) {
    const Eigen::Index m = fit.residuals.size();
    const Eigen::Index q = static_cast<Eigen::Index>(chosen.size());
    if (m > q) {
      const double s2 = fit.residuals.squaredNorm() / static_cast<double>(m - q);
      const Eigen::MatrixXd A = fit.jacobian.transpose() * fit.jacobian;
      const Eigen::MatrixXd covariance = s2 * A.completeOrthogonalDecomposition().pseudoInverse();
      for (Eigen::Index c = 0; c < q; ++c) {
        const double value = get(current, candidates[static_cast<std::size_t>(chosen[static_cast<std::size_t>(c)])]);
        std_error[chosen[static_cast<std::size_t>(c)]] = value * std::sqrt(std::max(0.0, covariance(c, c)));
      }
    } else {
      result.notes.push_back("as many fitted parameters as points: no residual degree of freedom, uncertainties unknown");
    }
  }
  // With the miss buffers rounded, refit the continuous parameters (short).
  bool has_miss_buffers = false;
  std::vector<int> continuous;
  for (int k : chosen) {
    if (candidates[static_cast<std::size_t>(k)].kind == Kind::kMissBuffers) {
      has_miss_buffers = true;
    } else {
      continuous.push_back(k);
    }
  }
  if (has_miss_buffers && !continuous.empty()) {
    const Problem problem = subset_problem(continuous, current);
    const FitOutcome refit = levenberg_marquardt(problem, subset_theta(continuous, current), options.max_iterations);
    result.iterations += refit.iterations;
    current = problem.apply(refit.theta, get(current, of(Kind::kMissBuffers)));
    fit.converged = refit.converged;
  }
  result.converged = fit.converged || chosen.empty();

  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const Parameter& p = candidates[k];
    FittedParameter out;
    out.pointer = p.pointer;
    out.unit = p.unit;
    out.prior = get(prior, p);
    const bool fitted = ever_fitted.count(static_cast<int>(k)) != 0;
    out.fitted = fitted;
    if (!fitted && derived.count(p.pointer) != 0) {
      set(current, p, get(start, p));
      out.note = "read off the data (Little's law or the figure itself), not determined by the least squares";
    } else if (!fitted) {
      set(current, p, out.prior);  // held: back to the prior, not the informed start
      out.note = "held at its prior value: not determined by these data";
    } else if (std::find(chosen.begin(), chosen.end(), static_cast<int>(k)) == chosen.end()) {
      out.note = "fitted in its stage; not determined jointly with the others, so no uncertainty";
    }
    out.value = get(current, p);
    const auto se = std_error.find(static_cast<int>(k));
    out.std_error = se == std_error.end() ? -1.0 : se->second;
    result.parameters.push_back(out);
  }
  // What the data bound of the parameters fitted in a stage only (calibration_problem.hpp, "what
  // the data bound"): the profile of the fit with each held at v x s and every other fitted
  // continuous parameter refitted.
  {
    const auto rms_of = [&](const model::Topology& t) {
      double sum = 0.0;
      const std::vector<PointResidual> r = residuals_of(t, data);
      for (const PointResidual& x : r) sum += x.relative_error() * x.relative_error();
      return std::sqrt(sum / static_cast<double>(std::max<std::size_t>(1, r.size())));
    };
    const double fitted_rms = rms_of(current);
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      FittedParameter& out = result.parameters[k];
      const Parameter& p = candidates[k];
      if (!out.fitted || p.kind == Kind::kMissBuffers ||
          std::find(chosen.begin(), chosen.end(), static_cast<int>(k)) != chosen.end())
        continue;
      const double v = get(current, p);
      // Every other fitted continuous parameter is refitted (the jointly determined ones and the
      // others fitted in a stage: along a ridge they move together).
      std::vector<int> others;
      for (int j : ever_fitted) {
        if (j != static_cast<int>(k) && candidates[static_cast<std::size_t>(j)].kind != Kind::kMissBuffers) others.push_back(j);
      }
      const auto profile_rms = [&](double scale) {
        model::Topology base = current;
        set(base, p, v * scale);
        if (others.empty()) return rms_of(base);
        const Problem problem = subset_problem(others, base);
        const FitOutcome refit = levenberg_marquardt(problem, subset_theta(others, base), options.max_iterations);
        return rms_of(problem.apply(refit.theta, get(base, of(Kind::kMissBuffers))));
      };
      const DataBound bound = data_bound(v, fitted_rms, profile_rms);
      if (bound.determined) continue;
      out.determined = false;
      out.lower_bound = bound.lower > 0.0 ? bound.lower : -1.0;
      out.upper_bound = std::isfinite(bound.upper) ? bound.upper : -1.0;
      const std::string unit = p.unit.empty() ? "" : " " + p.unit;
      const std::string range = std::string(bound.lower > 0.0 ? ">= " + fixed(bound.lower, 3) + unit : "no lower bound above " + fixed(v / 64.0, 3) + unit) +
                                (std::isfinite(bound.upper) ? ", <= " + fixed(bound.upper, 3) + unit : ", no upper bound below " + fixed(64.0 * v, 3) + unit);
      out.note = "not determined by these data: held anywhere in " + range + " with the others refitted, the rms error moves by less than " +
                 fixed(100.0 * kBoundTolerance) + " point; the value is where its stage stopped";
    }
  }
  // Held values went back to the prior: make sure the fit still holds (it does when the column
  // was zero); refit the chosen ones once more if anything changed.
  result.residuals = residuals_of(current, data);
  double sum = 0.0;
  for (const PointResidual& r : result.residuals) {
    sum += r.relative_error() * r.relative_error();
    result.max_abs_relative_error = std::max(result.max_abs_relative_error, std::abs(r.relative_error()));
  }
  result.rms_relative_error = std::sqrt(sum / static_cast<double>(result.residuals.size()));

  // The calibrated file: measurements, provenance.
  model::Topology& t = current;
  t.measurements.clear();
  for (const CalibrationPoint& p : data.points) {
    if (p.metric == CalibrationMetric::kLoadedLatencyNs) continue;
    model::Measurement m = as_measurement(p);
    m.source = data.source;
    t.measurements.push_back(m);
  }
  std::vector<std::string> placeholders = placeholders_of(prior);
  std::string fitted_text, held_text, bounded_text;
  for (const FittedParameter& p : result.parameters) {
    if (p.fitted && !p.determined) {
      // Not a measured figure: it stays a placeholder, with what the data do say.
      bounded_text += (bounded_text.empty() ? "" : "; ") + p.pointer + " = " + fixed(p.value, 4) +
                      (p.unit.empty() ? "" : " " + p.unit) + ": " + p.note;
      continue;
    }
    if (p.fitted) {
      t.provenance.measured.push_back(p.pointer);
      fitted_text += (fitted_text.empty() ? "" : "; ") + p.pointer + " = " + fixed(p.value, 4) +
                     (p.std_error >= 0 ? " ± " + fixed(p.std_error, 2) : "") + (p.unit.empty() ? "" : " " + p.unit);
    } else {
      held_text += (held_text.empty() ? "" : ", ") + p.pointer;
    }
    // A fitted field is no longer a placeholder: drop its wildcard when every instance was fitted.
    std::string wildcard = p.pointer;
    if (wildcard.rfind("/nodes/", 0) == 0 && wildcard != "/nodes/*/miss_buffers_per_core") {
      wildcard = "/nodes/*/" + wildcard.substr(wildcard.rfind('/') + 1);
    } else if (wildcard.rfind("/links/", 0) == 0) {
      const std::string field = wildcard.substr(wildcard.rfind('/') + 1);
      wildcard = "/links/*/" + (field == "bandwidth_gbps" ? std::string("bandwidth_per_direction_gbps") : field);
    }
    if (p.fitted) {
      bool all_fitted = true;
      for (const FittedParameter& q : result.parameters) {
        if ((!q.fitted || !q.determined) && q.pointer.substr(q.pointer.rfind('/')) == p.pointer.substr(p.pointer.rfind('/')) &&
            q.pointer.substr(0, 6) == p.pointer.substr(0, 6)) {
          all_fitted = false;
        }
      }
      if (all_fitted) placeholders.erase(std::remove(placeholders.begin(), placeholders.end(), wildcard), placeholders.end());
      placeholders.erase(std::remove(placeholders.begin(), placeholders.end(), p.pointer), placeholders.end());
    }
  }
  for (const FittedParameter& p : result.parameters) {
    if (!p.fitted || p.determined) continue;
    const std::string field = p.pointer.substr(p.pointer.rfind('/') + 1);
    const bool listed = std::any_of(placeholders.begin(), placeholders.end(), [&](const std::string& x) {
      return x == p.pointer || (x.find('*') != std::string::npos && x.substr(x.rfind('/') + 1) == field &&
                                x.substr(0, 6) == p.pointer.substr(0, 6));
    });
    if (!listed) placeholders.push_back(p.pointer);
  }
  t.provenance.source = "numatwin validate calibrate on " + data.source + "; structure: " + prior.provenance.source;
  set_placeholders(t, placeholders);
  t.provenance.notes += " Calibrated (least squares on relative errors, " + std::to_string(data.points.size()) +
                        " points): rms error " + fixed(100.0 * result.rms_relative_error) + " %, largest " +
                        fixed(100.0 * result.max_abs_relative_error) + " %. Fitted: " + (fitted_text.empty() ? "none" : fitted_text) +
                        ". Held at the prior (not determined by the data): " + (held_text.empty() ? "none" : held_text) + "." +
                        (bounded_text.empty() ? "" : " Fitted but not determined by the data (kept as placeholders): " + bounded_text + ".");
  for (const std::string& note : data.notes) t.provenance.notes += " " + note + ".";
  for (const std::string& warning : data.warnings) t.provenance.notes += " Warning: " + warning + ".";
  model::check_topology(t, "<calibrated " + t.name + ">");
  result.topology = t;
  result.notes.insert(result.notes.end(), data.notes.begin(), data.notes.end());
  result.warnings = data.warnings;
  return result;
}

Json to_json(const CalibrationResult& result) {
  Json parameters = Json::array();
  for (const FittedParameter& p : result.parameters) {
    parameters.push_back(Json{{"pointer", p.pointer},
                              {"unit", p.unit},
                              {"prior", p.prior},
                              {"value", p.value},
                              {"std_error", p.std_error >= 0 ? Json(p.std_error) : Json(nullptr)},
                              {"fitted", p.fitted},
                              {"determined", p.determined},
                              {"lower_bound", p.lower_bound >= 0 ? Json(p.lower_bound) : Json(nullptr)},
                              {"upper_bound", p.upper_bound >= 0 ? Json(p.upper_bound) : Json(nullptr)},
                              {"note", p.note}});
  }
  auto residuals = [](const std::vector<PointResidual>& rs) {
    Json out = Json::array();
    for (const PointResidual& r : rs) {
      out.push_back(Json{{"id", r.id},
                         {"metric", metric_name(r.metric)},
                         {"measured", r.measured},
                         {"predicted", r.predicted},
                         {"relative_error", r.relative_error()},
                         {"description", r.description}});
    }
    return out;
  };
  return Json{{"converged", result.converged},
              {"iterations", result.iterations},
              {"rms_relative_error", result.rms_relative_error},
              {"max_abs_relative_error", result.max_abs_relative_error},
              {"parameters", parameters},
              {"residuals", residuals(result.residuals)},
              {"prior_residuals", residuals(result.prior_residuals)},
              {"notes", result.notes},
              {"warnings", result.warnings}};
}

}  // namespace numatwin::validate
