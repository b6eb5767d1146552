// Semantic checks of a topology beyond field types: ids, link ends, graph connectivity,
// explicit routes. Used by the loader and by the generators, so both obey the same rules.
#pragma once

#include <string>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// Throws InputError(source_name, pointer, expectation) for the first violation, where the
// pointer addresses the offending element in the file form (/nodes/3/id, /links/5, ...).
void check_topology(const Topology& topology, const std::string& source_name);

// The id rules alone (non-empty, unique), which the loader needs before it resolves links.
void check_node_ids(const Topology& topology, const std::string& source_name);

}  // namespace numatwin::model
