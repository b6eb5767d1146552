// Finding topologies by name or path: a name means <topology dir>/<name>.json among the
// bundled machines; anything that is an existing file is read as a path.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::cli {

// The bundled machines' folder: $NUMATWIN_TOPOLOGY_DIR when set, else the build's default.
std::filesystem::path topology_dir();

// Sorted paths of the bundled *.json files. Throws std::runtime_error if the folder is missing.
std::vector<std::filesystem::path> bundled_topology_files();

// Loads `name_or_path`. Throws model::InputError for bad files and std::runtime_error naming
// the bundled machines when it is neither a file nor a bundled name.
model::Topology find_topology(const std::string& name_or_path);

}  // namespace numatwin::cli
