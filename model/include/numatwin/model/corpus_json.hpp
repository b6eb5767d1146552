// Reading the corpus of measured machines (topologies/corpus/*.json, README.md there) into
// MeasuredMachine: the measurements as the corpus holds them, and the machine's spec sheet in our
// format from a sibling folder (topologies/corpus/specs/<id>.json) when there is one.
//
// Every failure is one InputError naming the file, the JSON pointer and what was expected.
// Figures the model has no prediction for (core-to-core latencies, per-core-count likwid
// scaling, a matrix entry without node numbers) are kept as UnpredictedFigure with the reason.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/measured_machine.hpp"

namespace numatwin::model {

// One corpus file's text; `spec_sheet` is its spec sheet's path (empty: none, and
// `no_spec_reason` says why).
MeasuredMachine parse_corpus_machine(std::string_view json_text, const std::string& source_name);

// Every *.json of `dir` (sorted by name), each with `dir`/specs/<id>.json as its spec sheet when
// that exists. Throws InputError for the first bad file; an empty folder is an error too.
std::vector<MeasuredMachine> load_corpus(const std::filesystem::path& dir);

}  // namespace numatwin::model
