// A pass over an hwloc XML export before hwloc reads it, for what hwloc 2.9's XML reader (Debian
// 12) takes for granted and dies on (SIGSEGV, a failed assertion or a double free) instead of
// refusing the file. It reads the file as that reader does (topology-xml-nolibxml.c): the header
// lines, each <object> tag's attributes up to the first that is not name="value", the type names
// as hwloc_type_sscanf takes them. Issue 39 F: in a 2.x or 3.x file an object without its
// complete_cpuset is dereferenced while its parent's children are sorted
// (hwloc_bitmap_compare_first). fuzz/hwloc_xml_fuzzer found the others: 1.x files, tags hwloc
// stops reading early or reads past, a NUMA node at the root, sets that contradict each other or
// that hwloc_bitmap_sscanf misreads (tests/validate/discovery_test.cpp has each).
#pragma once

#include <string>

namespace numatwin::validate {

// Throws model::InputError naming `file`, the line and the object (type, os_index, id) and what
// is wrong or missing (in the text up to its first NUL byte, all that hwloc reads):
//   - a <topology> tag without its '>';
//   - an <object> tag that hwloc cannot read to its end (an attribute that is not name="value"
//     with a lower-case name, a value that opens right at the tag's '>');
//   - an object of a type with sets (everything but the I/O types and Misc) without cpuset,
//     complete_cpuset, nodeset or complete_nodeset; in a 1.x file (a plain <topology> tag) only
//     the cpusets, and the nodesets too when the file has NUMA nodes, and not on a Group that
//     hwloc drops (one without both cpusets: hwloc 1.7.2 wrote I/O Groups with a cpuset only);
//   - in a file of format 2 or later, a first object that is not the Machine (or System);
//   - a set that is not written as hwloc writes sets (0x and hex digits per 32 bits, joined by
//     ','), a cpuset outside its complete_cpuset or nodeset outside its complete_nodeset, or a
//     set outside the same set of the object it is nested in;
//   - two NUMA nodes with one os_index (the topology names its nodes n<os_index>);
//   - a byte that is not UTF-8 (the export says encoding="UTF-8"; the skeleton's JSON needs it).
// Every hwloc export passes (those of hwloc's own test suite, 1.x and 2.x, were tried), so a
// file that fails was edited or is damaged.
void check_hwloc_xml_sets(const std::string& xml_text, const std::string& file);

}  // namespace numatwin::validate
