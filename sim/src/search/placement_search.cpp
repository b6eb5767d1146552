#include "numatwin/sim/search/placement_search.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

using model::NodeIndex;

// Everything an automorphism must preserve about a node.
bool same_node(const model::Node& a, const model::Node& b) {
  return a.kind == b.kind && a.cores == b.cores && a.threads_per_core == b.threads_per_core &&
         a.frequency_ghz == b.frequency_ghz && a.caches == b.caches && a.memory_capacity_bytes == b.memory_capacity_bytes &&
         a.memory_read_bandwidth_gbps == b.memory_read_bandwidth_gbps &&
         a.memory_write_bandwidth_gbps == b.memory_write_bandwidth_gbps && a.local_latency_ns == b.local_latency_ns &&
         a.miss_buffers_per_core == b.miss_buffers_per_core && a.forwarding_bandwidth_gbps == b.forwarding_bandwidth_gbps;
}

struct LinkLabel {
  bool present = false;
  double bandwidth_gbps = 0.0;
  double latency_ns = 0.0;
  bool operator==(const LinkLabel&) const = default;
};

class AutomorphismSearch {
 public:
  AutomorphismSearch(const model::Topology& t, const std::vector<NodeIndex>& fixed, int limit)
      : t_(t), n_(static_cast<int>(t.nodes.size())), limit_(limit), labels_(n_ * n_), image_(n_, -1), used_(n_, false) {
    for (const model::Link& l : t.links) labels_[l.from * n_ + l.to] = LinkLabel{true, l.bandwidth_gbps, l.latency_ns};
    fixed_.assign(n_, false);
    for (NodeIndex f : fixed) fixed_[f] = true;
    // Explicit routes are part of the machine: only the identity is safe then.
    if (!t.routes.empty()) limit_ = 1;
  }

  void run() { extend(0); }
  std::vector<std::vector<NodeIndex>> found;
  bool complete = true;

 private:
  [[nodiscard]] LinkLabel label(int a, int b) const { return labels_[a * n_ + b]; }

  void extend(int u) {
    if (static_cast<int>(found.size()) >= limit_) {
      complete = false;
      return;
    }
    if (u == n_) {
      found.push_back(image_);
      return;
    }
    for (int v = 0; v < n_ && complete; ++v) {
      if (used_[v] || (fixed_[u] && v != u) || !same_node(t_.nodes[u], t_.nodes[v])) continue;
      bool fits = true;
      for (int w = 0; w < u && fits; ++w) {
        fits = label(w, u) == label(image_[w], v) && label(u, w) == label(v, image_[w]);
      }
      if (!fits) continue;
      image_[u] = v;
      used_[v] = true;
      extend(u + 1);
      used_[v] = false;
      image_[u] = -1;
    }
  }

  const model::Topology& t_;
  int n_;
  int limit_;
  std::vector<LinkLabel> labels_;
  std::vector<NodeIndex> image_;
  std::vector<bool> used_;
  std::vector<bool> fixed_;
};

// Occupancy patterns of one node by thread count: pattern[j] = cores running j + 1 threads.
std::map<int, std::vector<std::vector<int>>> node_patterns(const model::Node& node) {
  std::map<int, std::vector<std::vector<int>>> by_threads;
  std::vector<int> pattern(static_cast<std::size_t>(node.threads_per_core), 0);
  // Enumerate pattern vectors with sum <= cores.
  auto recurse = [&](auto&& self, int level, int cores_left, int threads) -> void {
    if (level == node.threads_per_core) {
      by_threads[threads].push_back(pattern);
      return;
    }
    for (int k = 0; k <= cores_left; ++k) {
      pattern[level] = k;
      self(self, level + 1, cores_left - k, threads + k * (level + 1));
    }
    pattern[level] = 0;
  };
  if (node.cores > 0) recurse(recurse, 0, node.cores, 0);
  return by_threads;
}

