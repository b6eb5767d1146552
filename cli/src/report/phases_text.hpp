// `predict --phases` and `compare --phases`: a run's thread-seconds split into phases (plan.hpp:
// Phase; what each op of a plan counts as), as text tables and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "numatwin/sim/plan/result.hpp"

namespace numatwin::cli {

// One row per phase that took time or moved bytes (beyond the residue of the rates' precision,
// 1e-6 of the run: phases_text.cpp, kResidueShare; the JSON keeps every phase): thread-seconds, share of the run's
// thread-seconds (threads x time), of which core-bound and memory-bound, and GB moved; then, when
// the plan names stages (the whole sort-merge join's four phases), each stage's span of the run.
std::string phases_text(const sim::SimulationResult& result);
nlohmann::ordered_json phases_json(const sim::SimulationResult& result);
// The named stages (SimulationResult::stages): stage, begin_s, end_s, seconds; [] when none.
nlohmann::ordered_json stages_json(const sim::SimulationResult& result);

// Several runs side by side: each run (rows) and its share of thread-seconds in each phase (columns).
std::string phases_by_variant_text(const std::vector<std::string>& variants, const std::vector<sim::SimulationResult>& results);

}  // namespace numatwin::cli
