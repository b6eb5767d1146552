#include "numatwin/model/cost_transfer.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string_view>

namespace numatwin::model {
namespace {

const Node& first_with_cores(const Topology& t, const char* which) {
  for (const Node& n : t.nodes) {
    if (n.has_cores()) return n;
  }
  throw std::invalid_argument(std::string("cost transfer: the ") + which + " machine " + t.name + " has no node with cores");
}

bool is_cycles(std::string_view name) {
  return name.ends_with("_cycles_per_tuple") || name == "sort_cycles_per_comparison" || name == "select_cycles_per_value" ||
         name == "filter_cycles_per_cell";
}

std::string number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

}  // namespace

Topology transfer_operator_costs(const Topology& source, const Topology& target) {
  const Node& s = first_with_cores(source, "source");
  const Node& t = first_with_cores(target, "target");
  const double clock = s.frequency_ghz / t.frequency_ghz;
  Topology out = target;
  out.operator_costs.clear();
  for (const NamedCost& c : source.operator_costs) {
    if (c.cost.origin == CostOrigin::kDefault) continue;
    const OperatorCostInfo* info = find_operator_cost(c.name);
    if (info == nullptr) continue;  // a loaded topology has only known names
    // The usable LLC share belongs to the source's cache and its other tenants (a VM's
    // neighbours): nothing of it carries over; the target keeps its default.
    if (c.name == "llc_usable_share") continue;
    CostValue v = c.cost;
    std::string how;
    if (is_cycles(c.name)) {
      how = "the same cycles at " + number(t.frequency_ghz) + " GHz";
    } else if (c.name == "table_stream_share" || c.name == "filter_stream_share") {
      how = "the same share of the target's " + std::to_string(t.miss_buffers_per_core) + " miss buffers per core";
    } else if (c.name == "random_lines_in_flight") {
      const double cap = std::max(info->smallest, static_cast<double>(t.miss_buffers_per_core));
      v.value = std::min(v.value, cap);
      v.low = std::min(v.low, cap);
      v.high = std::min(v.high, cap);
      how = "capped at the target's " + std::to_string(t.miss_buffers_per_core) + " miss buffers per core";
    } else {
      v.value *= clock;
      v.low *= clock;
      v.high *= clock;
      how = "the same core cycles: x " + number(s.frequency_ghz) + " / " + number(t.frequency_ghz) + " GHz";
    }
    v.low = std::max(info->smallest, v.low / kTransferWidening);
    v.high = std::min(v.high * kTransferWidening, info->largest);  // a share stays <= 1
    if (c.name == "random_lines_in_flight") v.high = std::min(v.high, std::max(v.value, static_cast<double>(t.miss_buffers_per_core)));
    v.origin = CostOrigin::kTransferred;
    v.source = "transferred from " + source.name + " (" + cost_origin_name(c.cost.origin) + ": " + c.cost.source + "): " + how +
               "; range widened x/" + number(kTransferWidening) + " (model/cost_transfer.hpp)";
    out.operator_costs.push_back(NamedCost{c.name, v});
  }
  if (out.operator_costs.empty()) {
    throw std::invalid_argument("cost transfer: " + source.name + " has no operator cost that is not a default; measure it first "
                                "(numatwin validate measure)");
  }
  return out;
}

}  // namespace numatwin::model
