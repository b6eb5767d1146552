// Reading the published-figures data (tests/published/*.json, format in docs/published-checks.md)
// into plain sim::PublishedEntry structs. Every field is checked: a bad one throws
// model::InputError(file, JSON pointer, what was expected); unknown fields are errors too. Runs
// are written in the CLI's vocabulary (the option names of predict, without the dashes) and are
// planned once here, so a spec the planner rejects is named by its pointer before anything runs.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/published/published_check.hpp"

namespace numatwin::cli {

struct PublishedData {
  std::vector<std::filesystem::path> files;  // read, in name order
  std::vector<model::Topology> topologies;   // every machine the runs name, once
  std::vector<std::string> topology_names;
  std::vector<sim::PublishedEntry> entries;  // file by file, in file order
};

// Reads every *.json file directly in `dir` (sorted by name). Entry ids must be unique over all
// files. Throws model::InputError for bad data, std::runtime_error for a missing folder.
PublishedData load_published(const std::filesystem::path& dir);
// The entries of one published-figures file's text (`file` names it in errors and is the one
// entry of PublishedData::files). Throws model::InputError for bad data.
PublishedData parse_published(std::string_view text, const std::filesystem::path& file);

}  // namespace numatwin::cli
