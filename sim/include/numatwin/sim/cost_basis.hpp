// What a prediction's operator costs rest on: every cost of the operator model
// (model/operator_costs.hpp lists them) with its value, range and origin — the machine's own
// figure from its topology file (measured, calibrated, transferred) or the model's default —
// and, where the command line set a value, that value instead (origin "given", range the value
// itself: the user asked for exactly that).
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/operator_costs.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload_spec.hpp"

namespace numatwin::sim {

struct BasisCost {
  std::string name;
  model::CostValue cost;
  bool given = false;  // set on the command line: exact, and not the machine's
};

struct CostBasis {
  std::vector<BasisCost> costs;  // every cost, in operator_cost_table() order

  [[nodiscard]] const BasisCost& at(std::string_view name) const;
  BasisCost& at(std::string_view name);
};

// The machine's costs, defaults for those its file does not list.
CostBasis machine_cost_basis(const model::Topology& topology);

// The value of the cost `name` in `costs` (a reference to the field). Throws
// std::invalid_argument for a name operator_cost_table() does not have.
double& cost_field(OperatorCosts& costs, std::string_view name);
double cost_field(const OperatorCosts& costs, std::string_view name);

// The basis's values as the spec's OperatorCosts (entry_bytes kept from `base`).
OperatorCosts operator_costs_of(const CostBasis& basis, const OperatorCosts& base = {});

// Costs the prediction of `spec` depends on: those whose doubling changes the predicted time
// (relative change > 1e-9); `predict_time_s` predicts a spec's time.
template <typename Predict>
std::vector<std::string> costs_depended_on(const WorkloadSpec& spec, Predict&& predict_time_s);

// "costs: 2 measured, 1 given, 4 default (hash_cycles_per_tuple, ...)" for the named costs.
std::string cost_basis_summary(const CostBasis& basis, const std::vector<std::string>& names);

// ── template definitions ──────────────────────────────────────────────────────────────────
template <typename Predict>
std::vector<std::string> costs_depended_on(const WorkloadSpec& spec, Predict&& predict_time_s) {
  const double base = predict_time_s(spec);
  std::vector<std::string> names;
  for (const model::OperatorCostInfo& info : model::operator_cost_table()) {
    WorkloadSpec probe = spec;
    double& field = cost_field(probe.costs, info.name);
    field = field * 2.0 + 1.0;
    const double t = predict_time_s(probe);
    if (std::abs(t - base) > 1e-9 * std::abs(base)) names.emplace_back(info.name);
  }
  return names;
}

}  // namespace numatwin::sim
