#include "numatwin/model/bandwidth_model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace numatwin::model {
namespace {

constexpr double kBytesPerGB = 1e9;
constexpr double kTolerance = 1e-9;  // on utilisation
constexpr double kSecantMinStep = 1e-12;  // a smaller step gives no usable slope
constexpr int kMaxRounds = 200;

}  // namespace

BandwidthModel::BandwidthModel(const Topology& topology, const Routing& routing)
    : topology_(&topology),
      routing_(&routing),
      memory_resource_(topology.nodes.size(), -1),
      forwarding_resource_(topology.nodes.size(), -1) {
  const PerformanceParameters& p = topology.performance;
  if (p.cache_line_bytes < 1) throw std::invalid_argument("performance.cache_line_bytes must be >= 1");
  if (!(p.memory_queue_ns >= 0.0) || !(p.link_queue_ns >= 0.0) || !(p.queue_exponent > 0.0)) {
    throw std::invalid_argument("performance: queue latencies must be >= 0 and queue_exponent > 0");
  }
  for (std::size_t n = 0; n < topology.nodes.size(); ++n) {
    const Node& node = topology.nodes[n];
    first_core_.push_back(static_cast<int>(core_node_.size()));
    for (int c = 0; c < node.cores; ++c) core_node_.push_back(static_cast<NodeIndex>(n));
    if (node.has_cores() && node.miss_buffers_per_core < 1) {
      throw std::invalid_argument("node " + node.id + ": miss_buffers_per_core must be >= 1");
    }
    if (node.has_memory()) {
      memory_resource_[n] = static_cast<int>(resource_kinds_.size());
      resource_kinds_.push_back(ResourceKind::kMemoryController);
      capacities_.push_back(node.memory_read_bandwidth_gbps * kBytesPerGB);
      names_.push_back("mc:" + node.id);
      resource_node_.push_back(static_cast<NodeIndex>(n));
    }
  }
  link_resource_offset_ = static_cast<int>(resource_kinds_.size());
  for (std::size_t l = 0; l < topology.links.size(); ++l) {
    resource_kinds_.push_back(ResourceKind::kLink);
    capacities_.push_back(topology.links[l].bandwidth_gbps * kBytesPerGB);
    names_.push_back(topology.link_name(static_cast<LinkIndex>(l)));
  }
  for (std::size_t n = 0; n < topology.nodes.size(); ++n) {
    const Node& node = topology.nodes[n];
    if (!node.forwarding_bandwidth_gbps) continue;
    forwarding_resource_[n] = static_cast<int>(resource_kinds_.size());
    resource_kinds_.push_back(ResourceKind::kForwarding);
    capacities_.push_back(*node.forwarding_bandwidth_gbps * kBytesPerGB);
    names_.push_back("fwd:" + node.id);
  }
  for (double capacity : capacities_) problem_.add_resource(capacity);
  for (std::size_t node = 0; node < topology.nodes.size(); ++node) {
    memory_curves_.push_back(memory_curve(topology, static_cast<NodeIndex>(node)));
  }
  if (topology.core_data_path) {
    const std::vector<std::string> problems = core_data_path_problems(*topology.core_data_path);
    if (!problems.empty()) throw std::invalid_argument("core_data_path: " + problems.front());
    node_serial_s_.assign(topology.nodes.size() * 4, 0.0);
    node_overlap_s_.assign(topology.nodes.size() * 4, 0.0);
    for (std::size_t n = 0; n < topology.nodes.size(); ++n) {
      const Node& node = topology.nodes[n];
      if (!node.has_cores() || !(node.frequency_ghz > 0.0)) continue;
      const double hz = node.frequency_ghz * 1e9;
      for (int kind = 1; kind <= 3; ++kind) {
        const InCacheCycles c = in_cache_cycles_per_byte(*topology.core_data_path, (kind & 1) != 0, (kind & 2) != 0);
        node_serial_s_[n * 4 + kind] = c.serial / hz;
        node_overlap_s_[n * 4 + kind] = c.overlapping / hz;
      }
    }
  }
  const int n = static_cast<int>(topology.nodes.size());
  probe_trees_.resize(static_cast<std::size_t>(n) * n);
  for (NodeIndex prober = 0; prober < n; ++prober) {
    if (topology.nodes[prober].kind == NodeKind::kRouter) continue;
    for (NodeIndex skipped = 0; skipped < n; ++skipped) {
      probe_trees_[prober * n + skipped] = build_probe_tree(prober, skipped);
    }
  }
}

