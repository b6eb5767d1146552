#include "numatwin/sim/workload/memory_policy.hpp"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {
namespace {

// Exact below 2^53 (every size that passed check_sizes), else in %g: never a wrapped integer.
std::string bytes_text(double bytes) {
  if (std::abs(bytes) <= kMaxCountable) return std::to_string(static_cast<long long>(bytes)) + " bytes";
  char text[64];
  std::snprintf(text, sizeof text, "%g bytes", bytes);
  return text;
}

std::string weights_text(const InterleaveWeights& w, const model::Topology& topology) {
  std::string out;
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    out += (i ? "," : "") + topology.nodes[w.nodes[i]].id + "=" + std::to_string(w.weights[i]);
  return out;
}

}  // namespace

std::vector<model::NodeShare> InterleaveWeights::shares() const {
  double sum = 0.0;
  for (int w : weights) sum += w;
  std::vector<model::NodeShare> out;
  for (std::size_t i = 0; i < nodes.size(); ++i) out.push_back(model::NodeShare{nodes[i], weights[i] / sum});
  return out;
}

const InterleaveWeights& MemoryPolicy::weights_for(model::NodeIndex cpu_node, const model::Topology& topology) const {
  if (by_node.empty()) return global;
  for (const NodeWeights& w : by_node) {
    if (w.cpu_node == cpu_node) return w.weights;
  }
  throw std::invalid_argument("weighted-interleave: no weight vector for threads on node " + topology.nodes[cpu_node].id +
                              " (a per-node policy needs one for every node a worker runs on)");
}

std::vector<model::NodeShare> DataPlacement::spread(double begin_bytes, double end_bytes) const {
  // Bytes per node, summed in segment order (a handful of nodes: a vector, sorted at the end).
  std::vector<model::NodeShare> bytes;
  double total = 0.0;
  assert(std::is_sorted(segments.begin(), segments.end(),
                        [](const Segment& a, const Segment& b) { return a.end_bytes <= b.begin_bytes && a.begin_bytes < b.begin_bytes; }));
  // Segments are ascending and disjoint: start at the first one that ends after `begin_bytes`.
  const auto first = std::partition_point(segments.begin(), segments.end(),
                                          [&](const Segment& s) { return s.end_bytes <= begin_bytes; });
  for (auto it = first; it != segments.end() && it->begin_bytes < end_bytes; ++it) {
    const Segment& s = *it;
    const double overlap = std::min(end_bytes, s.end_bytes) - std::max(begin_bytes, s.begin_bytes);
    if (overlap <= 0.0) continue;
    for (const model::NodeShare& share : s.spread) {
      auto found = std::find_if(bytes.begin(), bytes.end(), [&](const model::NodeShare& b) { return b.node == share.node; });
      if (found == bytes.end()) {
        bytes.push_back(model::NodeShare{share.node, overlap * share.fraction});
      } else {
        found->fraction += overlap * share.fraction;
      }
    }
    total += overlap;
  }
  std::vector<model::NodeShare> out;
  if (total <= 0.0) return out;
  std::sort(bytes.begin(), bytes.end(), [](const model::NodeShare& a, const model::NodeShare& b) { return a.node < b.node; });
  for (const model::NodeShare& b : bytes) {
    if (b.fraction > 0.0) out.push_back(model::NodeShare{b.node, b.fraction / total});
  }
  // Renormalise so that the fractions add up to 1 exactly enough for the model's check.
  double sum = 0.0;
  for (const model::NodeShare& s : out) sum += s.fraction;
  for (model::NodeShare& s : out) s.fraction /= sum;
  return out;
}

std::vector<model::NodeShare> DataPlacement::chunk(int worker, int workers) const {
  const double per = size_bytes / workers;
  return spread(per * worker, per * (worker + 1));
}

MemoryPlacer::MemoryPlacer(const model::Topology& topology, const model::Routing& routing,
                           std::vector<model::NodeIndex> worker_nodes, model::NodeIndex loader_node)
    : topology_(&topology),
      routing_(&routing),
      worker_nodes_(std::move(worker_nodes)),
      loader_node_(loader_node),
      used_(topology.nodes.size(), 0.0) {}

