// Operator costs from a core's microarchitecture (origin "derived", operator_costs.hpp): the
// in-core cycles of each kernel's inner loop as an architecture code analyser reads them off the
// loop's compiled machine code, so that a 2010 Nehalem-EX and a 2024 Sapphire Rapids no longer
// share one default (issue 38 item 2).
//
// ── Input ────────────────────────────────────────────────────────────────────────────────────
// A loop-cycle table (topologies/cores/loop-cycles-llvm-mca-14.json, made by
// tools/loop-cycles/derive.py: llvm-mca-14 on clang-14's code of validate/src's kernels, per
// -mcpu; its README gives the loop of every cost and how each was cut out). Per
// microarchitecture a, the table gives A_k(a), the analyser's cycles for cost k in the model's
// own terms (the loop minus the scan where the model charges the scan apart, as
// cost_microbenchmarks.hpp inverts a measured loop), and for MEDIAN's selection its two group
// sizes s16(a), s256(a).
//
// ── Rule ─────────────────────────────────────────────────────────────────────────────────────
//   scan, hash, join, group, partition, partition_join, merge, filter cycles, and
//   index_cycles_per_level (the index join's inner-level loop; the table's index_join.inner_level)
//       value = A_k(a)
//       range = [kAnalyserLow x A_k(a), kAnalyserHigh x A_k(a)]
//   sort_cycles_per_comparison
//       value = A_sort(a) + 1/2 x P       a comparison against the pivot of random keys goes
//                                         either way: half of them mispredict
//   select_cycles_per_value
//       value = sqrt(s16' x s256'),  s16' = s16(a) + 15/16 x P   (the insertion sort's shift
//                                         loop exits at a random place once per insertion)
//                                    s256' = s256(a) + 1/2 x 2.75 x P   (nth_element's 2.75
//                                         comparisons a value, half mispredicted)
//       range: the analyser's band on the loop part, P over its range
// with P = kMispredictCycles (range kMispredictLowCycles..kMispredictHighCycles): the branch
// misprediction penalty of the cores from Nehalem to Zen 3, 15-20 cycles (A. Fog, "The
// microarchitecture of Intel, AMD and VIA CPUs", the branch prediction chapters; one value for
// all, since the analyser itself does not model branches). llvm-mca sees neither mispredictions
// nor cache misses: A_k(a) is the loop's in-core floor.
//
// The analyser's band [kAnalyserLow, kAnalyserHigh] is what this project's build VM (Emerald
// Rapids, analysed with -mcpu=sapphirerapids, which llvm-mca-14 runs on its Skylake-server model)
// measured against it, 2026-11-29: three `numatwin validate measure --costs-only` runs, each
// loop's ns x 2.1 GHz (the CPU's nominal clock: the VM shows no turbo clock, so the true cycles
// may be higher) over the analyser's cycles, for histogram, COUNT, hash build and probe, group
// update, radix scatter, partition build and probe, merge, filter and the shuffle consumer: 0.58
// (COUNT) to 2.09 (partition probe). That band is calibration on this host, carried to every
// other microarchitecture; sort and select, 5x off before their misprediction terms, were left
// out of it (docs/operator-costs.md has the table).
//
// Costs the analyser cannot see keep what they had (a machine's measured, calibrated or
// transferred value) or their default: random_lines_in_flight, llc_hit_ns, private_hit_ns,
// shared_line_transfer_ns, atomic_update_ns (llvm-mca does not model a locked instruction's
// drain), llc_usable_share and the stream shares. A microarchitecture the table has no
// scheduling model for (K8) gets no derived cost: its machine keeps the defaults, and
// derive_core_costs says so.
#pragma once

#include <array>
#include <map>
#include <string_view>
#include <string>
#include <vector>

#include "numatwin/model/operator_costs.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// The loop costs that are the analyser's cycles alone (the rule's first line); the table also
// gives sort_cycles_per_comparison and the selection's two group sizes.
inline constexpr std::array<std::string_view, 8> kAnalysedLoopCosts = {
    "scan_cycles_per_tuple",      "hash_cycles_per_tuple",           "join_cycles_per_tuple",  "group_cycles_per_tuple",
    "partition_cycles_per_tuple", "partition_join_cycles_per_tuple", "merge_cycles_per_tuple", "filter_cycles_per_cell"};

inline constexpr double kAnalyserLow = 0.55;
inline constexpr double kAnalyserHigh = 2.1;
inline constexpr double kMispredictCycles = 17.0;
inline constexpr double kMispredictLowCycles = 15.0;
inline constexpr double kMispredictHighCycles = 20.0;

// One microarchitecture's analysed loops, in the model's terms.
struct AnalysedCore {
  std::string name;              // the table's key, e.g. "nehalem" (an -mcpu name)
  std::string scheduling_model;  // e.g. "SandyBridgeModel"; empty: none (no cycles)
  bool borrowed = false;         // the model is another core's
  std::map<std::string, double> costs;  // operator cost name -> A_k(a), cycles
  double select_16 = 0.0;   // MEDIAN's selection, groups of 16, cycles a value
  double select_256 = 0.0;  // ... groups of 256
};

struct LoopCycleTable {
  std::string file;
  std::string analyser;  // e.g. "Debian LLVM version 14.0.6"
  std::map<std::string, AnalysedCore> cores;
};

// The costs the rule derives for `microarchitecture` (origin kDerived, source naming the table,
// the analyser and the rule). Throws std::invalid_argument naming the known microarchitectures
// when the table has no such entry, or when it has no scheduling model for it.
std::vector<NamedCost> derive_core_costs(const LoopCycleTable& table, const std::string& microarchitecture);

// `target` with the derived costs in place of its own defaults and derived costs; a cost the
// target measured, calibrated or transferred is kept.
Topology with_derived_core_costs(const Topology& target, const LoopCycleTable& table, const std::string& microarchitecture);

}  // namespace numatwin::model