double BandwidthModel::resource_capacity_bytes_per_s(int resource) const { return capacities_.at(resource); }

std::string BandwidthModel::resource_name(int resource) const { return names_.at(resource); }

int BandwidthModel::core_of(NodeIndex node, int core_in_node) const {
  if (node < 0 || node >= static_cast<NodeIndex>(first_core_.size()) || core_in_node < 0 ||
      core_in_node >= topology_->nodes[node].cores) {
    throw std::invalid_argument("no core " + std::to_string(core_in_node) + " on node " + std::to_string(node));
  }
  return first_core_[node] + core_in_node;
}

NodeIndex BandwidthModel::node_of_core(int core) const { return core_node_.at(core); }

double BandwidthModel::idle_latency_ns(NodeIndex cpu_node, NodeIndex memory_node) const {
  return routing_->access_latency_ns(cpu_node, memory_node);
}

double BandwidthModel::queue_ns(int resource, double queue_ns, double exponent, const std::vector<double>& at) {
  double& cached = queue_ns_[static_cast<std::size_t>(resource)];
  if (std::isnan(cached)) cached = queue_ns * std::pow(at[resource], exponent);
  return cached;
}

double BandwidthModel::loaded_latency_ns(NodeIndex cpu_node, NodeIndex memory_node, const std::vector<double>& at) {
  const PerformanceParameters& p = topology_->performance;
  double latency = routing_->access_latency_ns(cpu_node, memory_node);
  const MemoryCurve& curve = memory_curves_[memory_node];  // the node's kind may override
  if (curve.memory_queue_ns > 0.0) {
    latency += queue_ns(memory_resource_[memory_node], curve.memory_queue_ns, curve.queue_exponent, at);
  }
  if (p.link_queue_ns > 0.0) {
    for (LinkIndex l : routing_->route(memory_node, cpu_node)) {
      latency += queue_ns(link_resource(l), p.link_queue_ns, p.queue_exponent, at);
    }
  }
  return latency;
}

void BandwidthModel::add_route(std::vector<ResourceUse>& uses, NodeIndex from, NodeIndex to,
                               double coefficient) const {
  const std::vector<LinkIndex>& route = routing_->route(from, to);
  for (std::size_t i = 0; i < route.size(); ++i) {
    uses.push_back(ResourceUse{link_resource(route[i]), coefficient});
    if (i + 1 < route.size()) {
      const int forwarding = forwarding_resource_[topology_->links[route[i]].to];
      if (forwarding >= 0) uses.push_back(ResourceUse{forwarding, coefficient});
    }
  }
}

std::vector<LinkIndex> BandwidthModel::build_probe_tree(NodeIndex prober, NodeIndex skipped) const {
  std::vector<bool> in_tree(topology_->links.size(), false);
  for (NodeIndex k = 0; k < static_cast<NodeIndex>(topology_->nodes.size()); ++k) {
    // Only nodes with cores hold lines in their caches: routers and CPU-less memory nodes (HBM in
    // flat mode, CXL expanders) are never probed.
    if (k == prober || k == skipped || !topology_->nodes[k].has_cores()) continue;
    for (LinkIndex l : routing_->route(prober, k)) in_tree[l] = true;
  }
  std::vector<LinkIndex> tree;
  for (std::size_t l = 0; l < in_tree.size(); ++l) {
    if (in_tree[l]) tree.push_back(static_cast<LinkIndex>(l));
  }
  return tree;
}

