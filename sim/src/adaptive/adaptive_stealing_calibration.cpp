// The stealing calibration (adaptive_stealing_calibration.hpp): builds the calibration
// scenarios, runs each through the engine (run_adaptive) with stealing denied and allowed, and
// derives the threshold from the gains.
#include "numatwin/sim/adaptive/adaptive_stealing_calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "numatwin/sim/adaptive/adaptive_engine.hpp"

namespace numatwin::sim {

namespace {

// The calibration scenario: sockets 0 .. S/2-1 hold one table each (16 tasks per query);
// enough clients per table that every queue stays longer than the workers that can drain it.
AdaptiveScenario calibration_scenario(const model::Topology& topology, const StealingCalibrationOptions& options,
                                      double cycles_per_byte, StealingMode mode) {
  const std::vector<model::NodeIndex> sockets = adaptive_sockets(topology);
  const int S = static_cast<int>(sockets.size());
  int cores = 0;
  for (model::NodeIndex n : sockets) cores = std::max(cores, topology.nodes[n].cores);
  AdaptiveScenario sc;
  sc.name = "stealing-calibration";
  sc.duration_s = options.duration_s;
  sc.task_bytes = options.task_bytes;
  sc.placer_enabled = false;
  sc.stealing = mode;
  sc.costs = PageCosts{1e-6, 1e-6, "unused: the placer is off"};
  sc.classes = {AdaptiveTaskClass{"sum-x^n", cycles_per_byte, 0.0}};
  const int data_sockets = S / 2;
  const int tasks_per_query = 16;
  // Each data socket may be drained by its own workers and by those of the idle sockets it
  // shares out: keep 2 x that many tasks queued.
  const int drainers = cores * (1 + (S - data_sockets + data_sockets - 1) / data_sockets);
  const int clients = 2 * drainers / tasks_per_query + 2;
  for (int d = 0; d < data_sockets; ++d) {
    sc.tables.push_back(AdaptiveTable{"D" + std::to_string(d), tasks_per_query * options.task_bytes, d, 1});
    AdaptiveClientGroup group;
    group.count = clients;
    group.tables = {WeightedChoice{d, 1.0}};
    group.classes = {WeightedChoice{0, 1.0}};
    sc.clients.push_back(group);
  }
  return sc;
}

std::string gbps(double bytes_per_s) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.3g GB/s", bytes_per_s / 1e9);
  return buffer;
}

}  // namespace

StealingCalibration calibrate_stealing(const model::Topology& topology, const StealingCalibrationOptions& options) {
  if (adaptive_sockets(topology).size() < 2) throw std::invalid_argument("stealing calibration needs at least two sockets");
  if (options.powers.empty()) throw std::invalid_argument("stealing calibration needs at least one power n");
  StealingCalibration cal;
  for (int n : options.powers) {
    StealingCalibrationPoint p;
    p.power = n;
    p.cycles_per_byte = (1.0 + n) / 8.0;
    const AdaptiveResult deny = run_adaptive(topology, calibration_scenario(topology, options, p.cycles_per_byte, StealingMode::kDeny));
    const AdaptiveResult allow = run_adaptive(topology, calibration_scenario(topology, options, p.cycles_per_byte, StealingMode::kAllow));
    p.deny_bytes_per_s = deny.bytes / deny.duration_s;
    p.allow_bytes_per_s = allow.bytes / allow.duration_s;
    p.task_bytes_per_s = deny.classes.front().task_bytes_per_s;
    p.gain = p.allow_bytes_per_s / p.deny_bytes_per_s - 1.0;
    cal.points.push_back(p);
  }
  // Powers ascending: per-task throughput falls, the gain of stealing grows.
  int first_paying = -1;
  for (std::size_t i = 0; i < cal.points.size(); ++i) {
    if (cal.points[i].gain >= options.margin) {
      first_paying = static_cast<int>(i);
      break;
    }
  }
  if (first_paying == 0) {
    cal.threshold_bytes_per_s = std::numeric_limits<double>::infinity();
    cal.summary = "stealing pays at every n: never denied";
  } else if (first_paying < 0) {
    cal.threshold_bytes_per_s = cal.points.back().task_bytes_per_s;
    cal.summary = "stealing never pays: denied for every class above " + gbps(cal.threshold_bytes_per_s) + " per task";
  } else {
    const StealingCalibrationPoint& a = cal.points[first_paying - 1];
    const StealingCalibrationPoint& b = cal.points[first_paying];
    cal.threshold_bytes_per_s = std::sqrt(a.task_bytes_per_s * b.task_bytes_per_s);
    cal.summary = "stealing pays from n = " + std::to_string(b.power) + " (" + gbps(b.task_bytes_per_s) +
                  " per task), not at n = " + std::to_string(a.power) + " (" + gbps(a.task_bytes_per_s) +
                  "): threshold " + gbps(cal.threshold_bytes_per_s) + " per task";
  }
  return cal;
}

}  // namespace numatwin::sim
