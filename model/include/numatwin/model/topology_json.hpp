// Reading and writing topology files (format: docs/topology-format.md, schema:
// topologies/schema/topology.schema.json). Every rule violation throws one InputError.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// Parses and checks a whole document. `source_name` is used in error messages (a path or
// "<generated>"). Throws InputError on any violation; never crashes on any input text.
Topology parse_topology(std::string_view json_text, const std::string& source_name);

// Reads a file and parses it. Throws InputError (also when the file cannot be read).
Topology load_topology(const std::filesystem::path& path);

// The canonical JSON text of a topology (2-space indent, trailing newline). Re-parsing it
// gives an equal Topology.
std::string topology_to_json_text(const Topology& topology);

// Writes atomically: a temporary file beside `path`, then rename. Throws std::runtime_error
// naming the path when it cannot be written.
void save_topology(const Topology& topology, const std::filesystem::path& path);

}  // namespace numatwin::model
