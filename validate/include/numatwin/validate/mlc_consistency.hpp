// Checks that an mlc output does not contradict itself or the physics every model of the
// machine shares, before anything is fitted to it. A fit would otherwise absorb the
// contradiction into some parameter (a node's controller at a fraction of what another node
// gets from it) and report a plausible rms error.
//
// The rules, each with the margin that measurement noise is allowed (mlc's repeated runs on one
// machine differ by a few per cent):
//   1. Bandwidth matrix, column j: no node i reads node j's memory more than 5 % faster than
//      node j reads it itself, B[i][j] <= 1.05 B[j][j]. Node i's reads of j pass j's memory
//      controller and the links besides: they cannot beat j's own reads with the same threads.
//   2. Peak injection "ALL Reads" (every node reads its own memory at once) is at most 5 % above
//      the sum of the matrix's local figures: all nodes together cannot read more than each
//      alone, sum_j B[j][j].
//   3. Latency matrix, column j: no remote latency is more than 5 % below the local one,
//      L[i][j] >= 0.95 L[j][j]: a remote access is the local access plus the links.
//   4. The idle latency (--idle_latency) and every loaded latency are at least 0.95 times the
//      lowest local latency of the matrix, and loaded latencies at least 0.95 times the idle
//      one: a miss under load waits at least as long as an idle one.
//   5. Every figure is finite and > 0.
// Each violation is one model::InputError naming the file, the section and entry (mlc's node
// numbers, or the loaded-latency line) and the contradiction with both figures.
#pragma once

#include "numatwin/validate/mlc_import.hpp"

namespace numatwin::validate {

// Throws model::InputError for the first violated rule (the order above). Sections the output
// does not have are not checked.
void check_mlc_consistency(const MlcResults& mlc);

}  // namespace numatwin::validate
