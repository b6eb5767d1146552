// The global dictionary of a query over a table with several parts (adaptive_query_plan.hpp):
// every part of a dictionary-encoded column has its own dictionary, so a grouped aggregation (or
// a join that is not co-partitioned) first merges them into one global dictionary, placed on one
// socket D (the socket of the table's first live part: our choice, the study says only "one
// socket"), and every main-stage task then looks its values up there.
//   build:   one task per part i, queued at D, reading d_i x v bytes from s_i, d_i = min(d, r_i)
//   lookups: one task per chunk of part i, following the part, reading min(d, chunk rows) x L
//            bytes from D (one line per distinct value the chunk meets)
#include <algorithm>

#include "adaptive_query_plan_parts.hpp"

namespace numatwin::sim::adaptive_plan {

int dictionary_socket(const std::vector<PlanPart>& parts) { return parts.front().socket; }

void add_dictionary_build(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                          const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                          std::vector<PlannedTask>& out) {
  const int d_socket = dictionary_socket(parts);
  for (const PlanPart& p : parts) {
    const double rows = p.bytes / table.row_bytes;
    const double bytes = std::min(table.distinct_values, rows) * sc.mechanisms.value_bytes;
    out.push_back(PlannedTask{AdaptivePhase::kDictionary,
                              class_of(type, AdaptivePhase::kDictionary), -1, d_socket, p.socket,
                              bytes});
  }
}

void add_dictionary_lookups(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                            const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                            std::vector<PlannedTask>& out) {
  const int d_socket = dictionary_socket(parts);
  for (const PlanPart& p : parts) {
    const int chunks = chunks_of(p.bytes, sc.task_bytes);
    const double chunk_rows = p.bytes / chunks / table.row_bytes;
    const double bytes = std::min(table.distinct_values, chunk_rows) * sc.mechanisms.line_bytes;
    for (int k = 0; k < chunks; ++k) {
      out.push_back(PlannedTask{AdaptivePhase::kDictionary,
                                class_of(type, AdaptivePhase::kDictionary), p.part, p.socket,
                                d_socket, bytes});
    }
  }
}

}  // namespace numatwin::sim::adaptive_plan
