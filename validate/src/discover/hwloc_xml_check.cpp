#include "numatwin/validate/discover/hwloc_xml_check.hpp"

#include <hwloc.h>
#include <strings.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "numatwin/model/input_error.hpp"

// The file is read as hwloc 2.9's built-in XML reader reads it (hwloc/topology-xml-nolibxml.c and
// topology-xml.c), the one Debian's libhwloc uses (the libxml2 reader is a plugin,
// libhwloc-plugins, which scripts/setup does not install), so that the checks see the objects,
// attributes and types that hwloc sees.

namespace numatwin::validate {
namespace {

using Attributes = std::map<std::string, std::string>;

// What hwloc makes of an object's type attribute.
enum class Kind { kMachine, kGroup, kNumaNode, kWithSets, kWithoutSets, kUnknown };

// As hwloc__xml_import_object: hwloc_type_sscanf (any case, abbreviations such as "NU" for
// NUMANode), then the old names System (the root Machine), Cache, Tile and Module.
Kind kind_of(const std::string& type) {
  hwloc_obj_type_t t = HWLOC_OBJ_TYPE_MAX;
  if (hwloc_type_sscanf(type.c_str(), &t, nullptr, 0) == 0) {
    switch (t) {
      case HWLOC_OBJ_MACHINE:
        return Kind::kMachine;
      case HWLOC_OBJ_GROUP:
        return Kind::kGroup;
      case HWLOC_OBJ_NUMANODE:
        return Kind::kNumaNode;
      case HWLOC_OBJ_BRIDGE:
      case HWLOC_OBJ_PCI_DEVICE:
      case HWLOC_OBJ_OS_DEVICE:
      case HWLOC_OBJ_MISC:
        return Kind::kWithoutSets;  // I/O objects and Misc
      default:
        return Kind::kWithSets;
    }
  }
  if (strcasecmp(type.c_str(), "System") == 0) return Kind::kMachine;
  if (strcasecmp(type.c_str(), "Cache") == 0) return Kind::kWithSets;
  if (strcasecmp(type.c_str(), "Tile") == 0 || strcasecmp(type.c_str(), "Module") == 0)
    return Kind::kGroup;
  return Kind::kUnknown;  // hwloc refuses the object
}

struct Header {
  std::size_t body = 0;     // where the <topology> tag starts
  bool old_format = false;  // format 1.x or 0.9
};

// As hwloc_nolibxml_look_init: the lines that start with "<?xml " or "<!DOCTYPE " are skipped;
// then a plain "<topology>" is format 1.x and "<root>" 0.9, anything else is read as
// <topology version="X.Y"> (2.x or later) or refused.
Header read_header(const std::string& text) {
  Header header;
  std::size_t& at = header.body;
  while (text.compare(at, 6, "<?xml ") == 0 || text.compare(at, 10, "<!DOCTYPE ") == 0) {
    const std::size_t newline = text.find('\n', at);
    if (newline == std::string::npos) return Header{text.size(), false};  // hwloc refuses it
    at = newline + 1;
  }
  header.old_format = text.compare(at, 10, "<topology>") == 0 || text.compare(at, 6, "<root>") == 0;
  return header;
}

int line_of(const std::string& text, std::size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(),
                                         text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

[[noreturn]] void refuse(const std::string& file, const std::string& text, std::size_t at,
                         const std::string& what) {
  throw model::InputError(file, "", "line " + std::to_string(line_of(text, at)) + ": " + what);
}

// The length of the UTF-8 sequence at text[at] (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF), or 0 when it is not one.
std::size_t utf8_length(const std::string& text, std::size_t at) {
  const auto byte = [&](std::size_t i) {
    return at + i < text.size() ? static_cast<unsigned char>(text[at + i]) : 0u;
  };
  const unsigned b0 = byte(0);
  if (b0 < 0x80) return 1;
  const auto continuation = [&](std::size_t i, unsigned lo, unsigned hi) {
    return byte(i) >= lo && byte(i) <= hi;
  };
  if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(1, 0x80, 0xBF) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const unsigned lo = b0 == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = b0 == 0xED ? 0x9F : 0xBF;
    return continuation(1, lo, hi) && continuation(2, 0x80, 0xBF) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const unsigned lo = b0 == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = b0 == 0xF4 ? 0x8F : 0xBF;
    return continuation(1, lo, hi) && continuation(2, 0x80, 0xBF) && continuation(3, 0x80, 0xBF)
               ? 4
               : 0;
  }
  return 0;
}

// The export says encoding="UTF-8", and what hwloc reads from it (a NUMA node's subtype, the CPU
// model, device names) goes into the skeleton's JSON, which nlohmann::json refuses to write with
// a byte that is not UTF-8 (found by fuzz/hwloc_xml_fuzzer: a subtype "\xbdXL").
void check_utf8(const std::string& text, const std::string& file) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = utf8_length(text, at);
    if (length == 0) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(text[at]));
      refuse(file, text, at,
             std::string("a byte that is not UTF-8 (") + byte +
                 "); expected UTF-8 text, as hwloc writes it");
    }
    at += length;
  }
}

