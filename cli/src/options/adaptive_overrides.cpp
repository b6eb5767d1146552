#include "options/adaptive_overrides.hpp"

#include <cmath>
#include <stdexcept>

namespace numatwin::cli {

void apply_adaptive_overrides(const AdaptiveOverrides& o, sim::AdaptiveScenario& sc) {
  if (o.placer == "on") sc.placer_enabled = true;
  if (o.placer == "off") sc.placer_enabled = false;
  if (!o.placer.empty() && o.placer != "on" && o.placer != "off")
    throw std::invalid_argument("--placer must be on or off");
  if (!o.stealing.empty()) sc.stealing = sim::parse_stealing_mode(o.stealing);
  if (o.seed) sc.seed = *o.seed;
  if (o.duration_s) {
    if (!(*o.duration_s > 0.0) || !std::isfinite(*o.duration_s)) throw std::invalid_argument("--duration must be > 0");
    sc.duration_s = *o.duration_s;
  }
  if (o.table_bytes) {
    if (!(*o.table_bytes > 0.0) || !std::isfinite(*o.table_bytes)) throw std::invalid_argument("--table-bytes must be > 0");
    for (sim::AdaptiveTable& table : sc.tables) table.size_bytes = *o.table_bytes;
  }
  if (o.parts) {
    if (*o.parts < 1 || *o.parts > 64) throw std::invalid_argument("--parts must be from 1 to 64");
    for (sim::AdaptiveTable& table : sc.tables) table.parts = *o.parts;
  }
  if (o.selectivity) {
    if (!(*o.selectivity > 0.0) || !(*o.selectivity <= 1.0)) throw std::invalid_argument("--selectivity must be in (0, 1]");
    bool any = false;
    for (sim::AdaptiveQueryType& type : sc.query_types) {
      if (type.kind == sim::AdaptiveQueryKind::kAggregation) continue;
      type.selectivity = *o.selectivity;
      any = true;
    }
    if (!any) throw std::invalid_argument("--selectivity: the scenario has no scan or join query type");
  }
}

}  // namespace numatwin::cli
