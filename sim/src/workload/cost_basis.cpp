#include "numatwin/sim/workload/cost_basis.hpp"

#include <map>
#include <stdexcept>
#include <string>

namespace numatwin::sim {
namespace {

template <typename Costs>
auto* field_of(Costs& c, std::string_view name) {
  if (name == "scan_cycles_per_tuple") return &c.scan_cycles_per_tuple;
  if (name == "hash_cycles_per_tuple") return &c.hash_cycles_per_tuple;
  if (name == "join_cycles_per_tuple") return &c.join_cycles_per_tuple;
  if (name == "group_cycles_per_tuple") return &c.group_cycles_per_tuple;
  if (name == "random_lines_in_flight") return &c.random_lines_in_flight;
  if (name == "llc_hit_ns") return &c.llc_hit_ns;
  if (name == "private_hit_ns") return &c.private_hit_ns;
  if (name == "merge_cycles_per_tuple") return &c.merge_cycles_per_tuple;
  if (name == "partition_cycles_per_tuple") return &c.partition_cycles_per_tuple;
  if (name == "partition_join_cycles_per_tuple") return &c.partition_join_cycles_per_tuple;
  if (name == "index_cycles_per_level") return &c.index_cycles_per_level;
  if (name == "sort_cycles_per_comparison") return &c.sort_cycles_per_comparison;
  if (name == "select_cycles_per_value") return &c.select_cycles_per_value;
  if (name == "shared_line_transfer_ns") return &c.shared_line_transfer_ns;
  if (name == "atomic_update_ns") return &c.atomic_update_ns;
  if (name == "llc_usable_share") return &c.llc_usable_share;
  if (name == "filter_cycles_per_cell") return &c.filter_cycles_per_cell;
  if (name == "table_stream_share") return &c.table_stream_share;
  if (name == "filter_stream_share") return &c.filter_stream_share;
  throw std::invalid_argument("unknown operator cost " + std::string(name));
}

}  // namespace

const BasisCost& CostBasis::at(std::string_view name) const {
  for (const BasisCost& c : costs) {
    if (c.name == name) return c;
  }
  throw std::invalid_argument("unknown operator cost " + std::string(name));
}

BasisCost& CostBasis::at(std::string_view name) {
  return const_cast<BasisCost&>(static_cast<const CostBasis&>(*this).at(name));
}

CostBasis machine_cost_basis(const model::Topology& topology) {
  CostBasis basis;
  for (const model::OperatorCostInfo& info : model::operator_cost_table()) {
    basis.costs.push_back(BasisCost{std::string(info.name), model::cost_or_default(topology.operator_costs, info.name), false});
  }
  return basis;
}

double& cost_field(OperatorCosts& costs, std::string_view name) { return *field_of(costs, name); }
double cost_field(const OperatorCosts& costs, std::string_view name) { return *field_of(costs, name); }

OperatorCosts operator_costs_of(const CostBasis& basis, const OperatorCosts& base) {
  OperatorCosts out = base;
  for (const BasisCost& c : basis.costs) cost_field(out, c.name) = c.cost.value;
  return out;
}

std::string cost_basis_summary(const CostBasis& basis, const std::vector<std::string>& names) {
  if (names.empty()) return "costs: none of the operator costs matters here";
  std::map<std::string, std::vector<std::string>> by_origin;
  for (const std::string& name : names) {
    const BasisCost& c = basis.at(name);
    by_origin[c.given ? "given" : model::cost_origin_name(c.cost.origin)].push_back(name);
  }
  std::string out = "costs:";
  bool first = true;
  for (const char* origin : {"measured", "calibrated", "transferred", "derived", "given", "default"}) {
    auto it = by_origin.find(origin);
    if (it == by_origin.end()) continue;
    out += std::string(first ? " " : ", ") + std::to_string(it->second.size()) + " " + origin;
    first = false;
    if (std::string(origin) == "default") {
      out += " (";
      for (std::size_t i = 0; i < it->second.size(); ++i) out += (i ? ", " : "") + it->second[i];
      out += ": calibrated nowhere)";
    }
    if (std::string(origin) == "derived") out += " (from the core's microarchitecture: an analyser's loop cycles, not measured)";
  }
  return out;
}

std::string allocator_cost_basis(const WorkloadSpec& spec) {
  if (spec.allocation == Allocation::kPreallocated) return "";
  if (!spec.allocator_costs || spec.allocator_costs->points.empty())
    return "allocator costs: " + spec.allocator +
           ": default (calibrated nowhere: the topology has no /allocator_costs entry for it; `numatwin validate "
           "allocbench --calibrate` measures it)";
  const model::AllocatorCosts& a = *spec.allocator_costs;
  return "allocator costs: " + spec.allocator + ", measured on " + a.host + " at " + a.measured_at +
         (a.layout.empty() ? " (no layout figures: reallocs and frees at their in-order cost, dependent misses one at a time)" : "");
}

std::string allocator_cost_basis(const WorkloadSpec& spec, const model::Topology& topology) {
  std::string out = allocator_cost_basis(spec);
  if (out.empty()) return out;
  if (topology.dependent_misses) {
    const model::DependentMissGrid& g = *topology.dependent_misses;
    return out + "; dependent misses: the grid measured on " + g.host + " at " + g.measured_at + " (/dependent_misses)";
  }
  return out + "; dependent misses: no grid (/dependent_misses absent: " +
         (spec.allocator_costs && !spec.allocator_costs->layout.empty() ? "the allocator's layout figure" : "one miss at a time") +
         ", whatever the work around them)";
}

}  // namespace numatwin::sim