double MemoryPlacer::room(model::NodeIndex node) const {
  return static_cast<double>(topology_->nodes[node].memory_capacity_bytes) - used_[node];
}

void MemoryPlacer::fill_in_order(const std::vector<model::NodeIndex>& nodes, double bytes, double& offset,
                                 DataPlacement& placement, const std::string& name, bool spill) {
  double left = bytes;
  for (model::NodeIndex n : nodes) {
    if (left <= 0.0) break;
    const double put = std::min(left, std::max(0.0, room(n)));
    if (put <= 0.0) continue;
    used_[n] += put;
    placement.segments.push_back(Segment{offset, offset + put, {model::NodeShare{n, 1.0}}});
    offset += put;
    left -= put;
  }
  if (left > 1e-6 * std::max(1.0, bytes)) {
    throw std::invalid_argument("dataset \"" + name + "\" (" + bytes_text(placement.size_bytes) + ") does not fit: " +
                                bytes_text(left) + (spill ? " more than the machine's free memory" : " more than the bound nodes hold"));
  }
}

void MemoryPlacer::fill_from(model::NodeIndex node, double bytes, double& offset, DataPlacement& placement,
                             const std::string& name) {
  // `node` itself first (as Linux: a node is at SLIT distance 10 from itself), then nearest (by
  // access latency from `node`), then by index. The first rule matters for a CPU-less node whose
  // own memory is slower than a neighbour's seen through it (preferred:hbm must start on hbm).
  std::vector<model::NodeIndex> order;
  for (std::size_t n = 0; n < topology_->nodes.size(); ++n) {
    if (topology_->nodes[n].has_memory()) order.push_back(static_cast<model::NodeIndex>(n));
  }
  std::stable_sort(order.begin(), order.end(), [&](model::NodeIndex a, model::NodeIndex b) {
    if ((a == node) != (b == node)) return a == node;
    return routing_->access_latency_ns(node, a) < routing_->access_latency_ns(node, b);
  });
  fill_in_order(order, bytes, offset, placement, name, true);
}

