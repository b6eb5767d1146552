#include "numatwin/model/bundled_io.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {

std::filesystem::path bundled_dir(const char* variable, const std::filesystem::path& built_in) {
  if (const char* dir = std::getenv(variable); dir != nullptr && *dir != '\0') return dir;
  return built_in;
}

std::filesystem::path topology_dir() { return bundled_dir("NUMATWIN_TOPOLOGY_DIR", NUMATWIN_TOPOLOGY_DIR); }

std::filesystem::path scenario_dir() { return bundled_dir("NUMATWIN_SCENARIO_DIR", NUMATWIN_SCENARIO_DIR); }

std::vector<std::filesystem::path> bundled_json_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) return files;
  for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
    if (entry.is_regular_file(error) && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.stem() < b.stem(); });
  return files;
}

std::string bundled_names(const std::filesystem::path& dir) {
  std::string names;
  for (const auto& file : bundled_json_files(dir)) names += (names.empty() ? "" : ", ") + file.stem().string();
  return names.empty() ? "none" : names;
}

std::filesystem::path find_bundled_file(const std::string& name_or_path, const std::filesystem::path& dir, std::string_view what) {
  std::error_code error;
  if (std::filesystem::is_regular_file(name_or_path, error)) return name_or_path;
  const std::filesystem::path bundled = dir / (name_or_path + ".json");
  if (name_or_path.find('/') == std::string::npos && std::filesystem::is_regular_file(bundled, error)) return bundled;
  throw std::runtime_error("no " + std::string(what) + " named \"" + name_or_path + "\" (in " + dir.string() + ": " +
                           bundled_names(dir) + ")");
}

Topology find_topology(const std::string& name_or_path, const std::filesystem::path& dir) {
  return load_topology(find_bundled_file(name_or_path, dir, "topology file or bundled machine"));
}

std::filesystem::path find_scenario(const std::string& name_or_path) {
  return find_bundled_file(name_or_path, scenario_dir(), "scenario file or shipped scenario");
}

}  // namespace numatwin::model
