// Predicting a measured machine's figures from its spec sheet, and the leave-one-out check over
// a corpus (`numatwin check machines`, docs/spec-sheet.md): each machine's rules are fitted on
// every OTHER machine only (spec_rule_fit.hpp), so no figure of a machine reaches its own
// prediction.
//
// ── What is predicted ────────────────────────────────────────────────────────────────────────
// From the derived topology T (spec_derivation.hpp) and machine_figures.hpp:
//   idle latency (i, j)  = T's access latency from node i's cores to node j's memory;
//   bandwidth (i, j)     = every thread of node i reading node j's memory, alone on the machine;
//   peak injection, mix of write share w, over a scope S (the whole machine or one socket):
//                          P_w = sum_{n in S} C_n / (1 + tau_kind w);
//   loaded latency at a measured bandwidth b of a curve of mix w over S:
//                          u = min(1, b / P_w),  L = L_0 + Q_mem u^e  (node 0's curve).
// The interval of a prediction: the smallest and largest over the rules at the corners of their
// ranges, in three groups moved together (latency: D, X, s; bandwidth: eta, eta_link, G, and
// tau the other way; queue: M, and e the other way): 8 corners and the middle (a corner the
// Deriver refuses, e.g. a latency at or below zero, is left out). The ranges are
// those of the fitted values over the other machines, so the interval is what the spread of the
// machines seen allows, not a statistical 90 % interval.
// Error of a prediction: (predicted - measured) / measured, in %.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/measured_machine.hpp"
#include "numatwin/model/spec_rules.hpp"

namespace numatwin::model {

struct FigureCheck {
  FigureClass figure_class = FigureClass::kIdleLatency;
  std::string what;     // "idle latency 0 -> 1", "peak injection 3:1 Reads-Writes", ...
  std::string pointer;  // in the corpus file
  double measured = 0.0;
  double predicted = 0.0;
  double low = 0.0;
  double high = 0.0;

  [[nodiscard]] double error_pct() const { return (predicted - measured) / measured * 100.0; }
  [[nodiscard]] bool inside() const { return measured >= low && measured <= high; }
};

struct MachineCheck {
  std::string id;
  std::vector<FigureCheck> checks;
  std::vector<UnpredictedFigure> unpredicted;
};

// `m`'s measured figures as `rules` predict them from its spec sheet; every figure it cannot
// predict (no sheet, a derivation refused, a node the derivation does not have) is listed in
// `unpredicted` with the reason.
MachineCheck check_machine(const MeasuredMachine& m, const SpecRules& rules);

// For each machine of `machines`, check_machine with the rules fitted on every other machine of
// `machines` and on `always_fitted` (machines that are fitted on but not checked).
std::vector<MachineCheck> check_leave_one_out(const std::vector<MeasuredMachine>& machines, const SpecRules& base,
                                              const std::vector<MeasuredMachine>& always_fitted = {});

struct ErrorSummary {
  int count = 0;
  double median_abs_error_pct = 0.0;
  double worst_abs_error_pct = 0.0;
  double inside_share = 0.0;  // measured in [low, high]
};
ErrorSummary summarise(const std::vector<const FigureCheck*>& checks);

}  // namespace numatwin::model
