// Adaptive task stealing (Psaroudakis et al., docs/adaptive.md): the run-time rule.
//
// An idle worker whose socket's queue is empty may take a queued task of another socket (the
// longest queue first, then the nearest socket, then the lowest index), if
//     allow: always;   deny: never;
//     adaptive: the task's class has a moving average of memory throughput per task and it is
//               <= the machine's threshold. A class without a sample yet is not stolen: its
//               first tasks run where their data is, so the first samples are not lowered by
//               the remote traffic that stealing adds (once stolen and contended, a memory-bound
//               class would look light and stay stealable).
// The threshold comes from the scenario or from the calibration (adaptive_stealing_calibration.hpp).
#pragma once

#include <optional>

#include "numatwin/sim/adaptive_scenario.hpp"

namespace numatwin::sim {

bool stealing_allowed(StealingMode mode, std::optional<double> class_task_bytes_per_s, double threshold_bytes_per_s);

}  // namespace numatwin::sim
