#include "numatwin/sim/search/weights_search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <numeric>
#include <stdexcept>

#include "numatwin/model/routing.hpp"
#include "numatwin/sim/engine/flows.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_input.hpp"

namespace numatwin::sim {
namespace {

// A search's simulations and the intervals' samples read only the time (simulation.hpp).
constexpr SimulationOptions kTimeOnly{.record_timeline = false, .time_only = true};

MemoryPolicy weighted(const InterleaveWeights& w) {
  MemoryPolicy p;
  p.kind = MemoryPolicyKind::kWeightedInterleave;
  p.global = w;
  return p;
}

// Drops nodes of weight 0.
InterleaveWeights without_zeros(const InterleaveWeights& w) {
  InterleaveWeights out;
  for (std::size_t i = 0; i < w.nodes.size(); ++i) {
    if (w.weights[i] <= 0) continue;
    out.nodes.push_back(w.nodes[i]);
    out.weights.push_back(w.weights[i]);
  }
  return out;
}

// The moves of one weight vector (see the header).
std::vector<InterleaveWeights> moves(const InterleaveWeights& w, int max_weight) {
  std::vector<InterleaveWeights> out;
  int positive = 0;
  for (int x : w.weights) positive += x > 0 ? 1 : 0;
  for (std::size_t i = 0; i < w.weights.size(); ++i) {
    const int x = w.weights[i];
    for (int y : {x + 1, x - 1, 2 * x, x / 2, 0}) {
      if (y == x || y < 0 || y > max_weight) continue;
      if (y == 0 && x > 0 && positive <= 1) continue;  // keep one node
      InterleaveWeights m = w;
      m.weights[i] = y;
      out.push_back(std::move(m));
    }
  }
  return out;
}

struct Candidate {
  std::vector<InterleaveWeights> vectors;  // one (global) or one per cpu node
};

MemoryPolicy policy_of(const Candidate& c, const std::vector<model::NodeIndex>& cpu_nodes) {
  if (cpu_nodes.empty()) return weighted(without_zeros(c.vectors[0]));
  MemoryPolicy p;
  p.kind = MemoryPolicyKind::kWeightedInterleave;
  for (std::size_t k = 0; k < cpu_nodes.size(); ++k)
    p.by_node.push_back(NodeWeights{cpu_nodes[k], without_zeros(c.vectors[k])});
  return p;
}

// Policy times already simulated (a simulation is a pure function of the policy). Read and
// written only between the parallel evaluations, never inside them: sim/ has no threads of its
// own and no locks; ParallelFor's bodies only write their own slots.
class PolicyTimes {
 public:
  [[nodiscard]] std::optional<double> find(const MemoryPolicy& policy) const {
    const auto it = times_.find(memory_policy_key(policy));
    if (it == times_.end()) return std::nullopt;
    return it->second;
  }
  void add(const MemoryPolicy& policy, double time_s) { times_.emplace(memory_policy_key(policy), time_s); }
  // One policy's time: known, or simulated now and kept.
  double time(const MemoryPolicy& policy, const PolicyTime& simulate) {
    if (const std::optional<double> seen = find(policy)) return *seen;
    const double time_s = simulate(policy);
    add(policy, time_s);
    return time_s;
  }

