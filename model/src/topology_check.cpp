#include "numatwin/model/topology_check.hpp"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "numatwin/model/input_error.hpp"

namespace numatwin::model {
namespace {

class Checker {
 public:
  Checker(const Topology& topology, const std::string& source) : t_(topology), source_(source) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& expectation) const {
    throw InputError(source_, pointer, expectation);
  }

  void positive(const std::string& pointer, double value) const {
    if (!(std::isfinite(value) && value > 0.0)) fail(pointer, "expected a number > 0, found " + format(value));
  }
  void non_negative(const std::string& pointer, double value) const {
    if (!(std::isfinite(value) && value >= 0.0)) fail(pointer, "expected a number >= 0, found " + format(value));
  }

  static std::string format(double value) {
    std::string text = std::to_string(value);
    while (text.size() > 1 && text.back() == '0') text.pop_back();
    if (!text.empty() && text.back() == '.') text.pop_back();
    return text;
  }

  void node(std::size_t index) const {
    const Node& n = t_.nodes[index];
    const std::string p = "/nodes/" + std::to_string(index);
    if (n.position && !(std::isfinite(n.position->x) && std::isfinite(n.position->y))) {
      fail(p + "/position", "expected finite coordinates");
    }
    if (n.forwarding_bandwidth_gbps) positive(p + "/forwarding_bandwidth_gbps", *n.forwarding_bandwidth_gbps);
    if (n.kind == NodeKind::kRouter) {
      if (n.cores != 0 || n.memory_capacity_bytes != 0 || !n.caches.empty()) {
        fail(p, "a router has no cores, caches or memory; use \"kind\": \"node\" for a NUMA node");
      }
      return;
    }
    if (n.cores < 0) fail(p + "/cores", "expected an integer >= 0");
    if (n.threads_per_core < 1) fail(p + "/threads_per_core", "expected an integer >= 1");
    positive(p + "/frequency_ghz", n.frequency_ghz);
    for (std::size_t c = 0; c < n.caches.size(); ++c) {
      const CacheLevel& cache = n.caches[c];
      const std::string cp = p + "/caches/" + std::to_string(c);
      if (cache.level < 1) fail(cp + "/level", "expected an integer >= 1");
      if (cache.size_bytes < 1) fail(cp + "/size_bytes", "expected an integer >= 1");
      if (cache.shared_by_cores < 1) fail(cp + "/shared_by_cores", "expected an integer >= 1");
    }
    if (n.memory_capacity_bytes < 0) fail(p + "/memory_capacity_bytes", "expected an integer >= 0");
    if (!n.has_cores() && !n.has_memory()) {
      fail(p, "a node needs cores > 0 or memory_capacity_bytes > 0 (a node with neither is a router)");
    }
    if (n.has_memory()) {
      positive(p + "/memory_read_bandwidth_gbps", n.memory_read_bandwidth_gbps);
      positive(p + "/local_latency_ns", n.local_latency_ns);
    } else {
      non_negative(p + "/memory_read_bandwidth_gbps", n.memory_read_bandwidth_gbps);
      non_negative(p + "/local_latency_ns", n.local_latency_ns);
    }
    if (n.memory_write_bandwidth_gbps) positive(p + "/memory_write_bandwidth_gbps", *n.memory_write_bandwidth_gbps);
    if (n.has_cores() && n.miss_buffers_per_core < 1) fail(p + "/miss_buffers_per_core", "expected an integer >= 1");
    if (n.memory_kind && !n.has_memory()) fail(p + "/memory_kind", "allowed only for nodes with memory_capacity_bytes > 0");
    if (n.memory_side_cache) {
      const std::string cp = p + "/memory_side_cache";
      if (!n.has_memory()) fail(cp, "allowed only for nodes with memory_capacity_bytes > 0");
      if (n.memory_side_cache->capacity_bytes < 1) fail(cp + "/capacity_bytes", "expected an integer >= 1");
      positive(cp + "/latency_ns", n.memory_side_cache->latency_ns);
      positive(cp + "/read_bandwidth_gbps", n.memory_side_cache->read_bandwidth_gbps);
    }
  }

  void performance() const {
    const PerformanceParameters& p = t_.performance;
    if (p.cache_line_bytes < 1) fail("/performance/cache_line_bytes", "expected an integer >= 1");
    non_negative("/performance/memory_queue_ns", p.memory_queue_ns);
    non_negative("/performance/link_queue_ns", p.link_queue_ns);
    positive("/performance/queue_exponent", p.queue_exponent);
    for (const auto& [kind, curve] : t_.memory_kind_curves) {
      const std::string cp = "/performance/memory_kind_curves/" + std::string(memory_kind_name(kind));
      non_negative(cp + "/memory_queue_ns", curve.memory_queue_ns);
      positive(cp + "/queue_exponent", curve.queue_exponent);
    }
  }

