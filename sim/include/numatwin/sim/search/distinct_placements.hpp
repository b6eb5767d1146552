// The placement space of distinct threads (Dominico et al.'s exhaustive study, ../docs/algorithms.md
// §3): every way to put r threads, one per core, on the nodes, where thread i is not thread j
// (they work on different chunks), ranked by predicted time.
//
// Counting. Node n has c_n cores; an assignment gives each thread a node, at most c_n threads on
// n (cores of one node are alike, so which core does not matter). There are
//   A = sum over (k_n) with sum k_n = r, k_n <= c_n of r! / prod k_n!
// assignments (C(12, 6) = 924 for 12 threads on 2 x 6 cores). Two assignments are the same
// machine-wise when an automorphism of the machine (placement_search.hpp) maps one onto the
// other; the number of such classes is, by Burnside's lemma, (1 / |Aut|) sum over pi of Fix(pi),
// Fix(pi) = the assignments that use only nodes pi fixes (462 = (924 + 0) / 2 for the swap of
// two identical nodes: no assignment is its own mirror).
//
// Evaluation. The workload makes some threads alike (operator_plan.hpp: interchangeable_threads):
// the threads of one chunk group, and groups of the same size and chunk count. A placement is
// then, per group, how many of its threads sit on each node (its state), and per kind of group
// the multiset of its groups' states: a class. Every assignment of a class has the same traffic
// plan, so one simulation stands for all of them; a class stands for
//   prod over kinds t of G_t! / prod_s m_s!  x  prod over groups of k_g! / prod_n c_gn!
// assignments (G_t groups of kind t, m_s of them in state s; c_gn threads of group g on n).
// Classes are enumerated, merged under the machine's automorphisms (the smallest image is the
// representative) and each representative is simulated once; the multiplicities add up to A
// (a check the tests make). When there are more classes than `max_classes`, random assignments
// and local moves (one thread to another node, or two threads of different nodes swapped) are
// evaluated until the caller stops the search.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/engine/energy_estimate.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct DistinctPlacement {
  std::vector<int> node_of_thread;  // a representative: thread i runs on node node_of_thread[i]
  std::vector<int> cpus;            // its explicit CPU list (thread i on cpus[i])
  std::string text;                 // per kind of group: its groups' states, e.g. "{s0:2} x3, {s0:1 s1:1} x2"
  double assignments = 0.0;         // assignments of distinct threads it stands for (its machine orbit)
  double time_s = 0.0;
  double local_access_ratio = 1.0;
  double remote_share = 0.0;        // share of memory traffic that crosses a link (1 - local ratio)
  double memory_bytes = 0.0;        // memory traffic of the run
  double remote_bytes = 0.0;
  EnergyEstimate energy;            // DRAM, remote, link and background energy (energy_estimate.hpp)
};

struct DistinctPlacementResult {
  double assignments = 0.0;           // A: distinct threads to nodes, one per core
  double machine_classes = 0.0;       // A up to the machine's automorphisms (Burnside)
  double classes = 0.0;               // ... and up to the workload's alike threads (exact when exhaustive)
  int automorphisms = 1;
  bool symmetry_complete = true;
  bool exhaustive = true;
  int simulations = 0;
  std::vector<DistinctPlacement> ranked;  // evaluated classes, fastest first
};

struct DistinctPlacementOptions {
  double max_classes = 2e5;
  int max_automorphisms = 50000;
  std::uint64_t seed = 1;
  // Called before each evaluation of the sampling search; true ends it.
  std::function<bool(int evaluated)> stop = [](int evaluated) { return evaluated >= 2000; };
};

// Throws std::invalid_argument when the threads do not fit one per core or the spec is bad.
DistinctPlacementResult search_distinct_placements(const model::Topology& topology, const WorkloadSpec& spec,
                                                   const DistinctPlacementOptions& options = {});

// The simulation of one explicit placement, as the search scores it.
DistinctPlacement evaluate_placement(const model::Topology& topology, const WorkloadSpec& spec, const std::vector<int>& cpus);
// The same for any thread placement (dense, sparse, none, ...); `cpus` is left empty.
DistinctPlacement evaluate_placement(const model::Topology& topology, const WorkloadSpec& spec, const ThreadPlacement& placement);

}  // namespace numatwin::sim
