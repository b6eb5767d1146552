#include "numatwin/sim/workload/thread_placement.hpp"

#include <algorithm>
#include <cctype>
#include <random>
#include <set>
#include <stdexcept>

namespace numatwin::sim {
namespace {

// Global core index of each node's first core.
std::vector<int> first_cores(const model::Topology& t) {
  std::vector<int> first;
  int next = 0;
  for (const model::Node& n : t.nodes) {
    first.push_back(next);
    next += n.cores;
  }
  return first;
}

PlacedThread make(const model::Topology& t, const std::vector<int>& first, model::NodeIndex node, int core_in_node,
                  int hardware_thread) {
  PlacedThread p;
  p.node = node;
  p.core = first[node] + core_in_node;
  p.hardware_thread = hardware_thread;
  p.cpu = hardware_thread * t.total_cores() + p.core;
  return p;
}

int max_threads_per_core(const model::Topology& t) {
  int most = 0;
  for (const model::Node& n : t.nodes) most = std::max(most, n.cores > 0 ? n.threads_per_core : 0);
  return most;
}

}  // namespace

std::vector<PlacedThread> place_threads(const model::Topology& t, int threads, const ThreadPlacement& placement) {
  if (threads < 1) throw std::invalid_argument("--threads must be >= 1, got " + std::to_string(threads));
  if (threads > t.total_hardware_threads()) {
    throw std::invalid_argument("--threads " + std::to_string(threads) + " exceeds the " +
                                std::to_string(t.total_hardware_threads()) + " hardware threads of " + t.name);
  }
  const std::vector<int> first = first_cores(t);
  std::vector<PlacedThread> placed;
  switch (placement.kind) {
    case PlacementKind::kRandom:
    case PlacementKind::kNone: {
      std::vector<PlacedThread> slots;
      for (std::size_t n = 0; n < t.nodes.size(); ++n) {
        for (int h = 0; h < t.nodes[n].threads_per_core; ++h) {
          for (int c = 0; c < t.nodes[n].cores; ++c) slots.push_back(make(t, first, static_cast<model::NodeIndex>(n), c, h));
        }
      }
      std::mt19937_64 random(placement.seed);
      std::shuffle(slots.begin(), slots.end(), random);
      placed.assign(slots.begin(), slots.begin() + threads);
      break;
    }
    case PlacementKind::kShared:  // the data decides; without data: dense
    case PlacementKind::kDense:
      for (int h = 0; h < max_threads_per_core(t) && static_cast<int>(placed.size()) < threads; ++h) {
        for (std::size_t n = 0; n < t.nodes.size() && static_cast<int>(placed.size()) < threads; ++n) {
          if (h >= t.nodes[n].threads_per_core) continue;
          for (int c = 0; c < t.nodes[n].cores && static_cast<int>(placed.size()) < threads; ++c) {
            placed.push_back(make(t, first, static_cast<model::NodeIndex>(n), c, h));
          }
        }
      }
      break;
    case PlacementKind::kSparse: {
      std::vector<model::NodeIndex> nodes;
      for (std::size_t n = 0; n < t.nodes.size(); ++n) {
        if (t.nodes[n].has_cores()) nodes.push_back(static_cast<model::NodeIndex>(n));
      }
      std::vector<int> used(t.nodes.size(), 0);
      std::size_t next = 0;
      while (static_cast<int>(placed.size()) < threads) {
        const model::NodeIndex n = nodes[next++ % nodes.size()];
        const model::Node& node = t.nodes[n];
        if (used[n] >= node.hardware_threads()) continue;  // full: the next node takes the thread
        const int slot = used[n]++;
        placed.push_back(make(t, first, n, slot % node.cores, slot / node.cores));
      }
      break;
    }
    case PlacementKind::kExplicit: {
      if (static_cast<int>(placement.cpus.size()) != threads) {
        throw std::invalid_argument("the CPU list names " + std::to_string(placement.cpus.size()) + " CPUs for " +
                                    std::to_string(threads) + " threads; give one CPU per thread");
      }
      std::set<int> seen;
      const int cores = t.total_cores();
      for (int cpu : placement.cpus) {
        if (!seen.insert(cpu).second) throw std::invalid_argument("CPU " + std::to_string(cpu) + " is listed twice");
        const int core = cores > 0 ? cpu % cores : 0;
        const int h = cores > 0 ? cpu / cores : 0;
        model::NodeIndex node = -1;
        for (std::size_t n = 0; n < t.nodes.size(); ++n) {
          if (core >= first[n] && core < first[n] + t.nodes[n].cores) node = static_cast<model::NodeIndex>(n);
        }
        if (cpu < 0 || node < 0 || h >= t.nodes[node].threads_per_core) {
          throw std::invalid_argument("CPU " + std::to_string(cpu) + " does not exist on " + t.name + " (CPUs 0.." +
                                      std::to_string(cores * max_threads_per_core(t) - 1) + ")");
        }
        placed.push_back(make(t, first, node, core - first[node], h));
      }
      break;
    }
  }
  return placed;
}

ThreadPlacement parse_placement(const std::string& text) {
  if (text == "dense") return ThreadPlacement{PlacementKind::kDense, {}};
  if (text == "sparse") return ThreadPlacement{PlacementKind::kSparse, {}};
  if (text == "random") return ThreadPlacement{PlacementKind::kRandom, {}};
  if (text == "none") return ThreadPlacement{PlacementKind::kNone, {}};
  if (text == "shared") return ThreadPlacement{PlacementKind::kShared, {}};
  ThreadPlacement p{PlacementKind::kExplicit, {}};
  std::size_t pos = 0;
  auto number = [&](std::size_t& at) {
    std::size_t end = at;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at || end - at > 7) {
      throw std::invalid_argument("placement \"" + text + "\": expected dense, sparse, random, none, shared or a CPU list like 0,2,4-7");
    }
    const int value = std::stoi(text.substr(at, end - at));
    at = end;
    return value;
  };
  while (pos < text.size()) {
    const int a = number(pos);
    int b = a;
    if (pos < text.size() && text[pos] == '-') {
      ++pos;
      b = number(pos);
      if (b < a) throw std::invalid_argument("placement \"" + text + "\": range " + std::to_string(a) + "-" + std::to_string(b) + " runs backwards");
    }
    if (b - a > (1 << 16) || p.cpus.size() > (1u << 16)) throw std::invalid_argument("placement \"" + text + "\": too many CPUs");
    for (int cpu = a; cpu <= b; ++cpu) p.cpus.push_back(cpu);
    if (pos < text.size()) {
      if (text[pos] != ',') throw std::invalid_argument("placement \"" + text + "\": expected dense, sparse, random, none, shared or a CPU list like 0,2,4-7");
      ++pos;
      if (pos == text.size()) throw std::invalid_argument("placement \"" + text + "\": trailing comma");
    }
  }
  if (p.cpus.empty()) throw std::invalid_argument("placement: expected dense, sparse, random, none, shared or a CPU list like 0,2,4-7");
  return p;
}

std::string placement_name(const ThreadPlacement& placement) {
  switch (placement.kind) {
    case PlacementKind::kDense: return "dense";
    case PlacementKind::kSparse: return "sparse";
    case PlacementKind::kRandom: return "random";
    case PlacementKind::kNone: return "none";
    case PlacementKind::kShared: return "shared";
    case PlacementKind::kExplicit: break;
  }
  std::string out;
  for (int cpu : placement.cpus) out += (out.empty() ? "" : ",") + std::to_string(cpu);
  return out;
}

}  // namespace numatwin::sim
