#include "numatwin/model/topology.hpp"

#include <algorithm>

namespace numatwin::model {

double Node::llc_bytes() const {
  double best = 0.0;
  int level = 0;
  for (const CacheLevel& c : caches) {
    if (c.level < level) continue;
    level = c.level;
    best = static_cast<double>(c.size_bytes) * std::max(1, cores / std::max(1, c.shared_by_cores));
  }
  return best;
}

std::optional<NodeIndex> Topology::find_node(const std::string& id) const {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].id == id) return static_cast<NodeIndex>(i);
  }
  return std::nullopt;
}

std::optional<LinkIndex> Topology::find_link(NodeIndex from, NodeIndex to) const {
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].from == from && links[i].to == to) return static_cast<LinkIndex>(i);
  }
  return std::nullopt;
}

std::vector<NodeIndex> Topology::numa_nodes() const {
  std::vector<NodeIndex> result;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].kind == NodeKind::kNode) result.push_back(static_cast<NodeIndex>(i));
  }
  return result;
}

int Topology::total_cores() const {
  int total = 0;
  for (const Node& node : nodes) total += node.cores;
  return total;
}

int Topology::total_hardware_threads() const {
  int total = 0;
  for (const Node& node : nodes) total += node.hardware_threads();
  return total;
}

std::string Topology::link_name(LinkIndex link) const {
  const Link& l = links.at(static_cast<std::size_t>(link));
  return nodes.at(static_cast<std::size_t>(l.from)).id + "->" +
         nodes.at(static_cast<std::size_t>(l.to)).id;
}

}  // namespace numatwin::model
