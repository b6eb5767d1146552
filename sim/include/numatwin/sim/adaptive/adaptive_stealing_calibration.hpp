// The stealing threshold, calibrated on the machine by running the adaptive engine
// (adaptive_engine.hpp) from outside on scenarios built for the purpose (Psaroudakis et al.,
// docs/adaptive.md); the run-time rule that uses the threshold is in adaptive_stealing.hpp.
//
// Scenarios: the first half of the sockets hold one table each, placer off; clients keep every
// queue full of tasks that sum x^n over a vector of doubles,
//     cycles per byte = (1 + n) / 8          (one load-and-add plus n multiplies per element:
//                                             an assumption, not a measurement)
// for n in `powers`; each n runs with stealing denied and allowed. With T_deny, T_allow the
// bytes streamed per second and m_n the mean memory throughput of one task with stealing denied,
// stealing pays at n when T_allow >= (1 + margin) T_deny. The threshold is the geometric mean of
// m at the last n where it does not pay and the first n where it pays (n ascending: m falls);
// +inf when it pays at every n, m at the largest n when it never pays.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::sim {

struct StealingCalibrationOptions {
  std::vector<int> powers = {0, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32};
  double margin = 0.05;     // stealing must gain at least 5 % (assumption)
  double duration_s = 2.0;  // simulated seconds per run
  double task_bytes = 64.0 * 1048576.0;
};

struct StealingCalibrationPoint {
  int power = 0;
  double cycles_per_byte = 0.0;
  double task_bytes_per_s = 0.0;         // m_n: mean per task, stealing denied
  double deny_bytes_per_s = 0.0;         // T_deny
  double allow_bytes_per_s = 0.0;        // T_allow
  double gain = 0.0;                     // T_allow / T_deny - 1
};

struct StealingCalibration {
  std::vector<StealingCalibrationPoint> points;
  double threshold_bytes_per_s = std::numeric_limits<double>::infinity();
  std::string summary;
};

// Throws std::invalid_argument for a machine with fewer than two sockets (nodes with cores and memory).
StealingCalibration calibrate_stealing(const model::Topology& topology, const StealingCalibrationOptions& options = {});

}  // namespace numatwin::sim