  void measurements() const {
    std::map<std::string, std::size_t> ids;
    const int node_count = static_cast<int>(t_.nodes.size());
    for (std::size_t i = 0; i < t_.measurements.size(); ++i) {
      const Measurement& m = t_.measurements[i];
      const std::string p = "/measurements/" + std::to_string(i);
      if (m.id.empty()) fail(p + "/id", "expected a non-empty string");
      auto [it, inserted] = ids.emplace(m.id, i);
      if (!inserted) fail(p + "/id", "duplicate measurement id \"" + m.id + "\" (also /measurements/" + std::to_string(it->second) + "/id)");
      if (m.streams.empty()) fail(p + "/streams", "expected at least one stream");
      std::map<NodeIndex, int> threads_on;
      for (std::size_t k = 0; k < m.streams.size(); ++k) {
        const MeasurementStream& st = m.streams[k];
        const std::string sp = p + "/streams/" + std::to_string(k);
        if (st.cpu_node < 0 || st.cpu_node >= node_count || !t_.nodes[st.cpu_node].has_cores()) {
          fail(sp + "/cpu_node", "expected a node with cores");
        }
        if (st.memory_node < 0 || st.memory_node >= node_count || !t_.nodes[st.memory_node].has_memory()) {
          fail(sp + "/memory_node", "expected a node with memory");
        }
        if (st.threads < 1) fail(sp + "/threads", "expected an integer >= 1");
        threads_on[st.cpu_node] += st.threads;
        const Node& cpu = t_.nodes[st.cpu_node];
        if (threads_on[st.cpu_node] > cpu.hardware_threads()) {
          fail(sp + "/threads", "node " + cpu.id + " has " + std::to_string(cpu.hardware_threads()) +
                                    " hardware threads; the measurement's streams put " +
                                    std::to_string(threads_on[st.cpu_node]) + " threads on it");
        }
      }
      if (m.metric == MeasurementMetric::kIdleLatencyNs && (m.streams.size() != 1 || m.streams[0].threads != 1)) {
        fail(p + "/streams", "an idle_latency_ns measurement is one stream of one thread");
      }
      positive(p + "/value", m.value);
      if (m.source.empty()) fail(p + "/source", "expected a non-empty string");
    }
  }

  // A symmetric file entry is stored as two consecutive directed links sharing spec_index.
  [[nodiscard]] bool symmetric(std::size_t link) const {
    const int spec = t_.links[link].spec_index;
    return (link > 0 && t_.links[link - 1].spec_index == spec) ||
           (link + 1 < t_.links.size() && t_.links[link + 1].spec_index == spec);
  }

  void links() const {
    const int node_count = static_cast<int>(t_.nodes.size());
    std::map<std::pair<NodeIndex, NodeIndex>, int> seen;
    int previous_spec = -1;
    for (std::size_t i = 0; i < t_.links.size(); ++i) {
      const Link& l = t_.links[i];
      const std::string p = "/links/" + std::to_string(l.spec_index);
      const bool sym = symmetric(i);
      if (l.spec_index != previous_spec && l.spec_index != previous_spec + 1) {
        fail(p, "links must be numbered in file order (internal: spec_index " + std::to_string(l.spec_index) +
                    " after " + std::to_string(previous_spec) + ")");
      }
      if (sym && i > 0 && t_.links[i - 1].spec_index == l.spec_index) {
        const Link& a = t_.links[i - 1];
        if (a.from != l.to || a.to != l.from || a.bandwidth_gbps != l.bandwidth_gbps || a.latency_ns != l.latency_ns) {
          fail(p, "the two directions of a symmetric link must mirror each other (internal)");
        }
        if (i >= 2 && t_.links[i - 2].spec_index == l.spec_index) {
          fail(p, "a link entry describes at most two directed links (internal)");
        }
      }
      previous_spec = l.spec_index;
      const std::string from_field = sym ? "/between/0" : "/from";
      const std::string to_field = sym ? "/between/1" : "/to";
      if (l.from < 0 || l.from >= node_count) fail(p + from_field, "expected the id of a node in /nodes");
      if (l.to < 0 || l.to >= node_count) fail(p + to_field, "expected the id of a node in /nodes");
      if (l.from == l.to) fail(p + to_field, "expected a node other than the link's other end (no self-links)");
      positive(p + (sym ? "/bandwidth_per_direction_gbps" : "/bandwidth_gbps"), l.bandwidth_gbps);
      non_negative(p + "/latency_ns", l.latency_ns);
      auto [it, inserted] = seen.emplace(std::make_pair(l.from, l.to), l.spec_index);
      if (!inserted) {
        fail(p, "duplicate link " + t_.nodes[l.from].id + "->" + t_.nodes[l.to].id + " (also in /links/" +
                    std::to_string(it->second) + "); combine parallel links into one with their summed bandwidth");
      }
    }
  }