void BandwidthModel::add_access(std::vector<ResourceUse>& uses, NodeIndex cpu_node, NodeIndex memory_node,
                                double fraction, bool write) const {
  if (!write) {
    uses.push_back(ResourceUse{memory_resource_[memory_node], fraction});
    add_route(uses, memory_node, cpu_node, fraction);
  } else {
    const Node& w = topology_->nodes[memory_node];
    const double write_cost = w.memory_write_bandwidth_gbps ? w.memory_read_bandwidth_gbps / *w.memory_write_bandwidth_gbps : 1.0;
    uses.push_back(ResourceUse{memory_resource_[memory_node], fraction * (1.0 + write_cost)});
    add_route(uses, memory_node, cpu_node, fraction);
    add_route(uses, cpu_node, memory_node, fraction);
  }
  const std::size_t before = uses.size();
  add_probes(uses, cpu_node, memory_node);
  for (std::size_t k = before; k < uses.size(); ++k) uses[k].coefficient *= fraction;
}

std::vector<ResourceUse> BandwidthModel::read_terms(NodeIndex cpu_node, NodeIndex memory_node) {
  if (cpu_node < 0 || memory_node < 0 || static_cast<std::size_t>(std::max(cpu_node, memory_node)) >= topology_->nodes.size() ||
      !topology_->nodes[memory_node].has_memory()) {
    throw std::invalid_argument("read_terms: no such reader node or memory node");
  }
  Stream s;
  s.cpu_node = cpu_node;
  s.read_node = memory_node;
  return stream_terms(s, cpu_node);
}

const std::vector<ResourceUse>& BandwidthModel::stream_terms(const Stream& st, NodeIndex cpu_node) {
  // A spread that is one node with fraction 1 adds the very terms of that node as read_node or
  // write_node (the same add_access call), so it shares their cache entry.
  NodeIndex read = st.read_node;
  NodeIndex write = st.write_node;
  bool spread = false;
  const auto one_node = [&spread](std::span<const NodeShare> shares, NodeIndex& node) {
    if (shares.empty()) return;
    if (node < 0 && shares.size() == 1 && shares.front().fraction == 1.0) {
      node = shares.front().node;
    } else {
      spread = true;
    }
  };
  one_node(st.read_spread, read);
  one_node(st.write_spread, write);
  std::vector<ResourceUse>* target = &spread_terms_;
  if (!spread) {
    const std::size_t n = topology_->nodes.size() + 1;
    const std::size_t key = (static_cast<std::size_t>(cpu_node) * n + static_cast<std::size_t>(read + 1)) * n +
                            static_cast<std::size_t>(write + 1);
    if (term_cache_.empty()) term_cache_.resize((n - 1) * n * n);
    target = &term_cache_[key];
    if (!target->empty()) return *target;
  }
  std::vector<ResourceUse>& terms = *target;
  terms.clear();
  uses_.clear();
  if (st.read_node >= 0) add_access(uses_, cpu_node, st.read_node, 1.0, false);
  for (const NodeShare& share : st.read_spread) add_access(uses_, cpu_node, share.node, share.fraction, false);
  if (st.write_node >= 0) add_access(uses_, cpu_node, st.write_node, 1.0, true);
  for (const NodeShare& share : st.write_spread) add_access(uses_, cpu_node, share.node, share.fraction, true);
  // One term per resource: several routes (responses, probes) often share links.
  std::sort(uses_.begin(), uses_.end(), [](const ResourceUse& a, const ResourceUse& b) { return a.resource < b.resource; });
  for (const ResourceUse& use : uses_) {
    if (!terms.empty() && terms.back().resource == use.resource) {
      terms.back().coefficient += use.coefficient;
    } else {
      terms.push_back(use);
    }
  }
  return terms;
}

