// Routes between nodes and the distance figures derived from them.
//
// Default route i -> j: fewest links; among those, the smallest total link latency_ns;
// among those, at each node the predecessor with the smallest node index (Dijkstra on the
// key (hops, latency_ns) settling nodes in index order), so routes are deterministic.
// A file's explicit route for (i, j) replaces the default for that ordered pair only.
//
// access latency   L(i, j) = local_latency_ns(j) + [i != j] remote_access_overhead_ns
//                             + sum_{l in route(i, j)} latency_ns(l)
// SLIT-like distance D(i, j) = round(10 * L(i, j) / min_k L(i, k)), over memory nodes k,
// so the nearest memory of i gets 10, like the ACPI SLIT that numactl --hardware prints.
#pragma once

#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

class Routing {
 public:
  // Precondition: the topology passed check_topology (every core reaches every memory).
  explicit Routing(const Topology& topology);

  // Directed links crossed from `from` to `to`, in order; empty when from == to.
  [[nodiscard]] const std::vector<LinkIndex>& route(NodeIndex from, NodeIndex to) const;
  [[nodiscard]] bool reachable(NodeIndex from, NodeIndex to) const;
  [[nodiscard]] int hops(NodeIndex from, NodeIndex to) const;
  [[nodiscard]] double access_latency_ns(NodeIndex from, NodeIndex memory_node) const;

  // Matrices over topology.numa_nodes() (routers left out), row = from, column = to.
  [[nodiscard]] std::vector<std::vector<int>> hop_matrix() const;
  [[nodiscard]] std::vector<std::vector<double>> latency_matrix_ns() const;
  [[nodiscard]] std::vector<std::vector<int>> distance_matrix() const;
  // Largest hop count between two NUMA nodes.
  [[nodiscard]] int diameter() const;

 private:
  const Topology* topology_;
  int node_count_;
  std::vector<std::vector<LinkIndex>> routes_;  // node_count_^2, row-major
  std::vector<bool> reachable_;
};

}  // namespace numatwin::model
