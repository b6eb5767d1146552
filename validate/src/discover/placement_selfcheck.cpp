#include "numatwin/validate/discover/placement_selfcheck.hpp"

#include <numa.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/discover/link_inference.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/host/memory_placement.hpp"

namespace numatwin::validate {
namespace {

std::string matrix_text(const std::vector<std::vector<int>>& m) {
  std::string out;
  for (const auto& row : m) {
    out += out.empty() ? "" : "; ";
    for (std::size_t j = 0; j < row.size(); ++j) out += (j == 0 ? "" : " ") + std::to_string(row[j]);
  }
  return out;
}

std::string links_text(const std::vector<std::pair<int, int>>& links) {
  std::string out;
  for (const auto& [a, b] : links) out += (out.empty() ? "" : ",") + std::to_string(a) + "-" + std::to_string(b);
  return out.empty() ? "none" : out;
}

}  // namespace

std::vector<std::vector<int>> read_distance_matrix(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw model::InputError(path, "", "cannot read the file");
  std::vector<std::vector<int>> rows;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::vector<int> row;
    std::string word;
    while (words >> word) {
      try {
        std::size_t used = 0;
        row.push_back(std::stoi(word, &used));
        if (used != word.size()) throw std::invalid_argument(word);
      } catch (const std::exception&) {
        throw model::InputError(path, "line " + std::to_string(number), "expected integers, found \"" + word + "\"");
      }
    }
    if (row.empty()) continue;
    if (!rows.empty() && row.size() != rows.front().size()) {
      throw model::InputError(path, "line " + std::to_string(number),
                              "expected " + std::to_string(rows.front().size()) + " values, found " + std::to_string(row.size()));
    }
    rows.push_back(row);
  }
  if (rows.empty() || rows.size() != rows.front().size()) {
    throw model::InputError(path, "", "expected a square matrix, found " + std::to_string(rows.size()) + " rows");
  }
  return rows;
}

std::vector<std::pair<int, int>> parse_link_list(const std::string& text) {
  std::vector<std::pair<int, int>> links;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto dash = item.find('-');
    try {
      if (dash == std::string::npos) throw std::invalid_argument(item);
      const int a = std::stoi(item.substr(0, dash));
      const int b = std::stoi(item.substr(dash + 1));
      if (a < 0 || b < 0 || a == b) throw std::invalid_argument(item);
      links.emplace_back(std::min(a, b), std::max(a, b));
    } catch (const std::exception&) {
      throw std::invalid_argument("expected links as \"0-1,1-2,...\", found \"" + item + "\"");
    }
  }
  std::sort(links.begin(), links.end());
  return links;
}

