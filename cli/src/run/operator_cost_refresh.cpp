#include "run/operator_cost_refresh.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "numatwin/model/operator_costs.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/measure/machine_measurement.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {
namespace {

// The entry of `costs` (a vector of NamedCost, const or not) named `name`, or nullptr.
template <class Costs>
auto named(Costs& costs, const std::string& name) -> decltype(&costs.front()) {
  const auto found = std::find_if(costs.begin(), costs.end(), [&](const model::NamedCost& n) { return n.name == name; });
  return found == costs.end() ? nullptr : &*found;
}

}  // namespace

std::string host_text() {
  const nlohmann::ordered_json h = validate::host_state();
  return fmt::format("{}; {}; THP {}; numa_balancing {}", h.value("hostname", std::string("?")), h.value("kernel", std::string("?")),
                     h.value("thp_enabled", std::string("?")), h.value("numa_balancing", std::string("?")));
}

model::Topology with_measured_operator_costs(const model::Topology& topology, const std::vector<validate::DerivedCost>& derived,
                                             const std::string& source_prefix) {
  model::Topology out = topology;
  for (const validate::DerivedCost& c : derived) {
    const model::OperatorCostInfo* info = model::find_operator_cost(c.name);
    if (info == nullptr) continue;  // e.g. the shuffle's cycles per element
    // A value raised to its floor keeps its range around it (the file needs low <= value <= high).
    const double value = std::max(c.value, info->smallest);
    const model::NamedCost cost{c.name, model::CostValue{value, std::max(info->smallest, std::min(c.low, value)), std::max(c.high, value),
                                                         model::CostOrigin::kMeasured, source_prefix + ": " + c.derivation}};
    if (model::NamedCost* same = named(out.operator_costs, c.name)) {
      *same = cost;
    } else {
      out.operator_costs.push_back(cost);
    }
  }
  return out;
}

std::string refresh_operator_costs(const std::string& topology_name, const std::string& out, bool quick, const std::atomic<bool>* stop,
                                   const ProgressBar& bar) {
  const model::Topology t = model::find_topology(topology_name);
  const validate::HostMap host = validate::map_this_host(t);
  validate::CostBenchmarkOptions options = validate::cost_benchmark_options(t, host.node_cpus.front(), quick);
  options.stop = stop;
  options.progress = [&bar](int done, int total, const std::string& label) { bar.update(done, total, 0.0, "operator costs: " + label); };
  const validate::CostTimings timings = validate::run_cost_microbenchmarks(options);
  bar.finish();
  if (stop != nullptr && stop->load()) throw std::runtime_error("interrupted while measuring the operator costs; nothing written");
  const double f = validate::cost_frequency_ghz(t);
  const std::vector<validate::DerivedCost> derived = validate::derive_operator_costs(timings, f, validate::cost_miss_buffers(t));
  const model::Topology refreshed = with_measured_operator_costs(
      t, derived, fmt::format("numatwin validate measure --costs-only on {} at {} (CPU {})", host_text(), validate::iso_time_now(), timings.cpu));
  model::save_topology(refreshed, out);
  TextTable table({"cost", "in " + topology_name, "measured now", "now / before"});
  for (const model::NamedCost& c : refreshed.operator_costs) {
    const model::NamedCost* before = named(t.operator_costs, c.name);
    if (before == nullptr) {
      table.add_row({c.name, "-", fmt::format("{:.4g}", c.cost.value), "-"});
    } else if (before->cost.value != c.cost.value) {
      table.add_row({c.name, fmt::format("{:.4g}", before->cost.value), fmt::format("{:.4g}", c.cost.value),
                     before->cost.value > 0.0 ? fmt::format("{:.2f}", c.cost.value / before->cost.value) : "-"});
    }
  }
  return table.render() + fmt::format("topology with the operator costs measured now written to {}\n", out);
}

}  // namespace numatwin::cli
