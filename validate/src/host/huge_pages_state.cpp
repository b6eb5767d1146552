#include "numatwin/validate/host/huge_pages_state.hpp"

#include <fstream>

namespace numatwin::validate {

std::string bracketed_choice(const std::string& line) {
  const std::size_t open = line.find('[');
  const std::size_t close = open == std::string::npos ? std::string::npos : line.find(']', open);
  if (close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

TransparentHugePages read_transparent_huge_pages(const std::string& directory) {
  TransparentHugePages out;
  auto read = [&out](const std::string& path, std::string& into) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) {
      out.why += (out.why.empty() ? "" : "; ") + path + " is not readable";
      return;
    }
    into = bracketed_choice(line);
    if (into.empty()) out.why += (out.why.empty() ? "" : "; ") + path + ": no bracketed choice in \"" + line + "\"";
  };
  read(directory + "/enabled", out.enabled);
  read(directory + "/defrag", out.defrag);
  return out;
}

model::HugePages effective_huge_pages(model::HugePages requested, const std::string& enabled) {
  if (requested == model::HugePages::kOff || enabled == "never") return model::HugePages::kOff;
  if (enabled == "always") return model::HugePages::kOn;
  if (enabled == "madvise") return model::HugePages::kMadvise;
  return requested;
}

}  // namespace numatwin::validate
