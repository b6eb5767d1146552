// The second phase of a two-phase scan (adaptive_query_plan.hpp): after the memory-intensive
// index-vector scan (the main stage), the sigma x r_i matching rows of part i are materialised,
// each through one random access to the part's own dictionary (one line, local), a CPU-intensive
// task class. Large results run in parallel:
//   part i: m_i = sigma x r_i values, m_i x L bytes, max(1, ceil(m_i L / task_bytes)) tasks
//   following the part. A selectivity of 0 has no second phase.
// The two phases have their own task classes, so adaptive stealing can allow one and deny the
// other.
#include "adaptive_query_plan_parts.hpp"

namespace numatwin::sim::adaptive_plan {

void add_materialisation(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                         const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                         std::vector<PlannedTask>& out) {
  for (const PlanPart& p : parts) {
    const double bytes = type.selectivity * p.bytes / table.row_bytes * sc.mechanisms.line_bytes;
    if (!(bytes > 0.0)) continue;
    const int tasks = chunks_of(bytes, sc.task_bytes);
    for (int k = 0; k < tasks; ++k) {
      out.push_back(PlannedTask{AdaptivePhase::kMaterialise,
                                class_of(type, AdaptivePhase::kMaterialise), p.part, p.socket, -1,
                                bytes / tasks});
    }
  }
}

}  // namespace numatwin::sim::adaptive_plan