  // The nodes each node's links lead to (`forward`) or come from (not `forward`).
  [[nodiscard]] std::vector<std::vector<NodeIndex>> neighbours(bool forward) const {
    std::vector<std::vector<NodeIndex>> out(t_.nodes.size());
    for (const Link& l : t_.links) {
      if (l.from < 0 || l.to < 0) continue;  // links() has refused these
      if (forward) {
        out[static_cast<std::size_t>(l.from)].push_back(l.to);
      } else {
        out[static_cast<std::size_t>(l.to)].push_back(l.from);
      }
    }
    return out;
  }

  // Every node a path of links leads to from `source` (in `next`'s direction): O(nodes + links).
  [[nodiscard]] static std::vector<bool> reachable_from(NodeIndex source, const std::vector<std::vector<NodeIndex>>& next) {
    std::vector<bool> seen(next.size(), false);
    std::vector<NodeIndex> stack{source};
    seen[static_cast<std::size_t>(source)] = true;
    while (!stack.empty()) {
      const NodeIndex n = stack.back();
      stack.pop_back();
      for (NodeIndex to : next[static_cast<std::size_t>(n)]) {
        if (!seen[static_cast<std::size_t>(to)]) {
          seen[static_cast<std::size_t>(to)] = true;
          stack.push_back(to);
        }
      }
    }
    return seen;
  }

  // Every core reaches every memory and back exactly when all nodes with cores or memory lie in
  // one strongly connected component (c -> m -> c' for any two), i.e. one node with cores
  // reaches all of them along the links and against them: O(nodes + links), where a search
  // from every node costs nodes x (nodes + links) (a 4096-node hypercube: 60 s with a scan of
  // every link per step, issue 39 E). Only a machine that fails pays for the pairwise search
  // that names the first pair without a path.
  [[nodiscard]] bool cores_and_memories_connected(const std::vector<std::vector<NodeIndex>>& out) const {
    const std::size_t n = t_.nodes.size();
    std::size_t first = n;
    for (std::size_t i = 0; i < n && first == n; ++i) {
      if (t_.nodes[i].has_cores()) first = i;
    }
    if (first == n) return true;  // check_topology refuses a machine without cores
    const std::vector<bool> there = reachable_from(static_cast<NodeIndex>(first), out);
    const std::vector<bool> back = reachable_from(static_cast<NodeIndex>(first), neighbours(false));
    for (std::size_t i = 0; i < n; ++i) {
      if ((t_.nodes[i].has_cores() || t_.nodes[i].has_memory()) && !(there[i] && back[i])) return false;
    }
    return true;
  }

  void connectivity() const {
    const std::size_t n = t_.nodes.size();
    const std::vector<std::vector<NodeIndex>> out = neighbours(true);
    if (!cores_and_memories_connected(out)) {
      std::vector<std::vector<bool>> reach;
      reach.reserve(n);
      for (std::size_t i = 0; i < n; ++i) reach.push_back(reachable_from(static_cast<NodeIndex>(i), out));
      for (std::size_t c = 0; c < n; ++c) {
        if (!t_.nodes[c].has_cores()) continue;
        for (std::size_t m = 0; m < n; ++m) {
          if (!t_.nodes[m].has_memory()) continue;
          if (!reach[c][m]) {
            fail("/nodes/" + std::to_string(c), "node " + t_.nodes[c].id + " has cores but no path of links to the memory of node " +
                                                    t_.nodes[m].id + "; expected a connected machine");
          }
          if (!reach[m][c]) {
            fail("/nodes/" + std::to_string(m), "no path of links from the memory of node " + t_.nodes[m].id +
                                                    " back to the cores of node " + t_.nodes[c].id +
                                                    "; expected a connected machine");
          }
        }
      }
    }
    std::vector<bool> in(n, false);
    std::vector<bool> leaves(n, false);
    for (const Link& l : t_.links) {
      in[static_cast<std::size_t>(l.to)] = true;
      leaves[static_cast<std::size_t>(l.from)] = true;
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (t_.nodes[r].kind != NodeKind::kRouter) continue;
      if (!in[r] || !leaves[r]) fail("/nodes/" + std::to_string(r), "router " + t_.nodes[r].id + " needs links both in and out");
    }
  }

