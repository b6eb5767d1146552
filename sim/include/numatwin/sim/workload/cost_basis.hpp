// What a prediction's operator costs rest on: every cost of the operator model
// (model/operator_costs.hpp lists them) with its value, range and origin — the machine's own
// figure from its topology file (measured, calibrated, transferred) or the model's default —
// and, where the command line set a value, that value instead (origin "given", range the value
// itself: the user asked for exactly that).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/operator_costs.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

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

// "costs: 2 measured, 1 given, 4 default (hash_cycles_per_tuple, ...)" for the named costs.
std::string cost_basis_summary(const CostBasis& basis, const std::vector<std::string>& names);

// What a spec that allocates (allocation per-group or per-bucket) rests on for its allocator's
// costs: "allocator costs: jemalloc, measured on HOST at TIME (SOURCE)" or "allocator costs:
// tbbmalloc: default (calibrated nowhere: ...)"; "" for a preallocated spec.
std::string allocator_cost_basis(const WorkloadSpec& spec);
// The same, and what the dependent misses rest on: the topology's /dependent_misses grid (host,
// time) or, without it, the layout figure or one miss at a time (model/dependent_miss.hpp).
std::string allocator_cost_basis(const WorkloadSpec& spec, const model::Topology& topology);

}  // namespace numatwin::sim
