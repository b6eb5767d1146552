// Reading adaptive scenarios (scenarios/*.json, format in docs/adaptive.md, schema in
// scenarios/schema/scenario.schema.json). Every field is checked; a bad one throws
// model::InputError(file, JSON pointer, what was expected). Unknown fields are errors too, so a
// typo never silently falls back to a default.
#pragma once

#include <filesystem>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::cli {

// `sockets`: how many sockets (nodes with cores and memory) the machine has; table sockets
// must be below it.
sim::AdaptiveScenario load_adaptive_scenario(const std::filesystem::path& path, int sockets);

}  // namespace numatwin::cli