// hwloc takes the <topology version="X.Y" of a 2.x file with sscanf, which matches without the
// closing '>' (and with any spaces, or none, before "version"), and then reads on from the '>' it
// looks for: without one it crashes (found by fuzz/hwloc_xml_fuzzer: "<topologyversion=\"1.0").
void check_topology_tag(const std::string& text, const std::string& file, const Header& header) {
  if (header.body >= text.size() || text.find('>', header.body) != std::string::npos) return;
  refuse(file, text, header.body,
         "a <topology> tag that never closes; expected <topology version=\"2.0\"> (or <topology> "
         "in a 1.x file), as hwloc writes "
         "it (hwloc's reader would crash on this file)");
}

// The character an escape at the start of `rest` (after its '&') stands for, and its length
// after the '&'; nullopt for an escape hwloc does not know.
std::optional<std::pair<char, std::size_t>> unescape(std::string_view rest) {
  constexpr std::pair<std::string_view, char> kEscapes[] = {
      {"#10;", '\n'}, {"#13;", '\r'}, {"#9;", '\t'}, {"quot;", '"'},
      {"lt;", '<'},   {"gt;", '>'},   {"amp;", '&'}};
  for (const auto& [escape, c] : kEscapes) {
    if (rest.substr(0, escape.size()) == escape) return std::pair{c, escape.size()};
  }
  return std::nullopt;
}

// The value that starts at tag[at] (after its '="'), as hwloc unescapes it, and where its closing
// '"' is; nullopt when it has an unknown escape or does not end inside the tag.
std::optional<std::pair<std::string, std::size_t>> attribute_value(std::string_view tag,
                                                                   std::size_t at) {
  std::string value;
  for (; at < tag.size() && tag[at] != '"'; ++at) {
    if (tag[at] != '&') {
      value += tag[at];
      continue;
    }
    const auto escape = unescape(tag.substr(at + 1));
    if (!escape) return std::nullopt;
    value += escape->first;
    at += escape->second;
  }
  if (at >= tag.size()) return std::nullopt;
  return std::pair{value, at};
}

// The attributes of a start tag (the text after "<object " up to its '>', without an
// auto-closing '/'), as hwloc__nolibxml_import_next_attr reads them: spaces, tabs and newlines,
// a name of a-z and '_', '="', the value up to '"' with the escapes above. hwloc stops reading
// the tag, without an error, at the first thing that does not fit, and it checks for the tag's
// end only after a value's first character, so a value that opens right at the '>' is read on past
// the tag (both found by fuzz/hwloc_xml_fuzzer; hwloc crashes on what it then misses or reads).
// nullopt for such a tag; every hwloc export reads to its end. A name seen twice keeps its last
// value, as in hwloc.
std::optional<Attributes> hwloc_attributes(std::string_view tag) {
  Attributes out;
  std::size_t at = 0;
  while (true) {
    at = std::min(tag.find_first_not_of(" \t\n", at), tag.size());
    if (at == tag.size()) return out;
    const std::size_t name_end =
        std::min(tag.find_first_not_of("abcdefghijklmnopqrstuvwxyz_", at), tag.size());
    if (tag.substr(name_end, 2) != "=\"") return std::nullopt;
    const auto value = attribute_value(tag, name_end + 2);
    if (!value) return std::nullopt;
    out[std::string(tag.substr(at, name_end - at))] = value->first;  // hwloc keeps the last
    at = value->second + 1;
  }
}

