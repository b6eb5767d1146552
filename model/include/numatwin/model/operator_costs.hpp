// Operator costs as a machine's figures: the core-bound and cache-latency parameters of the
// operator model (sim/plan/operator_plan.hpp uses them; sim/workload/workload_spec.hpp's OperatorCosts holds
// one set of values), stored in the topology file next to the bandwidths, each with where it
// comes from and how uncertain it is:
//
//   origin        what the value rests on
//   measured      `numatwin validate measure` ran single-purpose loops on this machine (the
//                 source names the host and the date); range: the spread of the repetitions
//   calibrated    the kernel-level fit of `validate suite` moved it (calibration on that suite's
//                 runs); range: the fit's, or the measured one when the fit did not move it
//   transferred   carried over from another machine's calibrated core: cycles kept (scaled by
//                 what differs, e.g. frequency), latencies from the target's own figures; the
//                 source says from where and how; range: widened for what the transfer cannot know
//   derived       from the machine's microarchitecture by a rule, not measured on it: the
//                 in-core cycles an architecture code analyser reads off the kernel's loop
//                 (core_cost_rules.hpp); the source names the analyser, the core and the rule;
//                 range: the analyser's error as measured on the one host that checked it
//   default       calibrated nowhere: the value is a guess, the range what cores of 2008-2024
//                 plausibly show (operator_cost_table()); a figure that rests on defaults says so
//
// A cost the file does not list is its default. Every entry has smallest <= low <= value <= high
// <= largest (operator_cost_table(): smallest 1 for lines in flight, else 0; largest 1 for a share,
// else unbounded).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace numatwin::model {

enum class CostOrigin { kMeasured, kCalibrated, kTransferred, kDerived, kDefault };

const char* cost_origin_name(CostOrigin origin);
std::optional<CostOrigin> parse_cost_origin(std::string_view text);

// One cost of a machine: its value and the interval it is believed to lie in.
struct CostValue {
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
  CostOrigin origin = CostOrigin::kDefault;
  std::string source;  // how it was obtained (host and date, transfer rule, ...)

  bool operator==(const CostValue&) const = default;
};

struct NamedCost {
  std::string name;  // one of operator_cost_table()'s names
  CostValue cost;

  bool operator==(const NamedCost&) const = default;
};

// What the model knows of each cost: its name (as in files and reports), unit, meaning, and the
// default value and range used when a machine does not list it.
struct OperatorCostInfo {
  std::string_view name;
  std::string_view unit;
  std::string_view meaning;
  double default_value;
  double default_low;
  double default_high;
  double smallest;  // the smallest value the model accepts (0 or more)
  double largest;   // the largest (a share: 1; else unbounded)
};

std::span<const OperatorCostInfo> operator_cost_table();
const OperatorCostInfo* find_operator_cost(std::string_view name);

// The cost `name` of a machine: its entry in `costs`, else the default (origin kDefault).
// Throws std::invalid_argument for an unknown name.
CostValue cost_or_default(const std::vector<NamedCost>& costs, std::string_view name);

}  // namespace numatwin::model
