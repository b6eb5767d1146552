// Where threads run: one definition shared by the simulator and the validator.
//
// CPU numbering follows Linux on Intel machines: cores are numbered node by node in file order
// (global core c), and hardware thread h of core c is CPU h * total_cores + c, so CPUs
// 0..total_cores-1 are the first hardware thread of every core.
//   dense:    fill node 0's cores, then node 1's, ...; once every core has a thread, the second
//             hardware threads in the same order, and so on.
//   sparse:   round robin over the nodes with cores: thread i goes to node i mod S, to that node's
//             next free core (then next hardware thread).
//   explicit: the given CPU ids, one per thread.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::sim {

enum class PlacementKind { kDense, kSparse, kExplicit };

struct ThreadPlacement {
  PlacementKind kind = PlacementKind::kDense;
  std::vector<int> cpus;  // kExplicit only
};

struct PlacedThread {
  int cpu = 0;           // CPU id as above
  int core = 0;          // global core index
  int hardware_thread = 0;
  model::NodeIndex node = 0;
};

// Throws std::invalid_argument with a clear message when threads < 1, threads exceed the machine's
// hardware threads, or an explicit list has the wrong length, a missing or a repeated CPU.
std::vector<PlacedThread> place_threads(const model::Topology& topology, int threads, const ThreadPlacement& placement);

// Parses "dense", "sparse" or a CPU list "0,2,4-7". Throws std::invalid_argument.
ThreadPlacement parse_placement(const std::string& text);
std::string placement_name(const ThreadPlacement& placement);

}  // namespace numatwin::sim