double BandwidthModel::pair_latency_ns(NodeIndex cpu_node, NodeIndex memory_node, const std::vector<double>& at) {
  double& cached = pair_latency_[static_cast<std::size_t>(cpu_node) * topology_->nodes.size() + memory_node];
  if (std::isnan(cached)) cached = loaded_latency_ns(cpu_node, memory_node, at);
  return cached;
}

double BandwidthModel::stream_latency_cached_ns(const Stream& st, NodeIndex cpu_node, const std::vector<double>& at) {
  double latency = 0.0;
  if (st.read_node >= 0) latency += pair_latency_ns(cpu_node, st.read_node, at);
  for (const NodeShare& share : st.read_spread) latency += share.fraction * pair_latency_ns(cpu_node, share.node, at);
  if (st.write_node >= 0) latency += pair_latency_ns(cpu_node, st.write_node, at);
  for (const NodeShare& share : st.write_spread) latency += share.fraction * pair_latency_ns(cpu_node, share.node, at);
  return latency;
}

void BandwidthModel::add_probes(std::vector<ResourceUse>& uses, NodeIndex requester, NodeIndex home) const {
  const Coherence& c = topology_->coherence;
  if (c.probe_bytes_per_line <= 0.0 && c.response_bytes_per_line <= 0.0) return;
  const double probe = c.probe_bytes_per_line / topology_->performance.cache_line_bytes;
  const double response = c.response_bytes_per_line / topology_->performance.cache_line_bytes;
  const bool source = c.protocol == CoherenceProtocol::kSourceSnoop;
  const double scale = c.protocol == CoherenceProtocol::kDirectory ? c.directory_probe_fraction.value_or(1.0) : 1.0;
  if (scale <= 0.0) return;
  // A CPU-less home (HBM in flat mode, a CXL expander) has its home agent in the socket it hangs
  // off: the first node with cores on its route towards the requester probes for it.
  NodeIndex agent = home;
  if (!topology_->nodes[home].has_cores()) {
    for (LinkIndex l : routing_->route(home, requester)) {
      agent = topology_->links[l].to;
      if (topology_->nodes[agent].has_cores()) break;
    }
  }
  const NodeIndex prober = source ? requester : agent;
  const NodeIndex skipped = requester;  // with source snoop the requester is the prober itself
  const int n = static_cast<int>(topology_->nodes.size());
  if (probe > 0.0) {
    for (LinkIndex l : probe_trees_[prober * n + skipped]) {
      uses.push_back(ResourceUse{link_resource(l), probe * scale});
      const NodeIndex via = topology_->links[l].from;
      if (via != prober && forwarding_resource_[via] >= 0) {
        uses.push_back(ResourceUse{forwarding_resource_[via], probe * scale});
      }
    }
  }
  if (response > 0.0) {
    for (NodeIndex k = 0; k < n; ++k) {
      if (k == prober || k == requester || !topology_->nodes[k].has_cores()) continue;  // as the tree
      add_route(uses, k, prober, response * scale);
    }
  }
}

namespace {

// Streams alike in everything the model looks at (node, memory, spreads, misses in flight,
// rate limit, share of the core's buffers) get the same rate.
bool same_spread(std::span<const NodeShare> a, std::span<const NodeShare> b) {
  // The same shares (a plan's transfers share their runs' spreads: sim/plan/plan.hpp, SharedSpread).
  if (a.data() == b.data() && a.size() == b.size()) return true;
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const NodeShare& x, const NodeShare& y) { return x.node == y.node && x.fraction == y.fraction; });
}

}  // namespace

