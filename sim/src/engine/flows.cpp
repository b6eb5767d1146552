#include "numatwin/sim/engine/flows.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include "numatwin/model/routing.hpp"

namespace numatwin::sim {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

void check_spread(const model::Topology& t, const std::vector<model::NodeShare>& spread, const std::string& what) {
  double sum = 0.0;
  for (const model::NodeShare& s : spread) {
    if (s.node < 0 || s.node >= static_cast<model::NodeIndex>(t.nodes.size()) || !t.nodes[s.node].has_memory()) {
      throw std::invalid_argument(what + " names a node without memory");
    }
    if (!(s.fraction > 0.0)) throw std::invalid_argument(what + " has a fraction that is not > 0");
    sum += s.fraction;
  }
  if (!spread.empty() && std::abs(sum - 1.0) > 1e-9) throw std::invalid_argument(what + ": fractions do not add up to 1");
}

void check_flows(const model::Topology& t, const model::BandwidthModel& model, const std::vector<Flow>& flows) {
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const Flow& flow = flows[f];
    const std::string what = "flow " + std::to_string(f);
    if (flow.cores.empty()) throw std::invalid_argument(what + " has no threads");
    for (int core : flow.cores) {
      if (core < 0 || core >= model.core_count()) throw std::invalid_argument(what + ": core " + std::to_string(core) + " does not exist");
    }
    if (flow.read.empty() && flow.write.empty()) throw std::invalid_argument(what + " neither reads nor writes");
    check_spread(t, flow.read, what + "'s read");
    check_spread(t, flow.write, what + "'s write");
    if (!(flow.bytes >= 0.0) || std::isinf(flow.bytes)) throw std::invalid_argument(what + ": bytes must be finite and >= 0");
    if (!(flow.rate_limit_bytes_per_s > 0.0)) throw std::invalid_argument(what + ": the rate cap must be > 0");
    if (!(flow.lines_in_flight >= 0.0)) throw std::invalid_argument(what + ": lines in flight must be >= 0");
  }
}

// One memory node with fraction 1 uses the model's single-node terms (cached); anything else a spread.
void set_access(const std::vector<model::NodeShare>& spread, model::NodeIndex& node, std::span<const model::NodeShare>& out) {
  if (spread.size() == 1) {
    node = spread.front().node;
  } else if (!spread.empty()) {
    out = spread;
  }
}

// The value most threads share among those `counted` (the first to reach the top count wins
// ties), or `none` when no thread is counted.
template <typename T>
T most_common(const std::vector<T>& values, const std::vector<bool>& counted, T none) {
  std::map<T, int> count;
  T best = none;
  int best_count = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!counted[i]) continue;
    const int c = ++count[values[i]];
    if (c > best_count) {
      best = values[i];
      best_count = c;
    }
  }
  return best;
}

}  // namespace

double FlowsResult::mean_rate_bytes_per_s(const std::vector<Flow>& flows, int flow) const {
  const Flow& f = flows.at(static_cast<std::size_t>(flow));
  if (f.bytes > 0.0) return finish_s.at(static_cast<std::size_t>(flow)) > 0.0 ? f.bytes / finish_s[flow] : 0.0;
  return start.flows.at(static_cast<std::size_t>(flow)).rate_bytes_per_s;
}

int flow_bottleneck(const FlowState& state) {
  std::vector<bool> resource_bound(state.thread_running.size(), false);
  for (std::size_t i = 0; i < resource_bound.size(); ++i) {
    resource_bound[i] = state.thread_running[i] && state.thread_limit[i] == model::StreamLimit::kResource && state.thread_bottleneck[i] >= 0;
  }
  return most_common(state.thread_bottleneck, resource_bound, -1);
}

model::StreamLimit flow_limit(const FlowState& state) {
  return most_common(state.thread_limit, state.thread_running, model::StreamLimit::kResource);
}

