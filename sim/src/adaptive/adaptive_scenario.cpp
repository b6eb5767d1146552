#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

#include <stdexcept>

#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

std::vector<AdaptiveTaskClass> default_adaptive_task_classes() {
  const OperatorCosts costs;  // the operators' default inner-loop costs
  const double tuple_bytes = 16.0;
  return {
      AdaptiveTaskClass{"scan", costs.scan_cycles_per_tuple / tuple_bytes, 0.0},
      AdaptiveTaskClass{"aggregation", costs.hash_cycles_per_tuple / tuple_bytes, 0.0},
      AdaptiveTaskClass{"join", 2.0 * costs.hash_cycles_per_tuple / tuple_bytes, 0.0},
  };
}

std::vector<AdaptiveTaskClass> default_adaptive_phase_classes() {
  const OperatorCosts costs;
  const double line_bytes = 64.0;
  const double value_bytes = 8.0;
  const double materialise_cycles_per_value = 200.0;  // a default (docs/adaptive.md)
  return {
      AdaptiveTaskClass{"materialise", materialise_cycles_per_value / line_bytes, costs.random_lines_in_flight},
      AdaptiveTaskClass{"dictionary", costs.merge_cycles_per_tuple / value_bytes, costs.random_lines_in_flight},
      AdaptiveTaskClass{"merge", costs.group_cycles_per_tuple / costs.entry_bytes, costs.random_lines_in_flight},
      AdaptiveTaskClass{"mapping", costs.merge_cycles_per_tuple / value_bytes, 0.0},
  };
}

StealingMode parse_stealing_mode(const std::string& text) {
  if (text == "allow") return StealingMode::kAllow;
  if (text == "deny") return StealingMode::kDeny;
  if (text == "adaptive") return StealingMode::kAdaptive;
  throw std::invalid_argument("stealing must be allow, deny or adaptive, not '" + text + "'");
}

std::string stealing_mode_name(StealingMode mode) {
  switch (mode) {
    case StealingMode::kAllow: return "allow";
    case StealingMode::kDeny: return "deny";
    case StealingMode::kAdaptive: return "adaptive";
  }
  return "?";
}

}  // namespace numatwin::sim