DataPlacement MemoryPlacer::place(const std::string& name, double size_bytes, DatasetKind kind, const MemoryPolicy& policy,
                                  const std::vector<double>& worker_shares) {
  if (!(size_bytes >= 0.0)) throw std::invalid_argument("dataset \"" + name + "\": size must be >= 0");
  if (size_bytes > kMaxCountable) {
    throw std::invalid_argument("dataset \"" + name + "\" (" + bytes_text(size_bytes) +
                                ") is beyond what numatwin can count (at most 2^53 = 9.007e15 bytes)");
  }
  if (!worker_shares.empty() && worker_shares.size() != worker_nodes_.size()) {
    throw std::invalid_argument("dataset \"" + name + "\": " + std::to_string(worker_shares.size()) + " worker shares for " +
                                std::to_string(worker_nodes_.size()) + " workers");
  }
  for (model::NodeIndex n : policy.nodes) {
    if (n < 0 || n >= static_cast<model::NodeIndex>(topology_->nodes.size()) || !topology_->nodes[n].has_memory()) {
      throw std::invalid_argument("memory policy names node " + std::to_string(n) + ", which has no memory");
    }
  }
  DataPlacement placement;
  placement.name = name;
  placement.size_bytes = size_bytes;
  double offset = 0.0;
  const int workers = static_cast<int>(worker_nodes_.size());
  auto worker_bytes = [&](int w) { return worker_shares.empty() ? size_bytes / workers : size_bytes * worker_shares[w]; };
  auto per_worker = [&]() {
    for (int w = 0; w < workers; ++w) fill_from(worker_nodes_[w], worker_bytes(w), offset, placement, name);
  };
  switch (policy.kind) {
    case MemoryPolicyKind::kFirstTouch:
      if (policy.init == InitThreads::kLoader) {
        fill_from(loader_node_, size_bytes, offset, placement, name);
      } else {
        per_worker();
      }
      break;
    case MemoryPolicyKind::kLocalAlloc:
      if (kind == DatasetKind::kShared) {
        fill_from(loader_node_, size_bytes, offset, placement, name);
      } else {
        per_worker();
      }
      break;
    case MemoryPolicyKind::kInterleave: {
      std::vector<model::NodeIndex> nodes = policy.nodes;
      if (nodes.empty()) {
        for (std::size_t n = 0; n < topology_->nodes.size(); ++n) {
          if (topology_->nodes[n].has_memory()) nodes.push_back(static_cast<model::NodeIndex>(n));
        }
      }
      const double share = size_bytes / static_cast<double>(nodes.size());
      Segment segment{0.0, size_bytes, {}};
      for (model::NodeIndex n : nodes) {
        if (room(n) < share) {
          throw std::invalid_argument("dataset \"" + name + "\" interleaved over " + std::to_string(nodes.size()) +
                                      " nodes needs " + bytes_text(share) + " on node " + topology_->nodes[n].id +
                                      ", which has " + bytes_text(std::max(0.0, room(n))) + " free");
        }
        used_[n] += share;
        segment.spread.push_back(model::NodeShare{n, 1.0 / static_cast<double>(nodes.size())});
      }
      if (size_bytes > 0.0) placement.segments.push_back(segment);
      break;
    }
    case MemoryPolicyKind::kWeightedInterleave: {
      // Each worker's chunk, spread by the vector of the node it runs on.
      for (int w = 0; w < workers; ++w) {
        const InterleaveWeights& weights = policy.weights_for(worker_nodes_[w], *topology_);
        const double chunk = worker_bytes(w);
        Segment segment{offset, offset + chunk, weights.shares()};
        for (const model::NodeShare& share : segment.spread) {
          if (share.node < 0 || share.node >= static_cast<model::NodeIndex>(topology_->nodes.size()) ||
              !topology_->nodes[share.node].has_memory())
            throw std::invalid_argument("memory policy names node " + std::to_string(share.node) + ", which has no memory");
          if (room(share.node) < chunk * share.fraction) {
            throw std::invalid_argument("dataset \"" + name + "\" weighted-interleaved needs " + bytes_text(chunk * share.fraction) +
                                        " more on node " + topology_->nodes[share.node].id + ", which has " +
                                        bytes_text(std::max(0.0, room(share.node))) + " free");
          }
          used_[share.node] += chunk * share.fraction;
        }
        if (chunk > 0.0) placement.segments.push_back(segment);
        offset += chunk;
      }
      break;
    }
    case MemoryPolicyKind::kPreferred:
      if (policy.nodes.size() != 1) throw std::invalid_argument("preferred needs exactly one node");
      fill_from(policy.nodes[0], size_bytes, offset, placement, name);
      break;
    case MemoryPolicyKind::kBind:
      if (policy.nodes.empty()) throw std::invalid_argument("bind needs at least one node");
      fill_in_order(policy.nodes, size_bytes, offset, placement, name, false);
      break;
  }
  return placement;
}

