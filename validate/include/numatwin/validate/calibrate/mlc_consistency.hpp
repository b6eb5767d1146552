// Checks that an mlc output does not contradict itself or the physics every model of the
// machine shares, before anything is fitted to it. A fit would otherwise absorb the
// contradiction into some parameter (a node's controller at a fraction of what another node
// gets from it) and report a plausible rms error.
//
// Rows are the nodes with CPUs, columns every memory node (mlc_import.hpp); "local" is the entry
// of a node with CPUs and its own memory. The rules, each with the margin that measurement noise
// is allowed (mlc's repeated runs on one machine differ by a few per cent). Refused (an error):
//   1. Bandwidth matrix, column j (a node with CPUs): no node i reads node j's memory more than 5 %
//      faster than node j reads it itself, B[i][j] <= 1.05 B[j][j]. Node i's reads of j pass j's
//      memory controller and the links besides: they cannot beat j's own reads with the same threads.
//   2. Peak injection "ALL Reads" (every node reads its own memory at once) is at most 5 % above
//      the sum of the matrix's local figures: all nodes together cannot read more than each
//      alone, sum_j B[j][j].
//   3. Latency matrix, row i: node i's CPUs reach no other node with CPUs more than 5 % faster
//      than their own memory, L[i][j] >= 0.95 L[i][i]. The node the firmware puts a CPU in is the
//      one whose memory controllers are nearest to it; a remote access is a local one of another
//      node plus the links. A matrix saying otherwise has its rows or columns mislabelled or a
//      local figure wrong, and the model (remote = the memory node's latency + the links) cannot
//      represent it: it is refused, not fitted. Columns of CPU-less nodes (HBM, CXL) are another
//      kind of memory and are not compared with the local DRAM.
//   4. The idle latency (--idle_latency) and every loaded latency are at least 0.95 times the
//      lowest local latency of the matrix, and loaded latencies at least 0.95 times the idle
//      one: a miss under load waits at least as long as an idle one.
//   5. Every figure is finite and > 0, and each matrix has one row label per row and one value per
//      column label (as the reader gives it).
// Named (a warning), then fitted:
//   6. Latency matrix, column j: node j's own latency is more than 5 % above another node's
//      latency to j's memory, L[i][j] < 0.95 L[j][j]. Genuine on some sub-NUMA-clustered parts:
//      mlc chases pointers from one CPU of each node, and that CPU of node j may sit farther from
//      j's memory controllers on the mesh than node i's CPU does. The model has one local latency
//      per memory node and fits a compromise.
//   7. Bandwidth matrix, row i: node i reads another node j's memory more than 5 % faster than its
//      own, B[i][j] > 1.05 B[i][i]. Possible when node j has more memory bandwidth (more channels
//      populated) and the path to it is not the limit; worth checking the DIMM population.
// Each violation names the file, the section and entry (mlc's node numbers, or the loaded-latency
// line) and the contradiction with both figures.
#pragma once

#include <string>
#include <vector>

#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::validate {

// Throws model::InputError for the first violated rule of 1-5 (that order); returns the warnings of
// rules 6-7, each "<file>: <section> [entry]: <what>". Sections the output does not have are not
// checked.
std::vector<std::string> check_mlc_consistency(const MlcResults& mlc);

}  // namespace numatwin::validate