struct ObjectTag {
  std::size_t at = 0;  // where "<object" starts
  Attributes attributes;
  std::optional<std::size_t> parent;  // index of the enclosing <object> tag
};

// The attributes of the <object> tag at text[at] (after "<object"), or nullopt for another tag
// that starts with "<object" or one that hwloc refuses by its form (a tab or a newline after the
// name). Refuses a tag that hwloc cannot read to its end (hwloc_attributes).
std::optional<Attributes> tag_attributes(const std::string& text, std::size_t at,
                                         const std::string& file, bool& self_closing) {
  const std::size_t after = at + 7;
  if (after >= text.size() || (text[after] != ' ' && text[after] != '/' && text[after] != '>'))
    return std::nullopt;
  const std::size_t end = text.find('>', after);
  if (end == std::string::npos) refuse(file, text, at, "an <object> tag that never closes");
  self_closing = text[end - 1] == '/';
  if (text[after] != ' ') return Attributes{};
  const std::size_t tag_end = self_closing ? end - 1 : end;
  auto attributes = hwloc_attributes(std::string_view(text).substr(after + 1, tag_end - after - 1));
  if (!attributes) {
    refuse(file, text, at,
           "an <object> tag that hwloc cannot read to its end; expected name=\"value\" attributes "
           "with lower-case names, as hwloc "
           "writes them (hwloc's reader would stop inside the tag, or read on past it, and crash "
           "on this file)");
  }
  return attributes;
}

// The <object> tags of the file from `body` on, as hwloc reads them, each with the tag it is
// nested in ("</object>" closes the innermost open one).
std::vector<ObjectTag> object_tags(const std::string& text, std::size_t body,
                                   const std::string& file) {
  std::vector<ObjectTag> out;
  std::vector<std::size_t> open;
  for (std::size_t at = text.find('<', body); at != std::string::npos;
       at = text.find('<', at + 1)) {
    if (text.compare(at, 9, "</object>") == 0) {
      if (!open.empty()) open.pop_back();
      continue;
    }
    if (text.compare(at, 7, "<object") != 0) continue;
    bool self_closing = false;
    auto attributes = tag_attributes(text, at, file, self_closing);
    if (!attributes) continue;
    out.push_back(ObjectTag{at, std::move(*attributes),
                            open.empty() ? std::nullopt : std::optional(open.back())});
    if (!self_closing) open.push_back(out.size() - 1);
  }
  return out;
}

std::string object_name(const Attributes& a) {
  std::string name = "object " + (a.count("type") ? a.at("type") : std::string("(no type)"));
  if (a.count("os_index")) name += " os_index=\"" + a.at("os_index") + "\"";
  if (a.count("id")) name += " (id \"" + a.at("id") + "\")";
  return name;
}

void check_sets(const std::string& text, const std::string& file, std::size_t at,
                const Attributes& a, std::initializer_list<const char*> sets,
                const std::string& expected) {
  for (const char* set : sets) {
    if (a.count(set)) continue;
    refuse(file, text, at,
           object_name(a) + " has no " + set + "; expected " + expected +
               ", as hwloc writes them (hwloc's reader would crash on this file)");
  }
}

// A 1.x file: hwloc 1.x wrote no nodesets on a machine without NUMA nodes, and hwloc drops a
// Group without both cpusets (hwloc 1.7.2 wrote I/O Groups with a cpuset only). What hwloc 2.9
// dereferences before its own 1.x checks are the complete cpusets of a NUMA node and its parent,
// and the parent's nodeset when it puts a Group between them.
void check_1x_sets(const std::string& text, const std::string& file, std::size_t at,
                   const Attributes& a, Kind kind, bool numa) {
  const char* expected =
      "cpuset and complete_cpuset on every object but I/O and Misc ones in a 1.x file, and nodeset "
      "and complete_nodeset too when "
      "it has NUMA nodes";
  if (kind == Kind::kGroup && !(a.count("cpuset") && a.count("complete_cpuset"))) return;
  check_sets(text, file, at, a, {"cpuset", "complete_cpuset"}, expected);
  if (numa) check_sets(text, file, at, a, {"nodeset", "complete_nodeset"}, expected);
}

