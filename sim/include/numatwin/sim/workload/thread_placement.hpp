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
//   random:   distinct hardware threads drawn at random (seeded), pinned.
//   none:     no pinning: the OS starts threads on random hardware threads (seeded) and moves
//             them now and then; the plan builders add those moves (os_move_probability per
//             unit of work). Run several seeds to see the spread.
//   shared:   threads that work on the same data share its node (Dominico et al.): each thread
//             goes to the node holding most of its input, as far as the node has hardware
//             threads. Only operator plans know the data; elsewhere it behaves like dense.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::sim {

enum class PlacementKind { kDense, kSparse, kExplicit, kRandom, kNone, kShared };

struct ThreadPlacement {
  PlacementKind kind = PlacementKind::kDense;
  std::vector<int> cpus;            // kExplicit only
  unsigned long long seed = 1;      // kRandom, kNone
  double os_move_probability = 0.1;  // kNone: chance that the OS moves a thread between two units of work
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

// Parses "dense", "sparse", "random", "none", "shared" or a CPU list "0,2,4-7".
// Throws std::invalid_argument.
ThreadPlacement parse_placement(const std::string& text);
std::string placement_name(const ThreadPlacement& placement);

}  // namespace numatwin::sim
