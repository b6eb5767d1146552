// Joins over parts (adaptive_query_plan.hpp): value-id mapping and result production.
// A join that is not co-partitioned maps the value ids of every part i of the probe table T to
// those of every part j of the build table U:
//   mapping task (i, j): queued at s_i, reading U's part dictionary d_Uj x v bytes from s_Uj,
//   d_Uj = min(d_U, r_Uj): k_T x k_U tasks, remote when s_i != s_Uj.
// Result production: sigma x r_i result rows per probe part, one build-side line each; a
// co-partitioned join reads them from its partner part (same socket: local), any other join
// visits every part of U (sigma r_i / k_U x L bytes from each s_Uj, queued at s_i).
#include <algorithm>

#include "adaptive_query_plan_parts.hpp"

namespace numatwin::sim::adaptive_plan {

void add_value_id_mapping(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                          const AdaptiveTable& other, const std::vector<PlanPart>& parts,
                          const std::vector<PlanPart>& other_parts, std::vector<PlannedTask>& out) {
  for (const PlanPart& p : parts) {
    for (const PlanPart& u : other_parts) {
      const double bytes =
          std::min(other.distinct_values, u.bytes / other.row_bytes) * sc.mechanisms.value_bytes;
      out.push_back(PlannedTask{AdaptivePhase::kMapping, class_of(type, AdaptivePhase::kMapping),
                                -1, p.socket, u.socket, bytes});
    }
  }
}

void add_join_results(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                      const AdaptiveTable& table, bool co_partitioned,
                      const std::vector<PlanPart>& parts, const std::vector<PlanPart>& other_parts,
                      std::vector<PlannedTask>& out) {
  const int cls = class_of(type, AdaptivePhase::kMaterialise);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const PlanPart& p = parts[i];
    const double result_bytes =
        type.selectivity * p.bytes / table.row_bytes * sc.mechanisms.line_bytes;
    if (!(result_bytes > 0.0)) continue;
    if (co_partitioned) {
      out.push_back(PlannedTask{AdaptivePhase::kMaterialise, cls, -1, p.socket,
                                other_parts[i].socket, result_bytes});
      continue;
    }
    for (const PlanPart& u : other_parts) {
      out.push_back(PlannedTask{AdaptivePhase::kMaterialise, cls, -1, p.socket, u.socket,
                                result_bytes / static_cast<double>(other_parts.size())});
    }
  }
}

}  // namespace numatwin::sim::adaptive_plan
