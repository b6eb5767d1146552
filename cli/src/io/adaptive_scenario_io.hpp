// Reading adaptive scenarios (scenarios/*.json, format in docs/adaptive.md, schema in
// scenarios/schema/scenario.schema.json). Every field is checked; a bad one throws
// model::InputError(file, JSON pointer, what was expected). Unknown fields are errors too, so a
// typo never silently falls back to a default.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::cli {

// `sockets`: how many sockets (nodes with cores and memory) the machine has; table sockets
// must be below it.
sim::AdaptiveScenario load_adaptive_scenario(const std::filesystem::path& path, int sockets);
// The same for the text of a scenario file; `file` names it in errors.
sim::AdaptiveScenario parse_adaptive_scenario(std::string_view text, const std::string& file, int sockets);

}  // namespace numatwin::cli