void BandwidthModel::group_streams(std::span<const Stream> streams) {
  const int stream_count = static_cast<int>(streams.size());
  class_of_.assign(stream_count, -1);
  class_first_.clear();
  class_size_.clear();
  auto alike = [&](int a, int b) {
    const Stream& x = streams[a];
    const Stream& y = streams[b];
    return node_of_core(x.core) == node_of_core(y.core) && x.read_node == y.read_node && x.write_node == y.write_node &&
           x.lines_in_flight == y.lines_in_flight && x.rate_limit_bytes_per_s == y.rate_limit_bytes_per_s &&
           buffers_[a] == buffers_[b] && same_spread(x.read_spread, y.read_spread) &&
           same_spread(x.write_spread, y.write_spread);
  };
  // Candidates of one class share (cpu node, read node, write node): bucket by that key first.
  const std::size_t n = topology_->nodes.size() + 1;
  // The table is cleared only where the last grouping wrote (it has (N+1)^3 entries, 4913 on a
  // 16-node machine, against a few dozen classes).
  if (class_bucket_.size() != n * n * n) {
    class_bucket_.assign(n * n * n, -1);
    class_keys_.clear();
  }
  for (std::size_t key : class_keys_) class_bucket_[key] = -1;
  class_keys_.clear();
  class_next_.assign(stream_count, -1);
  for (int s = 0; s < stream_count; ++s) {
    const Stream& st = streams[s];
    const std::size_t key = (static_cast<std::size_t>(node_of_core(st.core)) * n + static_cast<std::size_t>(st.read_node + 1)) * n +
                            static_cast<std::size_t>(st.write_node + 1);
    int c = class_bucket_[key];
    while (c >= 0 && !alike(class_first_[c], s)) c = class_next_[c];
    if (c < 0) {
      c = static_cast<int>(class_first_.size());
      class_first_.push_back(s);
      class_size_.push_back(0.0);
      class_next_.resize(class_first_.size());
      class_next_[c] = class_bucket_[key];
      if (class_bucket_[key] < 0) class_keys_.push_back(key);
      class_bucket_[key] = c;
    }
    class_of_[s] = c;
    class_size_[c] += 1.0;
  }
}

