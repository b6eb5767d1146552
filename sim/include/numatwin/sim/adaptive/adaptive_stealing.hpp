// Adaptive task stealing (Psaroudakis et al., docs/adaptive.md): the run-time rule.
//
// An idle worker whose socket's queue is empty may take a queued task of another socket (the
// longest queue first, then the nearest socket, then the lowest index), if
//     allow: always;   deny: never;
//     adaptive: the task's class has a moving average of memory throughput per task and it is
//               <= the machine's threshold, as effective where the work is (below). The average
//               is over tasks that ran as with stealing denied (not stolen, no stolen task
//               reading their socket meanwhile), as the calibration measured it. A class
//               without a sample yet is not stolen: its first tasks run where their data is,
//               so the first samples are not lowered by the remote traffic that stealing adds
//               (once stolen and contended, a memory-bound class would look light and stay
//               stealable). The engine also keeps each victim's memory demand (its readers at
//               their classes' averages) within 2 W T, the calibration's victim at T.
// The threshold comes from the scenario or from the calibration (adaptive_stealing_calibration.hpp).
//
// Where the work is (effective_stealing_threshold): the calibration measures T with half the
// sockets holding the work, so each loaded socket's memory is read by its own W workers and the
// W of one idle socket: T is the per-task rate at which 2 W readers of one socket stop gaining
// from more CPU, a demand of 2 W T on that socket. With q of S sockets loaded (queued tasks) and
// the other S - q stealing, each loaded socket has S / q sockets' workers reading it, so the
// same demand is reached at a per-task rate of 2 W T / (W S / q) = T x 2 q / S. The rule uses
// T_eff = T x min(1, 2 q / S): lower where fewer sockets hold the work than in the calibration
// (one hot socket of four: T / 2), never higher than the calibrated T (with more loaded sockets
// than idle ones nothing was measured that says heavier tasks pay).
#pragma once

#include <optional>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim {

bool stealing_allowed(StealingMode mode, std::optional<double> class_task_bytes_per_s, double threshold_bytes_per_s);

// T x min(1, 2 x loaded_sockets / sockets); T itself when sockets < 1.
double effective_stealing_threshold(double threshold_bytes_per_s, int sockets, int loaded_sockets);

}  // namespace numatwin::sim
