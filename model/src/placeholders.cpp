#include "numatwin/model/placeholders.hpp"

namespace numatwin::model {
namespace {

constexpr const char* kPlaceholderNoteEnd = ".";

std::string join(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : separator) + items[i];
  return out;
}

}  // namespace

std::vector<std::string> placeholders_of(const model::Topology& topology) {
  const std::string& notes = topology.provenance.notes;
  const std::string prefix = kPlaceholderNotePrefix;
  const auto start = notes.find(prefix);
  if (start == std::string::npos) return {};
  const auto begin = start + prefix.size();
  const auto end = notes.find(kPlaceholderNoteEnd, begin);
  const std::string list = notes.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < list.size()) {
    const auto comma = list.find(", ", at);
    const std::string item = list.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 2;
  }
  return out;
}

void set_placeholders(model::Topology& topology, const std::vector<std::string>& placeholders) {
  std::string& notes = topology.provenance.notes;
  const std::string prefix = kPlaceholderNotePrefix;
  const auto start = notes.find(prefix);
  if (start != std::string::npos) {
    auto end = notes.find(kPlaceholderNoteEnd, start + prefix.size());
    end = end == std::string::npos ? notes.size() : end + 1;
    while (end < notes.size() && notes[end] == ' ') ++end;
    notes.erase(start, end - start);
  }
  if (!placeholders.empty()) {
    notes = prefix + join(placeholders, ", ") + kPlaceholderNoteEnd + (notes.empty() ? "" : " " + notes);
  }
}

}  // namespace numatwin::model
