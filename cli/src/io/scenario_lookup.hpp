// Finding adaptive scenarios by name or path, as topology_lookup.hpp finds machines: a name means
// <scenario dir>/<name>.json among the shipped scenarios; an existing file is read as a path.
#pragma once

#include <filesystem>
#include <string>

namespace numatwin::cli {

// The shipped scenarios' folder: $NUMATWIN_SCENARIO_DIR when set, else the source tree's scenarios/.
std::filesystem::path scenario_dir();

// The file `name_or_path` names. Throws std::runtime_error naming the shipped scenarios when it
// is neither a file nor a shipped name.
std::filesystem::path find_scenario(const std::string& name_or_path);

}  // namespace numatwin::cli