std::vector<SelfCheck> run_placement_selfcheck(const SelfCheckOptions& options) {
  std::vector<SelfCheck> checks;
  auto check = [&](std::string name, bool passed, std::string detail) {
    checks.push_back(SelfCheck{std::move(name), passed, std::move(detail)});
  };
  if (numa_available() < 0) {
    check("libnuma available", false, "numa_available() < 0: the kernel offers no NUMA API");
    return checks;
  }
  const DiscoveredMachine machine = discover_machine();
  std::vector<int> memory_nodes, cpu_nodes;
  for (const DiscoveredNode& n : machine.nodes) {
    if (n.memory_bytes > 0 && n.memory_allowed) memory_nodes.push_back(n.os_index);
    if (!n.allowed_cpus.empty()) cpu_nodes.push_back(n.os_index);
  }
  check("discovery", !machine.nodes.empty(),
        std::to_string(machine.nodes.size()) + " NUMA node(s), " + std::to_string(memory_nodes.size()) + " with memory, " +
            std::to_string(cpu_nodes.size()) + " with CPUs; SLIT (" + machine.distances_source + "): " +
            matrix_text(machine.distances));
  if (options.expected_distances) {
    check("distance matrix", machine.distances == *options.expected_distances,
          "expected " + matrix_text(*options.expected_distances) + "; discovered " + matrix_text(machine.distances));
  }
  if (options.expected_links) {
    if (machine.distances.empty()) {
      check("link graph", false, "no distance matrix to infer links from");
    } else {
      std::vector<bool> has_cpus;
      for (const auto& node : machine.nodes) has_cpus.push_back(!node.cpus.empty());
      LinkInference inference = infer_links(machine.distances, has_cpus);
      std::vector<std::pair<int, int>> got = inference.links;
      std::sort(got.begin(), got.end());
      check("link graph", inference.consistent && got == *options.expected_links,
            "expected " + links_text(*options.expected_links) + "; inferred " + links_text(got) + " (" +
                inference.explanation + ")");
    }
  }
  const std::size_t bytes = options.pages_per_buffer * page_bytes();

  for (int node : memory_nodes) {
    for (const auto& [policy, name] : {std::pair{MemoryPolicyKind::kBind, "bind"}, std::pair{MemoryPolicyKind::kPreferred, "preferred"}}) {
      try {
        NodeMemory memory(bytes, policy, {node}, false);
        memory.touch();
        const PagePlacement placement = page_placement(memory.data(), memory.bytes());
        check(std::string(name) + " to node " + std::to_string(node), placement.fraction_on(node) == 1.0,
              std::to_string(placement.pages) + " pages: " + placement.text());
      } catch (const std::exception& e) {
        check(std::string(name) + " to node " + std::to_string(node), false, e.what());
      }
    }
  }
  if (!memory_nodes.empty()) {
    try {
      const std::size_t pages = std::max<std::size_t>(options.pages_per_buffer, 4 * memory_nodes.size());
      NodeMemory memory(pages * page_bytes(), MemoryPolicyKind::kInterleave, memory_nodes, false);
      memory.touch();
      const std::vector<int> nodes = page_nodes(memory.data(), memory.bytes());
      bool cycles = true;
      std::map<int, std::size_t> counts;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        ++counts[nodes[i]];
        const auto at = std::find(memory_nodes.begin(), memory_nodes.end(), nodes[i]);
        if (at == memory_nodes.end()) cycles = false;
        if (i > 0 && cycles) {
          const auto previous = std::find(memory_nodes.begin(), memory_nodes.end(), nodes[i - 1]);
          const std::size_t expected = (static_cast<std::size_t>(previous - memory_nodes.begin()) + 1) % memory_nodes.size();
          if (static_cast<std::size_t>(at - memory_nodes.begin()) != expected) cycles = false;
        }
      }
      bool even = counts.size() == memory_nodes.size();
      for (const auto& [node, count] : counts) {
        const double share = static_cast<double>(nodes.size()) / static_cast<double>(memory_nodes.size());
        if (std::abs(static_cast<double>(count) - share) > 1.0) even = false;
      }
      std::string detail = std::to_string(nodes.size()) + " pages:";
      for (const auto& [node, count] : counts) detail += " n" + std::to_string(node) + "=" + std::to_string(count);
      check("interleave over " + std::to_string(memory_nodes.size()) + " node(s)", cycles && even,
            detail + (cycles ? ", consecutive pages on consecutive nodes" : ", NOT cycling through the nodes"));
    } catch (const std::exception& e) {
      check("interleave", false, e.what());
    }
  }
  if (memory_nodes.size() >= 2) {
    for (std::size_t k = 0; k < memory_nodes.size(); ++k) {
      const int from = memory_nodes[k];
      const int to = memory_nodes[(k + 1) % memory_nodes.size()];
      const std::string name = "migrate node " + std::to_string(from) + " -> " + std::to_string(to);
      try {
        NodeMemory memory(bytes, MemoryPolicyKind::kPreferred, {from}, false);
        for (std::size_t i = 0; i < memory.bytes(); ++i) memory.data()[i] = static_cast<std::byte>((i * 7 + 3) & 0xff);
        const bool before = page_placement(memory.data(), memory.bytes()).fraction_on(from) == 1.0;
        const std::size_t moved = move_pages_to(memory.data(), memory.bytes(), to);
        const PagePlacement after = page_placement(memory.data(), memory.bytes());
        bool intact = true;
        for (std::size_t i = 0; i < memory.bytes() && intact; ++i) intact = memory.data()[i] == static_cast<std::byte>((i * 7 + 3) & 0xff);
        check(name, before && moved == after.pages && after.fraction_on(to) == 1.0 && intact,
              std::to_string(moved) + "/" + std::to_string(after.pages) + " pages moved, now " + after.text() +
                  (intact ? ", contents intact" : ", CONTENTS CHANGED"));
      } catch (const std::exception& e) {
        check(name, false, e.what());
      }
    }
  }
  try {
    const ThreadPinner pinner;
    for (int node : cpu_nodes) {
      const std::vector<int> cpus = pinner.node_cpus(node);
      std::string detail;
      bool ok = !cpus.empty();
      for (int cpu : cpus) {
        int ran_on = -1;
        std::string error;
        std::size_t misplaced_pages = 0;
        std::thread thread([&] {
          try {
            pinner.pin_current_thread(cpu);
            ran_on = current_cpu();
            if (std::find(memory_nodes.begin(), memory_nodes.end(), node) != memory_nodes.end()) {
              // First touch with the default (local) policy: an mmap without mbind.
              NodeMemory probe(16 * page_bytes(), MemoryPolicyKind::kLocal, {}, false);
              probe.touch();
              const PagePlacement placement = page_placement(probe.data(), probe.bytes());
              misplaced_pages = placement.pages - (placement.pages_per_node.count(node) != 0 ? placement.pages_per_node.at(node) : 0);
            }
          } catch (const std::exception& e) {
            error = e.what();
          }
        });
        thread.join();
        const bool here = error.empty() && ran_on == cpu && node_of_cpu(ran_on) == node && misplaced_pages == 0;
        ok = ok && here;
        detail += (detail.empty() ? "" : ", ") + std::string("cpu ") + std::to_string(cpu) + (here ? " ok" : " FAILED (ran on " + std::to_string(ran_on) + (error.empty() ? "" : ": " + error) + ")");
      }
      check("threads pinned to node " + std::to_string(node), ok, detail);
    }
  } catch (const std::exception& e) {
    check("thread pinning", false, e.what());
  }
  return checks;
}

nlohmann::ordered_json to_json(const std::vector<SelfCheck>& checks) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const SelfCheck& c : checks) out.push_back({{"name", c.name}, {"passed", c.passed}, {"detail", c.detail}});
  return out;
}

}  // namespace numatwin::validate
