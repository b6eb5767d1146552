// Inferring the link graph of a machine from its SLIT distance matrix (ACPI distances as
// numactl --hardware and hwloc report them). Pure: no hardware, no files.
//
// Rule: sort the distinct off-diagonal distances into classes c_1 < c_2 < ... < c_k and
// take as links the pairs at the smallest remote distance c_1. The guess holds when the hop
// count of that graph reproduces the classes: for every pair i != j,
//     hops_G(i, j) == rank(d(i, j))      (rank(c_r) = r),
// e.g. a SLIT of 10/12/14/16 whose 12-pairs form a graph in which the 14-pairs are exactly
// 2 hops apart and the 16-pairs 3 hops. Otherwise (asymmetric matrix, a disconnected graph,
// a class that is not the hop count) the matrix does not determine the links: the result
// says which pair breaks the rule, and callers fall back to a fully connected graph.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace numatwin::validate {

struct LinkInference {
  bool consistent = false;                 // the graph reproduces every distance class as hops
  std::vector<std::pair<int, int>> links;  // undirected pairs (i < j) at the smallest remote distance
  std::vector<int> distance_classes;       // distinct off-diagonal distances, ascending
  std::vector<std::vector<int>> hop_matrix;  // hops in the inferred graph, -1 when unreachable
  std::string explanation;                 // one sentence for people, also when consistent
};

// Throws std::invalid_argument when the matrix is empty or not square. An asymmetric matrix,
// or a diagonal that is not the smallest value of its row, gives consistent == false.
LinkInference infer_links(const std::vector<std::vector<int>>& distances);

// The same with some nodes known to have no CPUs (memory-only: a CXL expander, HBM in flat
// mode): their distances say how near their memory is, not where links run (a CXL node at 14
// from its host socket while the sockets are 20 apart would otherwise make the rule fail). The
// rule is applied to the nodes with CPUs alone, and each memory-only node is linked to its
// nearest node with CPUs; a tie for the nearest gives consistent == false, naming the tie.
// `has_cpus` has one entry per node; with fewer than two nodes with CPUs it is the plain rule.
LinkInference infer_links(const std::vector<std::vector<int>>& distances, const std::vector<bool>& has_cpus);

// Hop counts of an undirected graph on `node_count` nodes by breadth-first search, -1 when
// unreachable. Throws std::invalid_argument for a pair outside 0..node_count-1.
std::vector<std::vector<int>> hop_matrix_of(int node_count, const std::vector<std::pair<int, int>>& links);

}  // namespace numatwin::validate