// The os_index hwloc gives an object (strtoul into an unsigned; HWLOC_UNKNOWN_INDEX without one).
unsigned os_index_of(const Attributes& a) {
  const auto it = a.find("os_index");
  return it == a.end() ? HWLOC_UNKNOWN_INDEX
                       : static_cast<unsigned>(std::strtoul(it->second.c_str(), nullptr, 10));
}

// The topology names its nodes n<os_index> (topology_skeleton.hpp): hwloc takes two NUMA nodes
// with one os_index from an edited file, the topology cannot (found by fuzz/hwloc_xml_fuzzer).
void check_numa_indices(const std::string& text, const std::string& file,
                        const std::vector<ObjectTag>& numa) {
  std::map<unsigned, std::size_t> first;
  for (const auto& [at, a, parent] : numa) {
    const auto [it, inserted] = first.emplace(os_index_of(a), at);
    if (inserted) continue;
    refuse(file, text, at,
           "a second NUMA node with os_index " +
               (a.count("os_index") ? a.at("os_index") : std::string("(none)")) +
               " (the first at line " + std::to_string(line_of(text, it->second)) +
               "); expected one NUMA node per os_index");
  }
}

// hwloc reads the first object into the root it made, a Machine: there a missing type leaves it
// one. Elsewhere an object without a type is refused.
Kind kind_of_tag(const Attributes& a, bool root) {
  const auto type = a.find("type");
  if (type == a.end()) return root ? Kind::kMachine : Kind::kUnknown;
  return kind_of(type->second);
}

