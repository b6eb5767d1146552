#include "io/scenario_lookup.hpp"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <vector>

namespace numatwin::cli {

std::filesystem::path scenario_dir() {
  if (const char* dir = std::getenv("NUMATWIN_SCENARIO_DIR"); dir != nullptr && *dir != '\0') return dir;
  return NUMATWIN_SCENARIO_DIR;
}

std::filesystem::path find_scenario(const std::string& name_or_path) {
  std::error_code error;
  if (std::filesystem::is_regular_file(name_or_path, error)) return name_or_path;
  const std::filesystem::path dir = scenario_dir();
  const std::filesystem::path shipped = dir / (name_or_path + ".json");
  if (name_or_path.find('/') == std::string::npos && std::filesystem::is_regular_file(shipped, error)) return shipped;
  std::vector<std::string> names;
  if (std::filesystem::is_directory(dir, error)) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.is_regular_file() && entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  throw std::runtime_error("no scenario file or shipped scenario named \"" + name_or_path + "\"; shipped scenarios (" +
                           dir.string() + "): " + (list.empty() ? "none" : list));
}

}  // namespace numatwin::cli
