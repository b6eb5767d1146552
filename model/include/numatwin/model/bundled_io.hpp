// Files that ship with numatwin, found by name or by path: the bundled machines (topologies/)
// and the adaptive scenarios (scenarios/). One place for the CLI, the GUI and the Python module.
//
// The folder is the environment variable's value when it is set and not empty (a user's own
// folder, or the installed one), else the folder the caller was built with. A name without '/'
// means <folder>/<name>.json; anything that is an existing file is read as a path first.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// getenv(variable) when set and not empty, else `built_in`.
std::filesystem::path bundled_dir(const char* variable, const std::filesystem::path& built_in);

// The bundled machines: $NUMATWIN_TOPOLOGY_DIR, else the source tree's topologies/ (the build's
// NUMATWIN_TOPOLOGY_DIR). The shipped scenarios: $NUMATWIN_SCENARIO_DIR, else scenarios/.
std::filesystem::path topology_dir();
std::filesystem::path scenario_dir();

// The *.json files of `dir`, sorted by name (the stem); empty when the folder does not exist.
std::vector<std::filesystem::path> bundled_json_files(const std::filesystem::path& dir);

// "a, b, c" (the stems of bundled_json_files(dir)), or "none".
std::string bundled_names(const std::filesystem::path& dir);

// `name_or_path` as an existing file, or <dir>/<name>.json for a name without '/'. Throws
// std::runtime_error naming what was looked for (`what`: "topology file or bundled machine"),
// the folder and every name it holds.
std::filesystem::path find_bundled_file(const std::string& name_or_path, const std::filesystem::path& dir, std::string_view what);

// find_bundled_file(..., "topology file or bundled machine") loaded. Throws model::InputError for
// a bad file as load_topology does.
Topology find_topology(const std::string& name_or_path, const std::filesystem::path& dir = topology_dir());

// find_bundled_file(..., "scenario file or shipped scenario") in scenario_dir().
std::filesystem::path find_scenario(const std::string& name_or_path);

}  // namespace numatwin::model
