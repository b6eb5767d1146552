// The topology file's /dependent_misses (dependent_miss.hpp): reading with errors that carry the
// JSON pointer, and writing it back (model io part: nlohmann_json).
#pragma once

#include <nlohmann/json.hpp>

#include "numatwin/model/dependent_miss.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::model {

// "dependent_misses": {"work_unit_ns": x > 0, "host": "...", "measured_at": "...", "source": "...",
//   "points": [{"items_per_miss": k >= 1, "work_units": w >= 0, "miss_ns": x >= 0}, ...]}: every
// field required, the points a complete grid (every k with every w, none repeated).
DependentMissGrid read_dependent_misses(const JsonReader& r);
nlohmann::ordered_json dependent_misses_json(const DependentMissGrid& grid);

}  // namespace numatwin::model
