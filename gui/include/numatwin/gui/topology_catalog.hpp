// Finding machines: the bundled topology folder (NUMATWIN_TOPOLOGY_DIR in the environment, else
// the folder compiled in) and lookup by bundled name or file path, as the CLI does.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::gui {

// The environment's NUMATWIN_TOPOLOGY_DIR when set and non-empty, else the compiled-in folder.
std::filesystem::path topology_dir();

// The *.json files of `dir`, sorted by name; empty when the folder does not exist.
std::vector<std::filesystem::path> bundled_topology_files(const std::filesystem::path& dir);

// A path to a file, or the name of a bundled machine (file name without .json) in `dir`.
// Throws model::InputError for a bad file and std::runtime_error naming the bundled machines
// when nothing matches.
model::Topology find_topology(const std::string& name_or_path, const std::filesystem::path& dir);

}  // namespace numatwin::gui