std::vector<int> cpus_of(const model::Topology& t, const Occupancy& occupancy) {
  std::vector<int> cpus;
  const int total_cores = t.total_cores();
  int first = 0;
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    int core = first;
    // Fullest cores first, so that the CPU list reads naturally.
    for (int j = static_cast<int>(occupancy[n].size()) - 1; j >= 0; --j) {
      for (int c = 0; c < occupancy[n][j]; ++c, ++core) {
        for (int h = 0; h <= j; ++h) cpus.push_back(h * total_cores + core);
      }
    }
    first += t.nodes[n].cores;
  }
  return cpus;
}

Occupancy permuted(const Occupancy& occupancy, const std::vector<NodeIndex>& image) {
  Occupancy out(occupancy.size());
  for (std::size_t n = 0; n < occupancy.size(); ++n) out[image[n]] = occupancy[n];
  return out;
}

}  // namespace

std::vector<std::vector<NodeIndex>> machine_automorphisms(const model::Topology& topology, const std::vector<NodeIndex>& fixed,
                                                          int limit, bool& complete) {
  AutomorphismSearch search(topology, fixed, std::max(1, limit));
  search.run();
  complete = search.complete;
  return search.found;
}

std::string occupancy_text(const model::Topology& t, const Occupancy& occupancy) {
  std::string out;
  for (std::size_t n = 0; n < occupancy.size(); ++n) {
    int threads = 0;
    std::string cores;
    for (std::size_t j = 0; j < occupancy[n].size(); ++j) {
      threads += occupancy[n][j] * static_cast<int>(j + 1);
      if (occupancy[n][j] > 0) cores += (cores.empty() ? "" : " + ") + std::to_string(occupancy[n][j]) + "x" + std::to_string(j + 1);
    }
    if (threads == 0) continue;
    out += (out.empty() ? "" : ", ") + t.nodes[n].id + ": " + std::to_string(threads) + " (" + cores + ")";
  }
  return out.empty() ? "-" : out;
}

