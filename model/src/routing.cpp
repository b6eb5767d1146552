#include "numatwin/model/routing.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <tuple>

namespace numatwin::model {
namespace {

struct Label {
  int hops = std::numeric_limits<int>::max();
  double latency_ns = std::numeric_limits<double>::infinity();
  LinkIndex via = -1;  // last link of the best path found so far
};

}  // namespace

Routing::Routing(const Topology& topology)
    : topology_(&topology),
      node_count_(static_cast<int>(topology.nodes.size())),
      routes_(static_cast<std::size_t>(node_count_ * node_count_)),
      reachable_(static_cast<std::size_t>(node_count_ * node_count_), false) {
  const auto n = static_cast<std::size_t>(node_count_);
  std::vector<std::vector<LinkIndex>> out_links(n);
  for (std::size_t l = 0; l < topology.links.size(); ++l) {
    out_links[topology.links[l].from].push_back(static_cast<LinkIndex>(l));
  }
  for (std::size_t source = 0; source < n; ++source) {
    std::vector<Label> label(n);
    std::vector<bool> settled(n, false);
    label[source].hops = 0;
    label[source].latency_ns = 0.0;
    // Settle the unsettled node with the smallest (hops, latency); ties go to the lower index. A
    // heap of (hops, latency, node) entries gives that order in O(links log links) per source,
    // where a scan of every node per step took nodes^2 (nodes^3 for all sources: a 4096-node
    // hypercube's routes took minutes, issue 39 E). An entry whose node has settled, or whose
    // label has improved since it was pushed, is stale and skipped: the entry of every node's
    // current label is in the heap, so the smallest valid entry is the node the scan would pick.
    using Entry = std::tuple<int, double, std::size_t>;
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    heap.emplace(0, 0.0, source);
    while (!heap.empty()) {
      const auto [hops_so_far, latency_so_far, best] = heap.top();
      heap.pop();
      if (settled[best] || hops_so_far != label[best].hops || latency_so_far != label[best].latency_ns) continue;
      settled[best] = true;
      for (LinkIndex l : out_links[best]) {
        const Link& link = topology.links[l];
        Label& target = label[link.to];
        if (settled[link.to]) continue;
        const int hops = label[best].hops + 1;
        const double latency = label[best].latency_ns + link.latency_ns;
        // Strictly better only: nodes settle in increasing index order among equals, so the
        // first predecessor to offer a label keeps it on ties (the lowest-index predecessor).
        if (std::tie(hops, latency) < std::tie(target.hops, target.latency_ns)) {
          target = Label{hops, latency, l};
          heap.emplace(hops, latency, static_cast<std::size_t>(link.to));
        }
      }
    }
    for (std::size_t destination = 0; destination < n; ++destination) {
      const std::size_t slot = source * n + destination;
      if (label[destination].hops == std::numeric_limits<int>::max()) continue;
      reachable_[slot] = true;
      std::vector<LinkIndex> path;
      for (std::size_t at = destination; at != source;) {
        const LinkIndex l = label[at].via;
        path.push_back(l);
        at = static_cast<std::size_t>(topology.links[l].from);
      }
      routes_[slot].assign(path.rbegin(), path.rend());
    }
  }
  for (const ExplicitRoute& route : topology.routes) {
    std::vector<LinkIndex> path;
    for (std::size_t k = 1; k < route.path.size(); ++k) {
      const auto link = topology.find_link(route.path[k - 1], route.path[k]);
      if (!link) throw std::invalid_argument("explicit route crosses a missing link (topology not checked)");
      path.push_back(*link);
    }
    const std::size_t slot = static_cast<std::size_t>(route.path.front()) * n + static_cast<std::size_t>(route.path.back());
    routes_[slot] = std::move(path);
    reachable_[slot] = true;
  }
}

const std::vector<LinkIndex>& Routing::route(NodeIndex from, NodeIndex to) const {
  return routes_.at(static_cast<std::size_t>(from * node_count_ + to));
}

bool Routing::reachable(NodeIndex from, NodeIndex to) const {
  return reachable_.at(static_cast<std::size_t>(from * node_count_ + to));
}

int Routing::hops(NodeIndex from, NodeIndex to) const {
  if (!reachable(from, to)) return -1;
  return static_cast<int>(route(from, to).size());
}

double Routing::access_latency_ns(NodeIndex from, NodeIndex memory_node) const {
  if (!reachable(from, memory_node)) return std::numeric_limits<double>::infinity();
  double latency = topology_->nodes.at(static_cast<std::size_t>(memory_node)).local_latency_ns;
  if (from != memory_node) latency += topology_->coherence.remote_access_overhead_ns;
  for (LinkIndex l : route(from, memory_node)) latency += topology_->links[static_cast<std::size_t>(l)].latency_ns;
  return latency;
}

std::vector<std::vector<int>> Routing::hop_matrix() const {
  const std::vector<NodeIndex> numa = topology_->numa_nodes();
  std::vector<std::vector<int>> m(numa.size(), std::vector<int>(numa.size(), 0));
  for (std::size_t i = 0; i < numa.size(); ++i) {
    for (std::size_t j = 0; j < numa.size(); ++j) m[i][j] = hops(numa[i], numa[j]);
  }
  return m;
}

std::vector<std::vector<double>> Routing::latency_matrix_ns() const {
  const std::vector<NodeIndex> numa = topology_->numa_nodes();
  std::vector<std::vector<double>> m(numa.size(), std::vector<double>(numa.size(), 0.0));
  for (std::size_t i = 0; i < numa.size(); ++i) {
    for (std::size_t j = 0; j < numa.size(); ++j) {
      m[i][j] = topology_->nodes[static_cast<std::size_t>(numa[j])].has_memory()
                    ? access_latency_ns(numa[i], numa[j])
                    : std::numeric_limits<double>::quiet_NaN();
    }
  }
  return m;
}

std::vector<std::vector<int>> Routing::distance_matrix() const {
  const std::vector<std::vector<double>> latency = latency_matrix_ns();
  std::vector<std::vector<int>> m(latency.size(), std::vector<int>(latency.size(), -1));
  for (std::size_t i = 0; i < latency.size(); ++i) {
    double nearest = std::numeric_limits<double>::infinity();
    for (double l : latency[i]) {
      if (!std::isnan(l)) nearest = std::min(nearest, l);
    }
    for (std::size_t j = 0; j < latency.size(); ++j) {
      if (std::isnan(latency[i][j]) || !std::isfinite(latency[i][j])) continue;
      m[i][j] = static_cast<int>(std::lround(10.0 * latency[i][j] / nearest));
    }
  }
  return m;
}

int Routing::diameter() const {
  int diameter = 0;
  for (const auto& row : hop_matrix()) {
    for (int h : row) diameter = std::max(diameter, h);
  }
  return diameter;
}

}  // namespace numatwin::model