MemoryPolicy parse_memory_policy(const std::string& text, const model::Topology& topology) {
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon);
  const std::string args = colon == std::string::npos ? "" : text.substr(colon + 1);
  MemoryPolicy p;
  // A node by id or index.
  auto node_of = [&](const std::string& id) {
    std::optional<model::NodeIndex> n = topology.find_node(id);
    if (!n && !id.empty() && id.size() < 6 &&
        std::all_of(id.begin(), id.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
        std::stoi(id) < static_cast<int>(topology.nodes.size()))
      n = std::stoi(id);
    if (!n) throw std::invalid_argument("memory policy \"" + text + "\": no node \"" + id + "\" on " + topology.name);
    return *n;
  };
  auto nodes = [&]() {
    std::vector<model::NodeIndex> out;
    std::size_t pos = 0;
    while (pos <= args.size() && !args.empty()) {
      const std::size_t comma = args.find(',', pos);
      const model::NodeIndex n = node_of(args.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
      if (!topology.nodes[n].has_memory()) {
        throw std::invalid_argument("memory policy \"" + text + "\": node " + topology.nodes[n].id + " has no memory");
      }
      out.push_back(n);
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    return out;
  };
  if (kind == "first-touch") {
    p.kind = MemoryPolicyKind::kFirstTouch;
    if (args == "loader") {
      p.init = InitThreads::kLoader;
    } else if (args.empty() || args == "workers") {
      p.init = InitThreads::kWorkers;
    } else {
      throw std::invalid_argument("memory policy \"" + text + "\": first-touch takes :workers or :loader");
    }
  } else if (kind == "localalloc" && args.empty()) {
    p.kind = MemoryPolicyKind::kLocalAlloc;
  } else if (kind == "interleave") {
    p.kind = MemoryPolicyKind::kInterleave;
    p.nodes = nodes();
  } else if (kind == "weighted-interleave") {
    p.kind = MemoryPolicyKind::kWeightedInterleave;
    const std::string expected =
        "; expected weighted-interleave:NODE=W,... (one vector) or weighted-interleave:CPUNODE[NODE=W,...];... (one per node "
        "with cores), weights 1..255";
    auto vector_of = [&](const std::string& list) {
      InterleaveWeights w;
      std::size_t pos = 0;
      while (pos <= list.size()) {
        const std::size_t comma = list.find(',', pos);
        const std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("memory policy \"" + text + "\": \"" + item + "\" is not NODE=W" + expected);
        const model::NodeIndex n = node_of(item.substr(0, eq));
        if (!topology.nodes[n].has_memory())
          throw std::invalid_argument("memory policy \"" + text + "\": node " + topology.nodes[n].id + " has no memory");
        if (std::find(w.nodes.begin(), w.nodes.end(), n) != w.nodes.end())
          throw std::invalid_argument("memory policy \"" + text + "\": node " + topology.nodes[n].id + " is given twice");
        const std::string weight = item.substr(eq + 1);
        if (weight.empty() || weight.size() > 3 ||
            !std::all_of(weight.begin(), weight.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) ||
            std::stoi(weight) < 1 || std::stoi(weight) > 255)
          throw std::invalid_argument("memory policy \"" + text + "\": weight \"" + weight + "\" of node " + topology.nodes[n].id +
                                      " is not a whole number 1..255");
        w.nodes.push_back(n);
        w.weights.push_back(std::stoi(weight));
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
      return w;
    };
    if (args.empty()) throw std::invalid_argument("memory policy \"" + text + "\": no weights" + expected);
    if (args.find('[') == std::string::npos) {
      p.global = vector_of(args);
    } else {
      std::size_t pos = 0;
      while (pos < args.size()) {
        const std::size_t open = args.find('[', pos);
        const std::size_t close = args.find(']', pos);
        if (open == std::string::npos || close == std::string::npos || close < open)
          throw std::invalid_argument("memory policy \"" + text + "\": unbalanced [ ]" + expected);
        NodeWeights nw;
        nw.cpu_node = node_of(args.substr(pos, open - pos));
        if (!topology.nodes[nw.cpu_node].has_cores())
          throw std::invalid_argument("memory policy \"" + text + "\": node " + topology.nodes[nw.cpu_node].id +
                                      " has no cores: a vector belongs to the node its threads run on");
        for (const NodeWeights& other : p.by_node)
          if (other.cpu_node == nw.cpu_node)
            throw std::invalid_argument("memory policy \"" + text + "\": two vectors for node " + topology.nodes[nw.cpu_node].id);
        nw.weights = vector_of(args.substr(open + 1, close - open - 1));
        p.by_node.push_back(std::move(nw));
        pos = close + 1;
        if (pos < args.size()) {
          if (args[pos] != ';') throw std::invalid_argument("memory policy \"" + text + "\": expected ';' after ']'" + expected);
          ++pos;
        }
      }
    }
  } else if (kind == "preferred") {
    p.kind = MemoryPolicyKind::kPreferred;
    p.nodes = nodes();
    if (p.nodes.size() != 1) throw std::invalid_argument("memory policy \"" + text + "\": preferred takes one node, e.g. preferred:s1");
  } else if (kind == "bind") {
    p.kind = MemoryPolicyKind::kBind;
    p.nodes = nodes();
    if (p.nodes.empty()) throw std::invalid_argument("memory policy \"" + text + "\": bind takes nodes, e.g. bind:s0,s1");
  } else {
    throw std::invalid_argument("unknown memory policy \"" + text +
                                "\"; expected first-touch[:workers|:loader], localalloc, interleave[:nodes], preferred:node, bind:nodes or "
                                "weighted-interleave:NODE=W,...");
  }
  return p;
}

std::string memory_policy_name(const MemoryPolicy& policy, const model::Topology& topology) {
  std::string nodes;
  for (model::NodeIndex n : policy.nodes) nodes += (nodes.empty() ? "" : ",") + topology.nodes[n].id;
  switch (policy.kind) {
    case MemoryPolicyKind::kFirstTouch: return policy.init == InitThreads::kLoader ? "first-touch:loader" : "first-touch";
    case MemoryPolicyKind::kLocalAlloc: return "localalloc";
    case MemoryPolicyKind::kInterleave: return nodes.empty() ? "interleave" : "interleave:" + nodes;
    case MemoryPolicyKind::kPreferred: return "preferred:" + nodes;
    case MemoryPolicyKind::kBind: return "bind:" + nodes;
    case MemoryPolicyKind::kWeightedInterleave: {
      if (policy.by_node.empty()) return "weighted-interleave:" + weights_text(policy.global, topology);
      std::string out = "weighted-interleave:";
      for (std::size_t i = 0; i < policy.by_node.size(); ++i)
        out += (i ? ";" : "") + topology.nodes[policy.by_node[i].cpu_node].id + "[" + weights_text(policy.by_node[i].weights, topology) + "]";
      return out;
    }
  }
  return "?";
}

std::vector<int> memory_policy_key(const MemoryPolicy& p) {
  std::vector<int> key{static_cast<int>(p.kind), static_cast<int>(p.init), static_cast<int>(p.nodes.size())};
  key.insert(key.end(), p.nodes.begin(), p.nodes.end());
  const auto add = [&key](const InterleaveWeights& w) {
    key.push_back(static_cast<int>(w.nodes.size()));
    key.insert(key.end(), w.nodes.begin(), w.nodes.end());
    key.push_back(static_cast<int>(w.weights.size()));
    key.insert(key.end(), w.weights.begin(), w.weights.end());
  };
  add(p.global);
  key.push_back(static_cast<int>(p.by_node.size()));
  for (const NodeWeights& n : p.by_node) {
    key.push_back(n.cpu_node);
    add(n.weights);
  }
  return key;
}

namespace {

// A page of a partitioned or private dataset under first touch or localalloc can move to its worker.
bool movable(DatasetKind kind, const MemoryPolicy& policy) {
  return kind != DatasetKind::kShared &&
         (policy.kind == MemoryPolicyKind::kFirstTouch || policy.kind == MemoryPolicyKind::kLocalAlloc);
}

}  // namespace

DataPlacement balanced_placement(const DataPlacement& placed, DatasetKind kind, const MemoryPolicy& policy,
                                 double offset_bytes, double prefix_bytes,
                                 const std::vector<model::NodeIndex>& worker_nodes,
                                 const std::vector<double>& worker_shares) {
  const double passed = std::min(placed.size_bytes, prefix_bytes - offset_bytes);
  if (!movable(kind, policy) || !(passed > 0.0) || worker_nodes.empty()) return placed;
  if (!worker_shares.empty() && worker_shares.size() != worker_nodes.size()) {
    throw std::invalid_argument("dataset \"" + placed.name + "\": worker shares do not match the workers");
  }
  DataPlacement out;
  out.name = placed.name;
  out.size_bytes = placed.size_bytes;
  const int workers = static_cast<int>(worker_nodes.size());
  double begin = 0.0;
  for (int w = 0; w < workers && begin < passed; ++w) {
    const double share = worker_shares.empty() ? 1.0 / workers : worker_shares[static_cast<std::size_t>(w)];
    const double end = w + 1 == workers ? placed.size_bytes : begin + placed.size_bytes * share;
    const double cut = std::min(end, passed);
    if (cut > begin) out.segments.push_back(Segment{begin, cut, {model::NodeShare{worker_nodes[w], 1.0}}});
    begin = end;
  }
  for (const Segment& s : placed.segments) {
    if (s.end_bytes <= passed) continue;
    Segment rest = s;
    rest.begin_bytes = std::max(s.begin_bytes, passed);
    out.segments.push_back(rest);
  }
  return out;
}

}  // namespace numatwin::sim
