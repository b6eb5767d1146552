// A light pass over an hwloc XML export before hwloc reads it: the objects' sets that hwloc's
// XML reader takes for granted. hwloc 2.9 (Debian 12) checks them only in 1.x files; in a 2.x
// or 3.x file an object without its complete_cpuset, say, is dereferenced while its parent's
// children are sorted (hwloc_topology_load -> hwloc_bitmap_compare_first): the program dies
// with SIGSEGV instead of refusing the file (issue 39 F).
#pragma once

#include <string>

namespace numatwin::validate {

// Throws model::InputError naming `file`, the line and the object (type, os_index, id) and the
// attribute that is missing when an object of a type with sets (everything but the I/O types
// Bridge, PCIDev, OSDev and Misc) lacks cpuset, complete_cpuset, nodeset or complete_nodeset
// in a file of XML format 2 or later (<topology version="2.x"> or "3.x"; a 1.x file, without
// the attribute, is left to hwloc, which checks those itself). Every hwloc 2 export carries all
// four on such objects, so a file that fails was edited or is damaged.
void check_hwloc_xml_sets(const std::string& xml_text, const std::string& file);

}  // namespace numatwin::validate