FlowsResult run_flows(const model::Topology& topology, const std::vector<Flow>& flows) {
  const model::Routing routing(topology);
  model::BandwidthModel model(topology, routing);
  check_flows(topology, model, flows);

  FlowsResult result;
  for (int r = 0; r < model.resource_count(); ++r) {
    result.resources.push_back(ResourceInfo{model.resource_name(r), model.resource_kind(r), model.resource_capacity_bytes_per_s(r)});
  }
  result.finish_s.assign(flows.size(), 0.0);

  // Threads of all flows, in flow order.
  struct Thread {
    std::size_t flow = 0;
    std::size_t index = 0;  // within its flow
    double remaining = kInfinity;
  };
  std::vector<Thread> threads;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const double share = flows[f].bytes > 0.0 ? flows[f].bytes / static_cast<double>(flows[f].cores.size()) : kInfinity;
    for (std::size_t i = 0; i < flows[f].cores.size(); ++i) threads.push_back(Thread{f, i, share});
  }

  double now = 0.0;
  std::vector<model::Stream> streams;
  std::vector<std::size_t> active;  // thread index of each stream
  for (bool first = true;; first = false) {
    std::vector<int> running(flows.size(), 0);
    for (const Thread& th : threads) running[th.flow] += th.remaining > 0.0 ? 1 : 0;
    streams.clear();
    active.clear();
    for (std::size_t k = 0; k < threads.size(); ++k) {
      const Thread& th = threads[k];
      if (!(th.remaining > 0.0)) continue;
      const Flow& flow = flows[th.flow];
      model::Stream s;
      s.core = flow.cores[th.index];
      s.cpu_node = model.node_of_core(s.core);
      set_access(flow.read, s.read_node, s.read_spread);
      set_access(flow.write, s.write_node, s.write_spread);
      s.lines_in_flight = flow.lines_in_flight;
      s.rate_limit_bytes_per_s = flow.rate_limit_bytes_per_s / running[th.flow];
      streams.push_back(s);
      active.push_back(k);
    }
    if (streams.empty()) break;  // every flow had bytes and is done
    const model::StreamRates& rates = model.solve(streams);
    result.solver_rounds += rates.rounds;

    FlowSnapshot snap;
    snap.resource_load_bytes_per_s = rates.resource_load_bytes_per_s;
    snap.utilisation = rates.utilisation;
    snap.converged = rates.converged;
    for (const Flow& flow : flows) {
      FlowState state;
      const std::size_t n = flow.cores.size();
      state.thread_running.assign(n, false);
      state.thread_rate_bytes_per_s.assign(n, 0.0);
      state.thread_latency_ns.assign(n, 0.0);
      state.thread_limit.assign(n, model::StreamLimit::kResource);
      state.thread_bottleneck.assign(n, -1);
      snap.flows.push_back(std::move(state));
    }
    for (std::size_t a = 0; a < active.size(); ++a) {
      const Thread& th = threads[active[a]];
      FlowState& state = snap.flows[th.flow];
      state.running = true;
      ++state.running_threads;
      state.thread_running[th.index] = true;
      state.thread_rate_bytes_per_s[th.index] = rates.rate_bytes_per_s[a];
      state.thread_latency_ns[th.index] = rates.latency_ns[a];
      state.thread_limit[th.index] = rates.limits[a];
      state.thread_bottleneck[th.index] = rates.bottleneck[a];
      state.rate_bytes_per_s += rates.rate_bytes_per_s[a];
      state.latency_ns += rates.latency_ns[a];
    }
    for (FlowState& state : snap.flows) {
      if (state.running_threads > 0) state.latency_ns /= state.running_threads;
    }
    if (first) result.start = snap;

    double next = kInfinity;
    bool any_finite = false;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const Thread& th = threads[active[a]];
      if (std::isinf(th.remaining)) continue;
      any_finite = true;
      if (rates.rate_bytes_per_s[a] > 0.0) next = std::min(next, now + th.remaining / rates.rate_bytes_per_s[a]);
    }
    if (!any_finite) break;  // only flows without bytes are left: the steady state holds for ever
    if (std::isinf(next)) {
      throw std::logic_error("flows stalled at t = " + std::to_string(now) + " s: a flow with bytes gets no bandwidth");
    }
    result.phases.push_back(FlowPhase{now, next, std::move(snap)});
    for (std::size_t a = 0; a < active.size(); ++a) {
      Thread& th = threads[active[a]];
      if (std::isinf(th.remaining)) continue;
      const double rate = rates.rate_bytes_per_s[a];
      if (rate > 0.0 && now + th.remaining / rate <= next) {  // due now: finishes exactly
        th.remaining = 0.0;
        result.finish_s[th.flow] = next;
      } else {
        th.remaining = std::max(0.0, th.remaining - rate * (next - now));
      }
    }
    now = next;
  }
  result.time_s = now;
  return result;
}

}  // namespace numatwin::sim