 private:
  std::map<std::vector<int>, double> times_;
};

// The search; `known` (may be null) holds the times of policies simulated before.
WeightSearchResult search(Candidate current, const std::vector<model::NodeIndex>& cpu_nodes,
                          const PolicyTime& time_of, int max_weight, const ParallelFor& parallel,
                          PolicyTimes* known) {
  if (max_weight < 1 || max_weight > 255)
    throw std::invalid_argument("the largest weight must be 1..255");
  for (const InterleaveWeights& v : current.vectors) {
    if (v.nodes.empty() || v.nodes.size() != v.weights.size())
      throw std::invalid_argument("weights: an empty or ragged start vector");
  }
  WeightSearchResult result;
  double best = known != nullptr ? known->time(policy_of(current, cpu_nodes), time_of)
                                 : time_of(policy_of(current, cpu_nodes));
  result.evaluations = 1;
  for (int round = 0; round < 64; ++round) {
    std::vector<Candidate> next;
    for (std::size_t k = 0; k < current.vectors.size(); ++k) {
      for (InterleaveWeights& m : moves(current.vectors[k], max_weight)) {
        Candidate c = current;
        c.vectors[k] = std::move(m);
        next.push_back(std::move(c));
      }
    }
    // With several vectors, also each move of the first applied to every vector that equals it
    // (one vector alone may not change the time when the slowest socket sets it).
    if (current.vectors.size() > 1) {
      for (const InterleaveWeights& m : moves(current.vectors[0], max_weight)) {
        Candidate c = current;
        for (InterleaveWeights& v : c.vectors)
          if (v.nodes == current.vectors[0].nodes && v.weights == current.vectors[0].weights) v = m;
        next.push_back(std::move(c));
      }
    }
    std::vector<double> times(next.size(), std::numeric_limits<double>::infinity());
    std::vector<MemoryPolicy> policies;
    std::vector<std::size_t> unknown;  // the candidates to simulate
    for (std::size_t i = 0; i < next.size(); ++i) {
      policies.push_back(policy_of(next[i], cpu_nodes));
      const std::optional<double> seen = known != nullptr ? known->find(policies.back()) : std::nullopt;
      if (seen) {
        times[i] = *seen;
      } else {
        unknown.push_back(i);
      }
    }
    parallel(unknown.size(), [&](std::size_t k) { times[unknown[k]] = time_of(policies[unknown[k]]); });
    if (known != nullptr)
      for (const std::size_t i : unknown) known->add(policies[i], times[i]);
    result.evaluations += static_cast<int>(next.size());
    const auto it = std::min_element(times.begin(), times.end());
    if (it == times.end() || !(*it < best * (1.0 - 1e-9))) break;
    best = *it;
    current = next[static_cast<std::size_t>(it - times.begin())];
  }
  for (InterleaveWeights& v : current.vectors) v = reduced(v);
  result.policy = policy_of(current, cpu_nodes);
  result.time_s = best;
  return result;
}

}  // namespace

InterleaveWeights reduced(InterleaveWeights weights) {
  int g = 0;
  for (int w : weights.weights) g = w > 0 ? std::gcd(g, w) : g;
  if (g > 1)
    for (int& w : weights.weights) w /= g;
  return weights;
}

InterleaveWeights weights_from_bandwidth(const std::vector<model::NodeIndex>& nodes,
                                         const std::vector<double>& bandwidth_gbps, int largest) {
  if (nodes.empty() || nodes.size() != bandwidth_gbps.size())
    throw std::invalid_argument("weights: one bandwidth per node needed");
  const double top = *std::max_element(bandwidth_gbps.begin(), bandwidth_gbps.end());
  InterleaveWeights w;
  w.nodes = nodes;
  for (double b : bandwidth_gbps) {
    if (!(b > 0.0)) throw std::invalid_argument("weights: a node's bandwidth must be > 0");
    w.weights.push_back(std::max(1, static_cast<int>(std::lround(largest * b / top))));
  }
  return reduced(w);
}

std::vector<double> firmware_bandwidth_gbps(const model::Topology& topology,
                                            const std::vector<model::NodeIndex>& nodes) {
  const model::Routing routing(topology);
  std::vector<double> out;
  for (model::NodeIndex m : nodes) {
    const model::Node& node = topology.nodes[static_cast<std::size_t>(m)];
    double b = node.memory_read_bandwidth_gbps;
    if (!node.has_cores()) {
      // The nearest node with cores, and the narrowest link on the route from the memory.
      model::NodeIndex nearest = -1;
      for (std::size_t c = 0; c < topology.nodes.size(); ++c) {
        if (!topology.nodes[c].has_cores()) continue;
        const auto ci = static_cast<model::NodeIndex>(c);
        if (nearest < 0 || routing.access_latency_ns(ci, m) < routing.access_latency_ns(nearest, m))
          nearest = ci;
      }
      if (nearest >= 0)
        for (model::LinkIndex l : routing.route(m, nearest))
          b = std::min(b, topology.links[static_cast<std::size_t>(l)].bandwidth_gbps);
    }
    out.push_back(b);
  }
  return out;
}

std::vector<double> isolated_bandwidth_gbps(const model::Topology& topology,
                                            model::NodeIndex cpu_node,
                                            const std::vector<model::NodeIndex>& nodes) {
  const model::Routing routing(topology);
  const model::BandwidthModel model(topology, routing);
  const model::Node& cpus = topology.nodes[static_cast<std::size_t>(cpu_node)];
  if (!cpus.has_cores())
    throw std::invalid_argument("weights: node " + cpus.id + " has no cores to measure from");
  std::vector<double> out;
  for (model::NodeIndex m : nodes) {
    Flow f;
    for (int c = 0; c < cpus.cores; ++c) f.cores.push_back(model.core_of(cpu_node, c));
    f.read = {model::NodeShare{m, 1.0}};
    const FlowsResult r = run_flows(topology, {f});
    out.push_back(r.start.flows.front().rate_bytes_per_s / 1e9);
  }
  return out;
}

namespace {

WeightSearchResult global_search(const std::vector<InterleaveWeights>& starts, const PolicyTime& time_of,
                                 int max_weight, const ParallelFor& parallel, PolicyTimes* known) {
  if (starts.empty()) throw std::invalid_argument("weights: no start vector");
  WeightSearchResult best;
  int evaluations = 0;
  for (const InterleaveWeights& start : starts) {
    WeightSearchResult r = search(Candidate{{start}}, {}, time_of, max_weight, parallel, known);
    evaluations += r.evaluations;
    if (evaluations == r.evaluations || r.time_s < best.time_s) best = std::move(r);
  }
  best.evaluations = evaluations;
  return best;
}

WeightSearchResult per_node_search(const std::vector<model::NodeIndex>& cpu_nodes, const InterleaveWeights& start,
                                   const PolicyTime& time_of, int max_weight, const ParallelFor& parallel,
                                   PolicyTimes* known) {
  if (cpu_nodes.empty())
    throw std::invalid_argument("weights: no node with workers for per-node vectors");
  return search(Candidate{std::vector<InterleaveWeights>(cpu_nodes.size(), start)}, cpu_nodes,
                time_of, max_weight, parallel, known);
}

}  // namespace

WeightSearchResult search_global_weights(const std::vector<InterleaveWeights>& starts,
                                         const PolicyTime& time_of, int max_weight,
                                         const ParallelFor& parallel) {
  return global_search(starts, time_of, max_weight, parallel, nullptr);
}

WeightSearchResult search_per_node_weights(const std::vector<model::NodeIndex>& cpu_nodes,
                                           const InterleaveWeights& start,
                                           const PolicyTime& time_of, int max_weight,
                                           const ParallelFor& parallel) {
  return per_node_search(cpu_nodes, start, time_of, max_weight, parallel, nullptr);
}

WeightsAnswer answer_weights(const model::Topology& t, const WorkloadSpec& spec,
                             const CostBasis& basis, std::vector<model::NodeIndex> memory,
                             int max_weight, int samples, const ParallelFor& parallel) {
  if (is_shuffle_family(spec.kind))
    throw std::invalid_argument(
        "--workload " + workload_kind_name(spec.kind) +
        ": the shuffle family places its buffers itself (each producer's on its node), so weights "
        "do "
        "not apply; give an operator workload (count, median, hash-join, index-join, "
        "sort-merge-join, partitioned-aggregation)");
  if (samples < 0 || samples == 1)
    throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
  if (max_weight < 1 || max_weight > 255)
    throw std::invalid_argument(
        "--largest-weight must be 1..255 (the kernel's weights are 1..255)");
  if (spec.placement.kind == PlacementKind::kNone)
    throw std::invalid_argument(
        "--placement none: the threads' nodes are not known; give dense, sparse or a CPU list");
  if (memory.empty())
    for (std::size_t n = 0; n < t.nodes.size(); ++n)
      if (t.nodes[n].has_memory()) memory.push_back(static_cast<model::NodeIndex>(n));
  if (memory.size() < 2)
    throw std::invalid_argument("--nodes: weighted interleave needs at least two memory nodes; " +
                                t.name + " gives " + std::to_string(memory.size()));
  // The nodes the workers run on: the per-node vectors' owners, the isolated measurement's
  // initiator.
  std::vector<model::NodeIndex> cpu_nodes;
  for (const PlacedThread& p : place_threads(t, spec.threads, spec.placement))
    if (std::find(cpu_nodes.begin(), cpu_nodes.end(), p.node) == cpu_nodes.end())
      cpu_nodes.push_back(p.node);
  std::sort(cpu_nodes.begin(), cpu_nodes.end());
  const auto with = [&](const MemoryPolicy& policy) {
    WorkloadSpec s = spec;
    s.memory = policy;
    return s;
  };
  // Each policy's time once: the searches revisit policies (a move and its reverse, the starts'
  // common paths, the compared rows), and a simulation is a pure function of the policy.
  PolicyTimes known;
  const PolicyTime simulate = [&](const MemoryPolicy& policy) {
    return Simulation(t).run(build_plan(t, with(policy)), kTimeOnly).time_s;
  };
  const InterleaveWeights firmware =
      weights_from_bandwidth(memory, firmware_bandwidth_gbps(t, memory));
  const InterleaveWeights isolated =
      weights_from_bandwidth(memory, isolated_bandwidth_gbps(t, cpu_nodes.front(), memory));
  const InterleaveWeights ones{memory, std::vector<int>(memory.size(), 1)};
  const WeightSearchResult global =
      global_search({firmware, isolated, ones}, simulate, max_weight, parallel, &known);
  const WeightSearchResult per_node =
      per_node_search(cpu_nodes, global.policy.global, simulate, max_weight, parallel, &known);

  WeightsAnswer answer;
  answer.memory = memory;
  answer.recommended = global.policy.global;
  answer.search_simulations = global.evaluations + per_node.evaluations;
  MemoryPolicy plain;
  plain.kind = MemoryPolicyKind::kInterleave;
  plain.nodes = memory;
  answer.rows = {
      {"numatwin, one vector",
       global.policy,
       "searched on this workload's predicted time",
       0.0,
       {}},
      {"numatwin, per node",
       per_node.policy,
       "one vector per node with workers (a 2026 proposal, no kernel interface)",
       0.0,
       {}},
      {"Linux auto",
       weighted(firmware),
       "firmware (HMAT/CDAT-style) bandwidth, largest 32, gcd-reduced",
       0.0,
       {}},
      {"pairwise isolated",
       weighted(isolated),
       "each node read alone from " + t.nodes[static_cast<std::size_t>(cpu_nodes.front())].id +
           " (HMSDK-style), largest 32, gcd-reduced",
       0.0,
       {}},
      {"interleave", plain, "every node weight 1", 0.0, {}},
      {"local only", MemoryPolicy{}, "first touch by each worker", 0.0, {}},
  };
  // Reads only the run's time (so the samples run with SimulationOptions::time_only).
  const auto rate = [](const WorkloadSpec& s, const SimulationResult& r) {
    return workload_input(s).tuples / r.time_s / 1e6;
  };
  for (std::size_t r = 0; r < answer.rows.size(); ++r) {
    WeightsRow& row = answer.rows[r];
    row.time_s = known.time(row.policy, simulate);
    // A policy that an earlier row has too (the search often lands on Linux's own weights) has
    // that row's interval: the samples are drawn alike, so they would be simulated alike.
    const auto same = std::find_if(answer.rows.begin(), answer.rows.begin() + static_cast<std::ptrdiff_t>(r),
                                   [&](const WeightsRow& earlier) { return memory_policy_key(earlier.policy) == memory_policy_key(row.policy); });
    row.uncertainty = same != answer.rows.begin() + static_cast<std::ptrdiff_t>(r)
                          ? same->uncertainty
                          : prediction_uncertainty(t, with(row.policy), basis, samples, rate, parallel, true);
  }
  return answer;
}

}  // namespace numatwin::sim
