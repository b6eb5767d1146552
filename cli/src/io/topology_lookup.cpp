#include "io/topology_lookup.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "numatwin/model/topology_json.hpp"

namespace numatwin::cli {

std::filesystem::path topology_dir() {
  if (const char* dir = std::getenv("NUMATWIN_TOPOLOGY_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  return NUMATWIN_TOPOLOGY_DIR;
}

std::vector<std::filesystem::path> bundled_topology_files() {
  const std::filesystem::path dir = topology_dir();
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    throw std::runtime_error("topology folder " + dir.string() +
                             " does not exist (set NUMATWIN_TOPOLOGY_DIR to the folder of bundled machines)");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.stem() < b.stem(); });
  return files;
}

model::Topology find_topology(const std::string& name_or_path) {
  std::error_code error;
  if (std::filesystem::is_regular_file(name_or_path, error)) return model::load_topology(name_or_path);
  const std::filesystem::path bundled = topology_dir() / (name_or_path + ".json");
  if (name_or_path.find('/') == std::string::npos && std::filesystem::is_regular_file(bundled, error)) {
    return model::load_topology(bundled);
  }
  std::string names;
  for (const auto& file : bundled_topology_files()) {
    names += names.empty() ? "" : ", ";
    names += file.stem().string();
  }
  throw std::runtime_error("no topology file or bundled machine named \"" + name_or_path +
                           "\"; bundled machines: " + names);
}

}  // namespace numatwin::cli