const StreamRates& BandwidthModel::solve(std::span<const Stream> streams) {
  // The warm start, as the iteration below begins from it (0 where no call came before). A
  // repeat was checked when it was first solved, so it is answered before the checks.
  utilisation_guess_.resize(static_cast<std::size_t>(resource_count()), 0.0);
  if (const int seen = memo_.find(streams, utilisation_guess_); seen >= 0) {
    result_ = memo_.rates(seen);
    utilisation_guess_ = memo_.next_warm_start(seen);
    return result_;
  }
  const int stream_count = static_cast<int>(streams.size());
  const int node_count = static_cast<int>(topology_->nodes.size());
  auto has_memory = [&](NodeIndex node) {
    return node >= 0 && node < node_count && topology_->nodes[node].has_memory();
  };
  // Streams per core share its miss buffers.
  std::vector<int> per_core(core_node_.size(), 0);
  for (int s = 0; s < stream_count; ++s) {
    const Stream& st = streams[s];
    if (st.core < 0 || st.core >= core_count()) {
      throw std::invalid_argument("stream " + std::to_string(s) + ": no core " + std::to_string(st.core));
    }
    if (st.read_node < 0 && st.write_node < 0 && st.read_spread.empty() && st.write_spread.empty()) {
      throw std::invalid_argument("stream " + std::to_string(s) + ": reads and writes nothing");
    }
    if ((st.read_node >= 0 && !has_memory(st.read_node)) || (st.write_node >= 0 && !has_memory(st.write_node))) {
      throw std::invalid_argument("stream " + std::to_string(s) + ": names a node without memory");
    }
    for (std::span<const NodeShare> spread : {st.read_spread, st.write_spread}) {
      if (spread.empty()) continue;
      double sum = 0.0;
      for (const NodeShare& share : spread) {
        if (!has_memory(share.node) || !(share.fraction > 0.0)) {
          throw std::invalid_argument("stream " + std::to_string(s) + ": a spread names a node without memory or a fraction <= 0");
        }
        sum += share.fraction;
      }
      if (std::abs(sum - 1.0) > 1e-9) {
        throw std::invalid_argument("stream " + std::to_string(s) + ": spread fractions add up to " + std::to_string(sum) + ", not 1");
      }
    }
    if (!(st.lines_in_flight >= 0.0)) throw std::invalid_argument("stream " + std::to_string(s) + ": lines_in_flight must be >= 0");
    if (!(st.rate_limit_bytes_per_s >= 0.0)) {
      throw std::invalid_argument("stream " + std::to_string(s) + ": rate limit must be >= 0");
    }
    ++per_core[st.core];
  }

  buffers_.assign(stream_count, 0.0);
  for (int s = 0; s < stream_count; ++s) {
    const Stream& st = streams[s];
    const NodeIndex n = node_of_core(st.core);
    buffers_[s] = static_cast<double>(topology_->nodes[n].miss_buffers_per_core) / per_core[st.core];
    if (st.lines_in_flight > 0.0) buffers_[s] = std::min(buffers_[s], st.lines_in_flight);
  }
  group_streams(streams);
  const int class_count = static_cast<int>(class_first_.size());
  problem_.clear_flows();
  // In-cache path (ecm.hpp): alike streams share a node, an access kind and a buffer share (so a
  // core's stream count), hence one bound per class.
  const bool cache_path = !node_serial_s_.empty();
  class_serial_s_.assign(class_count, 0.0);
  class_cache_bound_.assign(class_count, std::numeric_limits<double>::infinity());
  for (int c = 0; c < class_count; ++c) {
    const Stream& st = streams[class_first_[c]];
    const std::vector<ResourceUse>& terms = stream_terms(st, node_of_core(st.core));
    problem_.add_flow(terms, MaxMinProblem::kUnbounded, class_size_[c]);
    if (!cache_path || st.lines_in_flight > 0.0) continue;  // random accesses: latency-bound, no stream through the levels
    // ECM's memory term: the controllers' share of a payload byte over their capacities.
    double memory_s = 0.0;
    for (const ResourceUse& use : terms) {
      if (resource_kinds_[use.resource] == ResourceKind::kMemoryController) memory_s += use.coefficient / capacities_[use.resource];
    }
    const int kind = (st.read_node >= 0 || !st.read_spread.empty() ? 1 : 0) + (st.write_node >= 0 || !st.write_spread.empty() ? 2 : 0);
    const std::size_t at = static_cast<std::size_t>(node_of_core(st.core)) * 4 + static_cast<std::size_t>(kind);
    const double sharing = per_core[st.core];
    class_serial_s_[c] = sharing * node_serial_s_[at];
    double bound = 1.0 / (sharing * (node_serial_s_[at] + memory_s));
    if (node_overlap_s_[at] > 0.0) bound = std::min(bound, 1.0 / (sharing * node_overlap_s_[at]));
    class_cache_bound_[c] = bound;
  }

  const int resources = resource_count();
  // Warm start: the previous call's utilisations (the simulator's consecutive events differ
  // little); a cold start from 0 when there is none.
  std::vector<double>& u = utilisation_guess_;
  u.resize(resources, 0.0);
  std::vector<double> last_residual(resources, 0.0);
  std::vector<double> last_u(resources, 0.0);
  result_.latency_ns.assign(stream_count, 0.0);
  result_.converged = false;
  const MaxMinSolution* solution = nullptr;
  const double line_bytes = topology_->performance.cache_line_bytes;
  // Bounds of every class at utilisations `at`: its streams' common bound times their number
  // (latencies recorded per class in class_latency_).
  auto bounds_at = [&](const std::vector<double>& at, std::vector<double>& bounds) {
    bounds.resize(class_count);
    class_latency_.resize(class_count);
    class_miss_bound_.resize(class_count);
    pair_latency_.assign(static_cast<std::size_t>(node_count) * node_count, std::numeric_limits<double>::quiet_NaN());
    queue_ns_.assign(static_cast<std::size_t>(resources), std::numeric_limits<double>::quiet_NaN());
    for (int c = 0; c < class_count; ++c) {
      const int s = class_first_[c];
      const Stream& st = streams[s];
      const NodeIndex n = node_of_core(st.core);
      const double latency = stream_latency_cached_ns(st, n, at);
      class_latency_[c] = latency;
      const double miss_bound = buffers_[s] * line_bytes / (latency * 1e-9);
      class_miss_bound_[c] = miss_bound;
      bounds[c] = class_size_[c] * std::min({miss_bound, class_cache_bound_[c], st.rate_limit_bytes_per_s});
    }
  };
  for (int round = 1; round <= kMaxRounds; ++round) {
    bounds_at(u, bounds_);
    for (int c = 0; c < class_count; ++c) problem_.set_rate_bound(c, bounds_[c]);
    // Round 1 solves the flows just added; later rounds change only their rate bounds.
    solution = &solver_.solve(problem_, round == 1 ? MaxMinFlows::kNew : MaxMinFlows::kSameAsLast);
    result_.rounds = round;
    double worst = 0.0;
    for (int r = 0; r < resources; ++r) {
      const double residual = solution->utilisations[r] - u[r];
      worst = std::max(worst, std::abs(residual));
      // Secant step on this resource's residual f = util(x(u)) - u; its slope is at most -1
      // (the map is non-increasing), so -1 (plain iteration) where the estimate says otherwise.
      double slope = -1.0;
      if (round > 1) {
        const double du = u[r] - last_u[r];
        if (std::abs(du) > kSecantMinStep) slope = std::min(-1.0, (residual - last_residual[r]) / du);
      }
      last_residual[r] = residual;
      last_u[r] = u[r];
      u[r] = std::max(0.0, u[r] - residual / slope);
    }
    if (worst < kTolerance) {
      result_.converged = true;
      break;
    }
    // Shortcut: when every stream is held by a saturated resource and stays below its bound at
    // the new utilisations, the bounds cannot change the max-min allocation: x is the fixed point.
    bool resource_bound = true;
    for (int c = 0; c < class_count && resource_bound; ++c) resource_bound = solution->bottlenecks[c] >= 0;
    if (resource_bound) {
      std::vector<double>& next_u = shortcut_utilisation_;
      next_u.assign(solution->utilisations.begin(), solution->utilisations.end());
      bounds_at(next_u, bounds_);
      bool below = true;
      for (int c = 0; c < class_count && below; ++c) below = solution->rates[c] <= bounds_[c];
      if (below) {
        u = next_u;
        result_.converged = true;
        break;
      }
    }
  }

  result_.rate_bytes_per_s.assign(stream_count, 0.0);
  result_.resource_load_bytes_per_s.assign(solution->loads.begin(), solution->loads.end());
  result_.utilisation.assign(solution->utilisations.begin(), solution->utilisations.end());
  result_.memory_rate_bytes_per_s.assign(stream_count, 0.0);
  result_.in_cache_s_per_byte.assign(stream_count, 0.0);
  result_.limits.assign(stream_count, StreamLimit::kResource);
  result_.bottleneck.assign(stream_count, -1);
  for (int s = 0; s < stream_count; ++s) {
    const int c = class_of_[s];
    const double rate = solution->rates[c] / class_size_[c];
    result_.rate_bytes_per_s[s] = rate;
    result_.latency_ns[s] = class_latency_[c];
    const int b = solution->bottlenecks[c];
    result_.memory_rate_bytes_per_s[s] = b >= 0 ? rate : class_miss_bound_[c];
    result_.in_cache_s_per_byte[s] = class_serial_s_[c];
    if (b >= 0) {
      result_.bottleneck[s] = b;
    } else {
      const double limit = streams[s].rate_limit_bytes_per_s;
      result_.limits[s] = rate >= limit                   ? StreamLimit::kRateLimit
                          : rate >= class_cache_bound_[c] ? StreamLimit::kCachePath
                                                          : StreamLimit::kMissBuffers;
    }
  }
  memo_.store(result_, utilisation_guess_);
  return result_;
}

}  // namespace numatwin::model
