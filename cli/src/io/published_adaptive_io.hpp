// An adaptive engine run in the published-figures data (docs/published-checks.md): a run object
// with a "scenario" (a shipped scenario's name or a path, numatwin/model/bundled_io.hpp) and the options of
// `numatwin adaptive` without the dashes: placer, stealing, seed, duration, parts, table-bytes,
// selectivity. The scenario is read and the overrides applied here, so a bad one is named by its
// JSON pointer before anything runs.
#pragma once

#include "numatwin/model/input_json.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::cli {

// The fields such a run may have besides "topology".
inline constexpr const char* kPublishedAdaptiveRunFields[] = {
    "scenario", "placer", "stealing", "seed", "duration", "parts", "table-bytes", "selectivity"};

// Reads the scenario and overrides of run object `r` for machine `t`; fails at r's pointer.
sim::AdaptiveScenario read_published_adaptive_run(const model::JsonReader& r, const model::Topology& t);

}  // namespace numatwin::cli