  void routes() const {
    std::map<std::pair<NodeIndex, NodeIndex>, std::size_t> pairs;
    const int node_count = static_cast<int>(t_.nodes.size());
    for (std::size_t r = 0; r < t_.routes.size(); ++r) {
      const std::vector<NodeIndex>& path = t_.routes[r].path;
      const std::string p = "/routes/" + std::to_string(r) + "/path";
      if (path.size() < 2) fail(p, "expected at least two node ids (source and destination)");
      std::set<NodeIndex> visited;
      for (std::size_t k = 0; k < path.size(); ++k) {
        const std::string kp = p + "/" + std::to_string(k);
        if (path[k] < 0 || path[k] >= node_count) fail(kp, "expected the id of a node in /nodes");
        if (!visited.insert(path[k]).second) {
          fail(kp, "node " + t_.nodes[path[k]].id + " appears twice; expected a path (no node repeated)");
        }
        if (k > 0 && !t_.find_link(path[k - 1], path[k])) {
          fail(kp, "no link " + t_.nodes[path[k - 1]].id + "->" + t_.nodes[path[k]].id +
                       "; expected consecutive nodes to be linked");
        }
      }
      auto [it, inserted] = pairs.emplace(std::make_pair(path.front(), path.back()), r);
      if (!inserted) {
        fail(p, "a second route from " + t_.nodes[path.front()].id + " to " + t_.nodes[path.back()].id +
                    " (also /routes/" + std::to_string(it->second) + "); expected one route per ordered pair");
      }
    }
  }

  void coherence() const {
    const Coherence& c = t_.coherence;
    non_negative("/coherence/probe_bytes_per_line", c.probe_bytes_per_line);
    non_negative("/coherence/response_bytes_per_line", c.response_bytes_per_line);
    non_negative("/coherence/remote_access_overhead_ns", c.remote_access_overhead_ns);
    if (c.protocol == CoherenceProtocol::kDirectory) {
      if (!c.directory_probe_fraction) {
        fail("/coherence/directory_probe_fraction", "missing required field (protocol is \"directory\")");
      }
      const double f = *c.directory_probe_fraction;
      if (!(std::isfinite(f) && f >= 0.0 && f <= 1.0)) {
        fail("/coherence/directory_probe_fraction", "expected a fraction in [0, 1], found " + format(f));
      }
    } else if (c.directory_probe_fraction) {
      fail("/coherence/directory_probe_fraction", "allowed only with \"protocol\": \"directory\"");
    }
  }

 private:
  const Topology& t_;
  const std::string& source_;
};

}  // namespace

void check_node_ids(const Topology& topology, const std::string& source_name) {
  const Checker checker(topology, source_name);
  std::map<std::string, std::size_t> first_use;
  for (std::size_t i = 0; i < topology.nodes.size(); ++i) {
    const std::string& id = topology.nodes[i].id;
    const std::string p = "/nodes/" + std::to_string(i) + "/id";
    if (id.empty()) checker.fail(p, "expected a non-empty string");
    auto [it, inserted] = first_use.emplace(id, i);
    if (!inserted) {
      checker.fail(p, "duplicate node id \"" + id + "\" (also /nodes/" + std::to_string(it->second) +
                          "/id); expected unique ids");
    }
  }
}

void check_topology(const Topology& topology, const std::string& source_name) {
  const Checker checker(topology, source_name);
  if (topology.name.empty()) checker.fail("/name", "expected a non-empty string");
  if (topology.numa_nodes().empty()) checker.fail("/nodes", "expected at least one node of kind \"node\"");
  if (topology.total_cores() == 0) checker.fail("/nodes", "expected at least one node with cores > 0");
  check_node_ids(topology, source_name);
  for (std::size_t i = 0; i < topology.nodes.size(); ++i) checker.node(i);
  checker.links();
  checker.connectivity();
  checker.routes();
  checker.coherence();
  checker.performance();
  checker.measurements();
  if (topology.provenance.source.empty()) checker.fail("/provenance/source", "expected a non-empty string");
}

}  // namespace numatwin::model
