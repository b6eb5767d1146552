// `numatwin validate selfcheck`: checks, on the machine it runs on (real or an emulated NUMA
// guest), that discovery and page/thread placement behave as the measurements assume:
//   - discovery sees the expected nodes, SLIT matrix and (optionally) link graph;
//   - mbind bind and preferred put 100 % of a buffer's pages on each node (move_pages query);
//   - interleave over all memory nodes puts every page on one of them, consecutive pages on
//     consecutive nodes, each node within one page of an even share;
//   - move_pages migrates every page of a buffer to another node and keeps its contents;
//   - a thread pinned (hwloc) to each CPU of each node runs there, and its first touch with the
//     default policy lands on its node.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace numatwin::validate {

struct SelfCheck {
  std::string name;
  bool passed = false;
  std::string detail;
};

struct SelfCheckOptions {
  std::optional<std::vector<std::vector<int>>> expected_distances;  // SLIT, row per node
  std::optional<std::vector<std::pair<int, int>>> expected_links;   // undirected, node indices
  std::size_t pages_per_buffer = 256;
};

std::vector<SelfCheck> run_placement_selfcheck(const SelfCheckOptions& options);

// A SLIT matrix file: one row per node, whitespace-separated integers, '#' comments.
// Throws model::InputError(file, "line N", ...) when it is not square.
std::vector<std::vector<int>> read_distance_matrix(const std::string& path);
// "0-1,1-2,..." -> pairs (i < j). Throws std::invalid_argument naming the bad item.
std::vector<std::pair<int, int>> parse_link_list(const std::string& text);

nlohmann::ordered_json to_json(const std::vector<SelfCheck>& checks);

}  // namespace numatwin::validate
