// Test helpers for hand-built adaptive scenarios: a task class by name, and a query type whose
// phases run in the scenario's classes of the same names (adaptive_query_plan.hpp's phases).
#pragma once

#include <string>

#include "numatwin/sim/adaptive/adaptive_engine.hpp"

namespace numatwin::sim::test_support {

// The index of the scenario's task class called `name`, -1 when it has none.
inline int class_index(const AdaptiveScenario& sc, const std::string& name) {
  for (std::size_t i = 0; i < sc.classes.size(); ++i) {
    if (sc.classes[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// A query type of `kind` whose first phase runs in the class named after the kind and every
// other phase in the class named after the phase.
inline AdaptiveQueryType query_type(const AdaptiveScenario& sc, const std::string& name, AdaptiveQueryKind kind) {
  AdaptiveQueryType q;
  q.name = name;
  q.kind = kind;
  q.class_of_phase[0] = class_index(sc, adaptive_query_kind_name(kind));
  for (int ph = 1; ph < kAdaptivePhaseCount; ++ph)
    q.class_of_phase[ph] = class_index(sc, adaptive_phase_name(static_cast<AdaptivePhase>(ph)));
  return q;
}

}  // namespace numatwin::sim::test_support
