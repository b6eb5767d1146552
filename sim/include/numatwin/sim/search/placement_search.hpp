// Searching the thread placements of a workload (Dominico et al.'s exhaustive study, generalised).
//
// Threads of the workloads are interchangeable and so are the cores of one node, so a placement
// is, per node, how many of its cores run 1, 2, ... threads (an occupancy pattern). Two
// placements are the same when an automorphism of the machine (a permutation of its nodes that
// keeps every node's description, every directed link with its bandwidth and latency, and the
// nodes named by the memory policy) maps one onto the other. The search enumerates one
// placement per class (the lexicographically smallest image under the automorphism group), or,
// when the space is too large, samples random placements and improves the best by local moves
// (one thread to another node) until the caller says stop.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// Per node: occupancy[n][j] = number of cores of node n that run j + 1 threads.
using Occupancy = std::vector<std::vector<int>>;

struct PlacementCandidate {
  Occupancy occupancy;
  std::vector<int> cpus;  // the explicit CPU list it stands for
  double time_s = 0.0;
};

struct PlacementSearchResult {
  double space_size = 0.0;          // placements before removing symmetry
  double distinct_placements = 0.0;  // classes (exact when `exhaustive`)
  bool exhaustive = false;
  bool symmetry_complete = true;     // false: the automorphism group was too large to list
  int automorphisms = 1;
  int evaluated = 0;
  std::vector<PlacementCandidate> ranked;  // evaluated placements, fastest first
};

struct PlacementSearchOptions {
  double max_exhaustive = 2e5;   // enumerate when the space holds at most this many placements
  int max_automorphisms = 50000;
  std::uint64_t seed = 1;
  // Called before each evaluation in the sampling search; true ends it.
  std::function<bool(int evaluated)> stop = [](int evaluated) { return evaluated >= 2000; };
};

// Automorphisms of the machine that fix the given nodes (each a permutation of node indices),
// at most `limit` of them; `complete` tells whether that is all.
std::vector<std::vector<model::NodeIndex>> machine_automorphisms(const model::Topology& topology,
                                                                 const std::vector<model::NodeIndex>& fixed,
                                                                 int limit, bool& complete);

// Evaluates placements of spec.threads threads for `spec` (its placement field is replaced by
// each candidate). Throws std::invalid_argument for a bad spec.
PlacementSearchResult search_placements(const model::Topology& topology, const WorkloadSpec& spec,
                                        const PlacementSearchOptions& options = {});

std::string occupancy_text(const model::Topology& topology, const Occupancy& occupancy);

}  // namespace numatwin::sim