PlacementSearchResult search_placements(const model::Topology& t, const WorkloadSpec& spec, const PlacementSearchOptions& options) {
  if (spec.threads < 1 || spec.threads > t.total_hardware_threads()) {
    throw std::invalid_argument("--threads must be between 1 and the machine's " + std::to_string(t.total_hardware_threads()) +
                                " hardware threads");
  }
  const int nodes = static_cast<int>(t.nodes.size());
  std::vector<std::map<int, std::vector<std::vector<int>>>> patterns;
  for (const model::Node& node : t.nodes) patterns.push_back(node_patterns(node));

  // count[n][k]: ways for nodes n.. to host k threads (as doubles: the space can be huge).
  const int r = spec.threads;
  std::vector<std::vector<double>> count(nodes + 1, std::vector<double>(r + 1, 0.0));
  count[nodes][0] = 1.0;
  for (int n = nodes - 1; n >= 0; --n) {
    for (int k = 0; k <= r; ++k) {
      double ways = 0.0;
      for (const auto& [threads, list] : patterns[n]) {
        if (threads <= k) ways += static_cast<double>(list.size()) * count[n + 1][k - threads];
      }
      if (t.nodes[n].cores == 0) ways = count[n + 1][k];
      count[n][k] = ways;
    }
  }

  PlacementSearchResult result;
  result.space_size = count[0][r];
  std::vector<NodeIndex> fixed = spec.memory.nodes;
  bool complete = true;
  const auto group = machine_automorphisms(t, fixed, options.max_automorphisms, complete);
  result.symmetry_complete = complete;
  result.automorphisms = static_cast<int>(group.size());

  Simulation simulation(t);
  std::set<Occupancy> seen;
  auto evaluate = [&](const Occupancy& occupancy) -> std::optional<double> {
    Occupancy canonical = occupancy;
    for (const auto& image : group) canonical = std::max(canonical, permuted(occupancy, image));
    if (!seen.insert(canonical).second) return std::nullopt;
    WorkloadSpec s = spec;
    s.placement = ThreadPlacement{PlacementKind::kExplicit, cpus_of(t, canonical)};
    SimulationOptions quiet;
    quiet.record_timeline = false;
    const double time = simulation.run(build_plan(t, s), quiet).time_s;
    result.ranked.push_back(PlacementCandidate{canonical, s.placement.cpus, time});
    ++result.evaluated;
    return time;
  };

  Occupancy current(nodes);
  for (int n = 0; n < nodes; ++n) current[n].assign(static_cast<std::size_t>(std::max(0, t.nodes[n].threads_per_core)), 0);
  if (result.space_size <= options.max_exhaustive) {
    result.exhaustive = true;
    auto recurse = [&](auto&& self, int n, int left) -> void {
      if (n == nodes) {
        if (left == 0) evaluate(current);
        return;
      }
      if (count[n][left] == 0.0) return;
      if (t.nodes[n].cores == 0) {
        self(self, n + 1, left);
        return;
      }
      for (const auto& [threads, list] : patterns[n]) {
        if (threads > left) break;
        for (const std::vector<int>& p : list) {
          current[n] = p;
          self(self, n + 1, left - threads);
        }
      }
      current[n].assign(current[n].size(), 0);
    };
    recurse(recurse, 0, r);
    result.distinct_placements = static_cast<double>(seen.size());
  } else {
    // Random placements (each thread on a random free hardware thread), then local moves of
    // one thread from a core to another core until the caller stops the search.
    std::mt19937_64 random(options.seed);
    auto random_occupancy = [&]() {
      WorkloadSpec s = spec;
      s.placement = ThreadPlacement{PlacementKind::kRandom, {}};
      s.placement.seed = random();
      std::vector<std::vector<int>> per_core(nodes);
      for (int n = 0; n < nodes; ++n) per_core[n].assign(t.nodes[n].cores, 0);
      int first = 0;
      std::vector<int> first_core(nodes);
      for (int n = 0; n < nodes; ++n) {
        first_core[n] = first;
        first += t.nodes[n].cores;
      }
      for (const PlacedThread& p : place_threads(t, spec.threads, s.placement)) ++per_core[p.node][p.core - first_core[p.node]];
      Occupancy occ(nodes);
      for (int n = 0; n < nodes; ++n) {
        occ[n].assign(static_cast<std::size_t>(std::max(0, t.nodes[n].threads_per_core)), 0);
        for (int k : per_core[n]) {
          if (k > 0) ++occ[n][k - 1];
        }
      }
      return occ;
    };
    std::optional<std::pair<double, Occupancy>> best;
    long long attempts = 0;
    while (!options.stop(result.evaluated) && ++attempts < 1000000) {
      Occupancy candidate;
      if (!best || result.evaluated % 4 == 0) {
        candidate = random_occupancy();
      } else {
        // Move one thread: take a thread off a busy core of node a, put it on node b.
        candidate = best->second;
        std::uniform_int_distribution<int> pick(0, nodes - 1);
        const int a = pick(random);
        const int b = pick(random);
        int level = -1;
        for (int j = static_cast<int>(candidate[a].size()) - 1; j >= 0 && level < 0; --j) {
          if (candidate[a][j] > 0) level = j;
        }
        if (level < 0 || t.nodes[b].cores == 0) continue;
        --candidate[a][level];
        if (level > 0) ++candidate[a][level - 1];
        int used = 0;
        for (int k : candidate[b]) used += k;
        if (used < t.nodes[b].cores) {
          ++candidate[b][0];
        } else {
          int j = 0;
          while (j + 1 < static_cast<int>(candidate[b].size()) && candidate[b][j] == 0) ++j;
          if (j + 1 >= static_cast<int>(candidate[b].size()) || candidate[b][j] == 0) continue;
          --candidate[b][j];
          ++candidate[b][j + 1];
        }
      }
      const std::optional<double> time = evaluate(candidate);
      if (time && (!best || *time < best->first)) best = std::make_pair(*time, candidate);
    }
    result.distinct_placements = result.space_size;  // an upper bound: not enumerated
  }
  std::stable_sort(result.ranked.begin(), result.ranked.end(),
                   [](const PlacementCandidate& a, const PlacementCandidate& b) { return a.time_s < b.time_s; });
  return result;
}

}  // namespace numatwin::sim
