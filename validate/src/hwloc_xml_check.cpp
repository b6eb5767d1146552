#include "numatwin/validate/hwloc_xml_check.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <string_view>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

// The types hwloc keeps without sets (I/O objects and Misc).
bool has_no_sets(const std::string& type) { return type == "Bridge" || type == "PCIDev" || type == "OSDev" || type == "Misc"; }

// The major version of <topology version="X.Y">, or 1 without the attribute (1.x exports).
int format_major(const std::string& text) {
  static const std::regex version(R"(<topology\s+version="([0-9]+)\.)");
  std::smatch match;
  if (!std::regex_search(text, match, version)) return 1;
  return std::stoi(match[1].str());
}

int line_of(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

// The attributes of the start tag text[begin, end).
std::map<std::string, std::string> attributes(const std::string& text, std::size_t begin, std::size_t end) {
  static const std::regex attribute(R"re(([A-Za-z_][A-Za-z0-9_:.-]*)\s*=\s*"([^"]*)")re");
  std::map<std::string, std::string> out;
  for (auto it = std::sregex_iterator(text.begin() + static_cast<std::ptrdiff_t>(begin),
                                      text.begin() + static_cast<std::ptrdiff_t>(end), attribute);
       it != std::sregex_iterator(); ++it) {
    out.emplace((*it)[1].str(), (*it)[2].str());
  }
  return out;
}

std::string object_name(const std::map<std::string, std::string>& a) {
  std::string name = "object " + (a.count("type") ? a.at("type") : std::string("(no type)"));
  if (a.count("os_index")) name += " os_index=\"" + a.at("os_index") + "\"";
  if (a.count("id")) name += " (id \"" + a.at("id") + "\")";
  return name;
}

}  // namespace

void check_hwloc_xml_sets(const std::string& xml_text, const std::string& file) {
  if (format_major(xml_text) < 2) return;
  constexpr std::string_view kTag = "<object";
  for (std::size_t at = xml_text.find(kTag); at != std::string::npos; at = xml_text.find(kTag, at + 1)) {
    const std::size_t after = at + kTag.size();
    if (after >= xml_text.size() || !(xml_text[after] == ' ' || xml_text[after] == '\t' || xml_text[after] == '\n' ||
                                      xml_text[after] == '\r' || xml_text[after] == '/' || xml_text[after] == '>'))
      continue;  // another tag that starts with "object"
    const std::size_t end = xml_text.find('>', after);
    if (end == std::string::npos) {
      throw model::InputError(file, "", "line " + std::to_string(line_of(xml_text, at)) + ": an <object> tag that never closes");
    }
    const std::map<std::string, std::string> a = attributes(xml_text, after, end);
    const auto type = a.find("type");
    if (type == a.end() || has_no_sets(type->second)) continue;  // hwloc refuses an object without a type itself
    for (const char* set : {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset"}) {
      if (a.count(set)) continue;
      throw model::InputError(file, "",
                              "line " + std::to_string(line_of(xml_text, at)) + ": " + object_name(a) + " has no " + set +
                                  "; expected cpuset, complete_cpuset, nodeset and complete_nodeset on every object but "
                                  "I/O and Misc ones, as hwloc writes them (hwloc's reader would crash on this file)");
    }
  }
}

}  // namespace numatwin::validate