struct BitmapDeleter {
  void operator()(hwloc_bitmap_t bitmap) const { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;
constexpr std::array<const char*, 4> kSetNames = {"cpuset", "complete_cpuset", "nodeset",
                                                  "complete_nodeset"};
using Sets = std::array<Bitmap, 4>;  // as kSetNames; null where the object has none

// Whether `value` is a set as hwloc writes one: "0x" and up to 8 hex digits per 32-bit chunk,
// chunks joined by ',' (an empty chunk is a zero one), the first possibly "0xf...f" (all the
// bits above). hwloc_bitmap_sscanf, which the import runs on every set, reads past the end of an
// empty value and fails an assertion on one that starts with ',' (found by fuzz/hwloc_xml_fuzzer
// through this check, which parses the sets with it).
bool is_hwloc_set(std::string_view value) {
  if (value.substr(0, 7) == "0xf...f") {
    value.remove_prefix(7);
    if (value.empty()) return true;
    if (value.front() != ',') return false;
    value.remove_prefix(1);
  } else if (value.empty() || value.front() == ',') {
    return false;
  }
  while (true) {
    const std::size_t comma = std::min(value.find(','), value.size());
    const std::string_view chunk = value.substr(0, comma);
    if (!chunk.empty() &&
        !(chunk.size() >= 3 && chunk.size() <= 10 && chunk.substr(0, 2) == "0x" &&
          chunk.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string_view::npos)) {
      return false;
    }
    if (comma == value.size()) return true;
    value.remove_prefix(comma + 1);
  }
}

// An object's sets as hwloc parses them (hwloc_bitmap_sscanf). Refuses one hwloc does not write.
Sets sets_of(const std::string& text, const std::string& file, const ObjectTag& tag) {
  Sets sets;
  for (std::size_t k = 0; k < kSetNames.size(); ++k) {
    const auto it = tag.attributes.find(kSetNames[k]);
    if (it == tag.attributes.end()) continue;
    if (!is_hwloc_set(it->second)) {
      refuse(file, text, tag.at,
             object_name(tag.attributes) + " has " + kSetNames[k] + "=\"" + it->second +
                 "\"; expected a set as hwloc writes one (0x and up to 8 hex digits per 32 bits, "
                 "joined by ',')");
    }
    sets[k].reset(hwloc_bitmap_alloc());
    if (!sets[k] || hwloc_bitmap_sscanf(sets[k].get(), it->second.c_str()) != 0) {
      refuse(file, text, tag.at,
             object_name(tag.attributes) + " has " + kSetNames[k] + "=\"" + it->second +
                 "\", which hwloc cannot read");
    }
  }
  return sets;
}

bool within(const Bitmap& inner, const Bitmap& outer) {
  return !inner || !outer || hwloc_bitmap_isincluded(inner.get(), outer.get()) != 0;
}

// The object tags[i] is nested in for hwloc: a NUMA node's children (in a 1.x file) go to the
// NUMA node's parent.
std::optional<std::size_t> parent_of(const std::vector<ObjectTag>& tags, std::size_t i) {
  std::optional<std::size_t> parent = tags[i].parent;
  while (parent && kind_of_tag(tags[*parent].attributes, false) == Kind::kNumaNode)
    parent = tags[*parent].parent;
  return parent;
}

// hwloc takes the sets of a file for granted ("hwloc never generated such buggy XML", a FIXME of
// its reader) and crashes on some that contradict each other (found by fuzz/hwloc_xml_fuzzer): so
// each object's cpuset must lie within its complete_cpuset and its nodeset within its
// complete_nodeset, and each of its sets within the same set of the object it is nested in.
void check_set_consistency(const std::string& text, const std::string& file,
                           const std::vector<ObjectTag>& tags) {
  std::vector<Sets> sets;
  for (const ObjectTag& tag : tags) sets.push_back(sets_of(text, file, tag));
  for (std::size_t i = 0; i < tags.size(); ++i) {
    const std::string name = object_name(tags[i].attributes);
    for (std::size_t k : {0u, 2u}) {
      if (within(sets[i][k], sets[i][k + 1])) continue;
      refuse(file, text, tags[i].at,
             name + ": its " + kSetNames[k] + " is not within its " + kSetNames[k + 1] +
                 "; expected consistent sets, as hwloc writes them " +
                 "(hwloc's reader would crash on this file)");
    }
    const std::optional<std::size_t> parent = parent_of(tags, i);
    if (!parent) continue;
    for (std::size_t k = 0; k < kSetNames.size(); ++k) {
      if (within(sets[i][k], sets[*parent][k])) continue;
      refuse(file, text, tags[i].at,
             name + ": its " + kSetNames[k] + " is not within the " + kSetNames[k] +
                 " of the object it is in (line " +
                 std::to_string(line_of(text, tags[*parent].at)) +
                 "); expected consistent sets, as hwloc writes them (hwloc's " +
                 "reader would crash on this file)");
    }
  }
}

}  // namespace

void check_hwloc_xml_sets(const std::string& whole_text, const std::string& file) {
  check_utf8(whole_text, file);
  // hwloc reads the text as a C string: up to its first NUL byte.
  const std::string xml_text = whole_text.substr(0, whole_text.find('\0'));
  const Header header = read_header(xml_text);
  check_topology_tag(xml_text, file, header);
  const std::vector<ObjectTag> tags = object_tags(xml_text, header.body, file);
  std::vector<ObjectTag> numa_nodes;
  std::copy_if(tags.begin(), tags.end(), std::back_inserter(numa_nodes), [](const ObjectTag& t) {
    return kind_of_tag(t.attributes, false) == Kind::kNumaNode;
  });
  for (std::size_t i = 0; i < tags.size(); ++i) {
    const auto& [at, a, parent] = tags[i];
    const Kind kind = kind_of_tag(a, i == 0);
    if (kind == Kind::kUnknown || kind == Kind::kWithoutSets)
      continue;  // hwloc refuses the first itself
    if (i == 0 && !header.old_format && kind != Kind::kMachine) {
      refuse(file, xml_text, at,
             "the first " + object_name(a) +
                 " is not the Machine; expected the Machine object at the root, as hwloc writes it "
                 "(hwloc's reader would crash on this file)");
    }
    if (header.old_format) {
      check_1x_sets(xml_text, file, at, a, kind, !numa_nodes.empty());
    } else {
      check_sets(xml_text, file, at, a,
                 {"cpuset", "complete_cpuset", "nodeset", "complete_nodeset"},
                 "cpuset, complete_cpuset, nodeset and complete_nodeset on every object but I/O "
                 "and Misc ones");
    }
  }
  check_set_consistency(xml_text, file, tags);
  check_numa_indices(xml_text, file, numa_nodes);
}

}  // namespace numatwin::validate
