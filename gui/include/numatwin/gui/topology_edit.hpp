// What-if edits of a topology: change a link's bandwidth (one direction or both), remove a link,
// add one. The edited topology keeps the invariants the loader produces (a symmetric file entry
// is two consecutive mirrored directed links sharing spec_index; spec_index numbers the entries
// in order), so model::save_topology writes it back in the file's form. Every edit appends a
// line to provenance.notes. None of them checks connectivity: call model::check_topology (or
// check_edited_topology) before simulating or saving.
#pragma once

#include <optional>
#include <string>

#include "numatwin/model/topology.hpp"

namespace numatwin::gui {

// Sets the bandwidth of directed link `link`, and of its reverse too when `both_directions`.
// A symmetric entry edited in one direction only becomes two directed entries.
// Throws std::invalid_argument for a bad index or a bandwidth <= 0.
void set_link_bandwidth(model::Topology& topology, int link, double bandwidth_gbps, bool both_directions);

// Removes directed link `link` (and its reverse when `both_directions`).
void remove_link(model::Topology& topology, int link, bool both_directions);

// Adds a symmetric link a <-> b. Throws std::invalid_argument when a == b, an index is out of
// range, a direction already exists, or the figures are not > 0 / >= 0.
void add_link(model::Topology& topology, int a, int b, double bandwidth_per_direction_gbps, double latency_ns);

// The message of model::check_topology's first complaint, or nullopt when the topology is fine.
std::optional<std::string> check_edited_topology(const model::Topology& topology);

}  // namespace numatwin::gui
