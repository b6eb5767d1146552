// The mechanisms a query-type stage is made of (adaptive_query_plan.hpp has the maths; each
// mechanism is one file): private to sim/src.
//     adaptive_query_plan.cpp        stages, chunks of the main stage, table groups
//     adaptive_global_dictionary.cpp the global dictionary: its build and every task's lookups
//     adaptive_remote_merge.cpp      merges of the parts' hash tables into round-robin results
//     adaptive_value_id_mapping.cpp  value-id mapping and result production of joins
//     adaptive_two_phase_scan.cpp    a scan's second phase: materialisation
#pragma once

#include <vector>

#include "numatwin/sim/adaptive/adaptive_query_plan.hpp"
#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim::adaptive_plan {

// max(1, ceil(bytes / task_bytes)).
int chunks_of(double bytes, double task_bytes);

// Phase class of the type.
int class_of(const AdaptiveQueryType& type, AdaptivePhase phase);

// adaptive_global_dictionary.cpp
int dictionary_socket(const std::vector<PlanPart>& parts);
void add_dictionary_build(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                          const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                          std::vector<PlannedTask>& out);
void add_dictionary_lookups(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                            const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                            std::vector<PlannedTask>& out);
// adaptive_remote_merge.cpp
void add_remote_merges(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                       const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                       std::vector<PlannedTask>& out);
// adaptive_value_id_mapping.cpp
void add_value_id_mapping(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                          const AdaptiveTable& other, const std::vector<PlanPart>& parts,
                          const std::vector<PlanPart>& other_parts, std::vector<PlannedTask>& out);
void add_join_results(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                      const AdaptiveTable& table, bool co_partitioned,
                      const std::vector<PlanPart>& parts, const std::vector<PlanPart>& other_parts,
                      std::vector<PlannedTask>& out);
// adaptive_two_phase_scan.cpp
void add_materialisation(const AdaptiveScenario& sc, const AdaptiveQueryType& type,
                         const AdaptiveTable& table, const std::vector<PlanPart>& parts,
                         std::vector<PlannedTask>& out);

}  // namespace numatwin::sim::adaptive_plan
