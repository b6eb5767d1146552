// Stages of a query type (adaptive_query_plan.hpp has the maths): which mechanism runs when, the
// main stage's chunk tasks, and table groups (co-partitioning).
#include "numatwin/sim/adaptive/adaptive_query_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "adaptive_query_plan_parts.hpp"
#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim {

std::string adaptive_query_kind_name(AdaptiveQueryKind kind) {
  switch (kind) {
    case AdaptiveQueryKind::kScan:
      return "scan";
    case AdaptiveQueryKind::kAggregation:
      return "aggregation";
    case AdaptiveQueryKind::kJoin:
      return "join";
  }
  return "?";
}

std::string adaptive_phase_name(AdaptivePhase phase) {
  switch (phase) {
    case AdaptivePhase::kScan:
      return "scan";
    case AdaptivePhase::kMaterialise:
      return "materialise";
    case AdaptivePhase::kDictionary:
      return "dictionary";
    case AdaptivePhase::kMerge:
      return "merge";
    case AdaptivePhase::kMapping:
      return "mapping";
  }
  return "?";
}

namespace adaptive_plan {

int chunks_of(double bytes, double task_bytes) {
  return std::max(1, static_cast<int>(std::ceil(bytes / task_bytes - 1e-9)));
}

int class_of(const AdaptiveQueryType& type, AdaptivePhase phase) {
  return type.class_of_phase[static_cast<int>(phase)];
}

}  // namespace adaptive_plan

bool adaptive_co_partitioned(const AdaptiveScenario& sc, int table, int other,
                             const std::vector<PlanPart>& parts,
                             const std::vector<PlanPart>& other_parts) {
  const std::string& group = sc.tables.at(table).group;
  if (group.empty() || group != sc.tables.at(other).group || parts.size() != other_parts.size())
    return false;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].socket != other_parts[i].socket) return false;
  }
  return true;
}

std::vector<PlannedTask> plan_adaptive_query_stage(const AdaptiveScenario& sc,
                                                   const AdaptiveQueryType& type, int table,
                                                   const std::vector<PlanPart>& parts,
                                                   const std::vector<PlanPart>& other_parts,
                                                   int stage) {
  using namespace adaptive_plan;
  std::vector<PlannedTask> out;
  if (parts.empty()) return out;
  const AdaptiveTable& t = sc.tables.at(table);
  const bool join = type.kind == AdaptiveQueryKind::kJoin;
  if (join && (type.join_table < 0 || other_parts.empty()))
    throw std::invalid_argument("adaptive: a join type without its other table");
  const bool co_partitioned =
      join && adaptive_co_partitioned(sc, table, type.join_table, parts, other_parts);
  const bool global_dictionary =
      parts.size() > 1 &&
      (type.kind == AdaptiveQueryKind::kAggregation || (join && !co_partitioned));
  if (stage == 0) {
    if (global_dictionary) add_dictionary_build(sc, type, t, parts, out);
    if (join && !co_partitioned)
      add_value_id_mapping(sc, type, sc.tables.at(type.join_table), parts, other_parts, out);
  } else if (stage == 1) {
    for (const PlanPart& p : parts) {
      const int chunks = chunks_of(p.bytes, sc.task_bytes);
      for (int k = 0; k < chunks; ++k) {
        out.push_back(PlannedTask{AdaptivePhase::kScan, class_of(type, AdaptivePhase::kScan),
                                  p.part, p.socket, -1, p.bytes / chunks});
      }
    }
    if (global_dictionary) add_dictionary_lookups(sc, type, t, parts, out);
  } else if (stage == 2) {
    if (type.kind == AdaptiveQueryKind::kScan) add_materialisation(sc, type, t, parts, out);
    if (type.kind == AdaptiveQueryKind::kAggregation) add_remote_merges(sc, type, t, parts, out);
    if (join) add_join_results(sc, type, t, co_partitioned, parts, other_parts, out);
  }
  return out;
}

}  // namespace numatwin::sim
