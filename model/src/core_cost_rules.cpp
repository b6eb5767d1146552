#include "numatwin/model/core_cost_rules.hpp"

#include <cmath>
#include <stdexcept>

#include <cstdio>

namespace numatwin::model {
namespace {

std::string num(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

std::string known_cores(const LoopCycleTable& table) {
  std::string names;
  for (const auto& [name, core] : table.cores) {
    if (core.scheduling_model.empty()) continue;
    names += (names.empty() ? "" : ", ") + name;
  }
  return names;
}

}  // namespace

std::vector<NamedCost> derive_core_costs(const LoopCycleTable& table, const std::string& microarchitecture) {
  const auto it = table.cores.find(microarchitecture);
  if (it == table.cores.end()) {
    throw std::invalid_argument(table.file + ": no microarchitecture \"" + microarchitecture + "\" (the table has cycles for: " +
                                known_cores(table) + ")");
  }
  const AnalysedCore& core = it->second;
  if (core.scheduling_model.empty()) {
    throw std::invalid_argument(table.file + ": \"" + microarchitecture +
                                "\" has no cycles: the analyser has no scheduling model for it, so no rule applies and its machine keeps "
                                "the default costs (the table has cycles for: " + known_cores(table) + ")");
  }
  const std::string analysed = "llvm-mca (" + table.analyser + ") -mcpu=" + microarchitecture + " on the " + core.scheduling_model +
                               (core.borrowed ? " (another core's model: borrowed)" : "");
  const std::string band = "range: the analyser's band x" + num(kAnalyserLow) + "..x" + num(kAnalyserHigh) +
                           " measured on this project's build VM (Emerald Rapids), 2026-11-29";
  const std::string mispredict = num(kMispredictCycles) + " (" + num(kMispredictLowCycles) + ".." + num(kMispredictHighCycles) + ") cycles";
  std::vector<NamedCost> out;
  for (const std::string_view name : kAnalysedLoopCosts) {
    const double a = core.costs.at(std::string(name));
    out.push_back(NamedCost{std::string(name), CostValue{a, kAnalyserLow * a, kAnalyserHigh * a, CostOrigin::kDerived,
                                            "in-core cycles of the kernel's loop: " + analysed + " (" + table.file + "; " + band +
                                                "; model/core_cost_rules.hpp)"}});
  }
  // The index join's inner-level loop (the leaf's match test, a few cycles a tuple, left out).
  const double index = core.costs.at("index_cycles_per_level");
  out.push_back(NamedCost{"index_cycles_per_level",
                          CostValue{index, kAnalyserLow * index, kAnalyserHigh * index, CostOrigin::kDerived,
                                    "in-core cycles of the index join's inner-level loop (a node's search, the child's prefetch): " +
                                        analysed + " (" + table.file + "; " + band + "; model/core_cost_rules.hpp)"}});
  // A comparison of random keys against a pivot mispredicts half the time.
  const double sort = core.costs.at("sort_cycles_per_comparison");
  out.push_back(NamedCost{"sort_cycles_per_comparison",
                          CostValue{sort + 0.5 * kMispredictCycles, kAnalyserLow * sort + 0.5 * kMispredictLowCycles,
                                    kAnalyserHigh * sort + 0.5 * kMispredictHighCycles, CostOrigin::kDerived,
                                    "the partition loop's " + num(sort) + " cycles a comparison (" + analysed +
                                        ") + 1/2 x a misprediction of " + mispredict + " (" + table.file + "; model/core_cost_rules.hpp)"}});
  // MEDIAN's selection: the insertion sort's shift loop exits once per insertion (15 of 16
  // values), nth_element's 2.75 comparisons a value mispredict half the time.
  auto select = [&core](double loop_share, double penalty) {
    return std::sqrt((loop_share * core.select_16 + 15.0 / 16.0 * penalty) *
                     (loop_share * core.select_256 + 0.5 * 2.75 * penalty));
  };
  out.push_back(NamedCost{"select_cycles_per_value",
                          CostValue{select(1.0, kMispredictCycles), select(kAnalyserLow, kMispredictLowCycles),
                                    select(kAnalyserHigh, kMispredictHighCycles), CostOrigin::kDerived,
                                    "geometric mean of groups of 16 (" + num(core.select_16) +
                                        " analysed + 15/16 misprediction) and of 256 (" + num(core.select_256) +
                                        " analysed + 1/2 x 2.75 mispredictions) a value, a misprediction " + mispredict + " (" + analysed +
                                        "; " + table.file + "; model/core_cost_rules.hpp)"}});
  return out;
}

Topology with_derived_core_costs(const Topology& target, const LoopCycleTable& table, const std::string& microarchitecture) {
  const std::vector<NamedCost> derived = derive_core_costs(table, microarchitecture);
  Topology result = target;
  std::vector<NamedCost> kept;
  for (const NamedCost& c : target.operator_costs) {
    bool replaced = c.cost.origin == CostOrigin::kDefault || c.cost.origin == CostOrigin::kDerived;
    bool derivable = false;
    for (const NamedCost& d : derived) derivable = derivable || d.name == c.name;
    if (!(replaced && derivable)) kept.push_back(c);
  }
  for (const NamedCost& d : derived) {
    bool own = false;
    for (const NamedCost& c : kept) own = own || c.name == d.name;
    if (!own) kept.push_back(d);
  }
  result.operator_costs = std::move(kept);
  return result;
}

}  // namespace numatwin::model
