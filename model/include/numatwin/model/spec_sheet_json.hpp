// Reading spec sheet files (format: docs/spec-sheet.md, schema:
// topologies/schema/spec-sheet.schema.json). Every violation throws one InputError naming the
// file, the JSON pointer and what was expected; an impossible machine (dies whose cores do not
// add up, channels that do not split over the nodes, a device on a socket that does not exist)
// is refused the same way.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "numatwin/model/spec_sheet.hpp"

namespace numatwin::model {

SpecSheet parse_spec_sheet(std::string_view json_text, const std::string& source_name);
SpecSheet load_spec_sheet(const std::filesystem::path& path);

}  // namespace numatwin::model
