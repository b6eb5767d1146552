// The Data Placer of Psaroudakis et al. (docs/adaptive.md), as a pure decision over a snapshot
// of recent utilisation; the engine (adaptive_engine.hpp) takes the snapshot every period c_p,
// carries the decision out over time and records it.
//
// CPU shares are busy workers over a socket's workers (0..1, a part's share counts every
// worker running its tasks). A "part" here is a placement unit: a table part, or the matching
// parts of a table group's tables, which the engine moves together (adaptive_table_groups.hpp).
// Every period:
//  1. A part is eligible to move when its history covers W_m = 2 x pages x move_s_per_page and its
//     mean share over W_m is within c_e of its recent one, |avg(W_m) - recent| <= c_e x recent (c_e = 0.3),
//     and eligible to partition likewise over W_p = 2 x pages x (move + partition s per page),
//     and only while 2 x (parts of its table) <= sockets.
//  2. Socket pairs (h, c) are sorted by imbalance I = u_h - u_c; take the hottest pair.
//     Act only if u_h > c_s (0.7) and I > c_i (0.4).
//  3. Move: the hot socket's eligible parts by decreasing share p; the first with
//         I' = |(u_h - p) - (u_c + p)| < I   and   m_c + m_part <= M_c
//     (m: memory throughput, M_c: the cold socket's memory bandwidth) moves to c.
//  4. Else partition: the first partition-eligible part with I' = |I - p| < I and
//     m_c + m_part / 2 <= M_c is split in two; one half goes to c.
//  5. Else merge: the first partitioned table whose parts together use less than
//     cold_table_cpu of a socket, and whose parts off the coldest socket k are each eligible to
//     move (so "cold" rests on a history as long as the move's window, not on one period),
//     moves all its parts onto k, if m_k + m_table <= M_k and the hottest pair's predicted
//     imbalance does not grow.
// "Lowers" (steps 3, 4) means I' < I - 1e-9, so that rounding in the summed shares is no gain.
// The predicted I' is recorded with the decision; no decision predicts I' > I.
#pragma once

#include <string>
#include <vector>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim {

struct PlacerSocketState {
  double cpu_share = 0.0;                    // recent (last period)
  double memory_bytes_per_s = 0.0;           // recent read+write throughput at its controller
  double memory_capacity_bytes_per_s = 0.0;  // its controller's bandwidth
};

struct PlacerPartState {
  int part = 0;   // engine's id
  int table = 0;
  int socket = 0;
  int table_parts = 1;
  double pages = 0.0;
  double cpu_share = 0.0;  // recent
  double memory_bytes_per_s = 0.0;
  bool move_eligible = false;
  bool partition_eligible = false;
  // What eligibility rested on: the history the unit has (its own or inherited), and the
  // windows W_m and W_p the rule averages over (a history shorter than a window: not eligible).
  double history_s = 0.0;
  double move_window_s = 0.0;
  double partition_window_s = 0.0;
  bool move_history_short = false;  // the history is shorter than W_m (so not move-eligible)
};

struct PlacerSnapshot {
  std::vector<PlacerSocketState> sockets;
  std::vector<PlacerPartState> parts;
};

enum class PlacerAction { kNone, kMove, kPartition, kMerge };

struct PlacerDecision {
  PlacerAction action = PlacerAction::kNone;
  int part = -1;   // kMove, kPartition
  int table = -1;
  int from_socket = -1;  // hot socket (kMove, kPartition)
  int to_socket = -1;
  int hot_socket = -1;
  int cold_socket = -1;
  double imbalance_before = 0.0;  // of the hottest pair
  double imbalance_after = 0.0;   // predicted
  std::string reason;
};

// Step 1's test, the study's: the average over the window (2 x the time the operation would take)
// within c_e of the recent utilisation.
bool placer_eligible(double recent, double window_average, double divergence);

PlacerDecision decide_placement(const PlacerSnapshot& snapshot, const PlacerParameters& parameters);

std::string placer_action_name(PlacerAction action);

}  // namespace numatwin::sim
