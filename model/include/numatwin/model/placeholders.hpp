// The figures of a topology that nobody measured: `numatwin validate discover` writes them as
// placeholders and lists their JSON pointers in provenance.notes, which starts with
// "Placeholders (not measured): /a, /b." A pure reading and rewriting of that sentence, so that
// the simulator's reports (which warn about placeholders) need no hardware library.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

// The prefix of provenance.notes that lists placeholders.
inline constexpr const char* kPlaceholderNotePrefix = "Placeholders (not measured): ";

// The placeholders listed in a topology's provenance.notes (empty when none).
std::vector<std::string> placeholders_of(const Topology& topology);
// Rewrites the placeholder sentence of provenance.notes to list exactly `placeholders`.
void set_placeholders(Topology& topology, const std::vector<std::string>& placeholders);

}  // namespace numatwin::model
