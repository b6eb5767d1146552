// Any set of memory streams started together ("flows"), answered by the bandwidth model
// (model/bandwidth_model.hpp): what rate and loaded latency each gets, what holds it back, and
// how loaded every memory controller, link and forwarding node is.
//
// ── A flow ──────────────────────────────────────────────────────────────────────────────────
// n threads, each on a given core (threads on one core are hardware-thread siblings and share its
// miss buffers), all streaming the same way: reading a memory node (or pages spread over several
// with weights), writing one, or copying (reading one spread and writing another at the same
// payload rate). Each thread is one model::Stream. Optional:
//   bytes B      the flow's payload; each thread moves B / n, and the flow is done when its last
//                thread is. B = 0: the flow runs for as long as the others do (background load).
//   rate cap R   the flow's total payload rate may not exceed R; its running threads share the
//                cap evenly (each is limited to R / running threads, as model::Stream's
//                rate_limit_bytes_per_s), so a thread that cannot use its share leaves it unused.
//   lines L      misses in flight per thread (random accesses); default: the core's miss buffers.
//
// ── Steady state and the fluid run ──────────────────────────────────────────────────────────
// At t = 0 every flow runs: the model's max-min solution is the steady state (`start`). When some
// flows have bytes, time advances as in the simulator (simulation.hpp): rates are constant between
// events, the next event is the first thread to finish,
//   dt = min over running threads with bytes of remaining_i / rate_i,
// finished threads leave and the model is solved again, until every thread with bytes is done.
// Each interval is a `phase`. A flow's mean rate is B / (time its last thread finished).
//
// Units: bytes and bytes per second in the structs, as the model; the CLI prints GB/s (1e9 B/s).
#pragma once

#include <limits>
#include <span>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/result.hpp"

namespace numatwin::sim {

struct Flow {
  std::vector<int> cores;                // global core index of each thread (BandwidthModel::core_of)
  std::vector<model::NodeShare> read;    // empty: no reads; fractions > 0 adding up to 1
  std::vector<model::NodeShare> write;   // empty: no writes; both set: a copy
  double bytes = 0.0;                    // 0: no end (steady background load)
  double rate_limit_bytes_per_s = std::numeric_limits<double>::infinity();  // the whole flow's cap
  double lines_in_flight = 0.0;          // per thread; 0: the core's miss buffers (streaming)
};

// One flow at one moment.
struct FlowState {
  bool running = false;
  int running_threads = 0;
  double rate_bytes_per_s = 0.0;              // sum over its running threads
  double latency_ns = 0.0;  // mean over running threads: loaded latency of one payload line's misses
  // Per thread (finished threads: running false, rate 0, limit kResource, bottleneck -1):
  std::vector<bool> thread_running;
  std::vector<double> thread_rate_bytes_per_s;
  std::vector<double> thread_latency_ns;
  std::vector<model::StreamLimit> thread_limit;  // what holds it back
  std::vector<int> thread_bottleneck;            // the saturated resource, or -1
};

struct FlowSnapshot {
  std::vector<FlowState> flows;
  std::vector<double> resource_load_bytes_per_s;  // per resource
  std::vector<double> utilisation;                // per resource: load / capacity
  bool converged = true;                          // the model's fixed point converged
};

struct FlowPhase {
  double begin_s = 0.0;
  double end_s = 0.0;
  FlowSnapshot snapshot;
};

struct FlowsResult {
  std::vector<ResourceInfo> resources;  // names, kinds and capacities, in the model's order
  FlowSnapshot start;                   // every flow running: the steady state
  std::vector<FlowPhase> phases;        // with bytes: [0, time_s) cut at every thread finishing
  std::vector<double> finish_s;         // per flow: when its last thread finished; 0 without bytes
  double time_s = 0.0;                  // last finish; 0 when no flow has bytes
  int solver_rounds = 0;

  // Payload over the flow's lifetime (bytes / finish_s); its start rate for a flow without bytes.
  [[nodiscard]] double mean_rate_bytes_per_s(const std::vector<Flow>& flows, int flow) const;
};

// Throws std::invalid_argument for a flow without threads, a core that does not exist, neither
// reads nor writes, a spread whose fractions are not > 0 or do not add up to 1 (within 1e-9), a
// node without memory, bytes < 0, a rate cap <= 0, or lines in flight < 0; std::logic_error when a
// flow with bytes gets no bandwidth at all.
FlowsResult run_flows(const model::Topology& topology, const std::vector<Flow>& flows);

// The resource that holds a flow back, for reports: the most common saturated resource among its
// running threads (-1 when none is resource-bound), and the most common limit.
[[nodiscard]] int flow_bottleneck(const FlowState& state);
[[nodiscard]] model::StreamLimit flow_limit(const FlowState& state);

}  // namespace numatwin::sim
