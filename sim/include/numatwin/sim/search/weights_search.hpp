// Weighted-interleave weights: the ones Linux would pick, the ones a one-pair-at-a-time
// measurement gives, and the ones that minimise the predicted time of a workload under contention
// (`numatwin weights`).
//
// ── Weights from bandwidths (Linux's auto mode, HMSDK) ──────────────────────────────────────
// Given a bandwidth b_i per node, the weights are
//     w_i = max(1, round(32 b_i / max_j b_j)),  then every w_i divided by gcd(w)
// (largest weight 32, reduced by the greatest common divisor: ../shared/docs/machines-2026.md on
// the kernel's auto mode). Two sources of b:
//   firmware   what HMAT / CDAT would report: the node's own memory_read_bandwidth_gbps, capped
//              by the narrowest link on the route from the nearest node with cores (a CXL
//              device behind its host bridge); one vector for every socket, as Linux applies it;
//   isolated   what an MLC-style matrix measured one node pair at a time gives (SK hynix's
//              HMSDK): every core of one node with cores reading node i alone, solved by the
//              bandwidth model (flows.hpp), so the contention of all nodes at once is not in it.
// Neither sees the workload: its threads, its read/write mix, the shared socket link.
//
// ── The search ──────────────────────────────────────────────────────────────────────────────
// time(w) is the simulated time of the workload with every dataset weighted-interleaved by w.
// From each of several start vectors (the firmware weights, the isolated ones, all ones) the
// search moves one weight at a time (the best end wins, so the answer is never slower than a
// start; a single start can stall: from s0 alone, s0=1,s1=1 may be slower while s0=3,s1=1 is
// faster, and no single move reaches it): each round
// tries, for every node, w_i + 1, w_i - 1, 2 w_i, w_i / 2 and 0 (the node left out; at least one
// node keeps a weight), each within 0..max_weight, evaluates them all (in parallel) and keeps the
// best if it is faster by more than 1e-9 relative; it stops when no move helps or after 64 rounds.
// The result is reduced by its gcd. Per-node vectors (one per node with cores that runs workers,
// the 2026 socket-aware proposals) are searched the same way, every vector's weights being moves
// of one search, plus each move of the first vector applied to every vector equal to it (when
// the slowest socket sets the time, one vector alone cannot improve it). It is a local search: on
// the small machines of the tests it finds the optimum worked by hand; on others it is the best the
// moves reach, not a proven optimum.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

inline constexpr int kLinuxLargestWeight = 32;

// w_i = max(1, round(largest x b_i / max b)) reduced by their gcd. Throws std::invalid_argument
// for no nodes, a size mismatch or a bandwidth <= 0.
InterleaveWeights weights_from_bandwidth(const std::vector<model::NodeIndex>& nodes,
                                         const std::vector<double>& bandwidth_gbps,
                                         int largest = kLinuxLargestWeight);

// Firmware-style bandwidth of each node (see above).
std::vector<double> firmware_bandwidth_gbps(const model::Topology& topology,
                                            const std::vector<model::NodeIndex>& nodes);

// Every core of `cpu_node` reading node i alone, for each i (the bandwidth model).
std::vector<double> isolated_bandwidth_gbps(const model::Topology& topology,
                                            model::NodeIndex cpu_node,
                                            const std::vector<model::NodeIndex>& nodes);

// The weights divided by their gcd (zeros ignored).
InterleaveWeights reduced(InterleaveWeights weights);

struct WeightSearchResult {
  MemoryPolicy policy;  // kWeightedInterleave, global or by_node
  double time_s = 0.0;
  int evaluations = 0;
};

// time_of(policy): the predicted seconds of the workload with that memory policy.
using PolicyTime = std::function<double(const MemoryPolicy&)>;

// The global search from each of `starts` (over their nodes; a weight of 0 leaves a node out);
// the best end. Throws std::invalid_argument for no start.
WeightSearchResult search_global_weights(const std::vector<InterleaveWeights>& starts,
                                         const PolicyTime& time_of,
                                         int max_weight = kLinuxLargestWeight,
                                         const ParallelFor& parallel = sequential_for);

// The per-node search: one vector per node of `cpu_nodes`, each starting from `start`.
WeightSearchResult search_per_node_weights(const std::vector<model::NodeIndex>& cpu_nodes,
                                           const InterleaveWeights& start,
                                           const PolicyTime& time_of,
                                           int max_weight = kLinuxLargestWeight,
                                           const ParallelFor& parallel = sequential_for);

// `numatwin weights`, the whole answer: the searches (one vector from the firmware, isolated and
// all-ones starts; per node from the best one vector) and, compared, the six policies below, each
// simulated once and with its interval over `samples` cost samples (rate: input M tuples/s).
// A policy is simulated once per answer, however often the searches ask for it (a move and its
// reverse, starts that meet) and whichever rows name it; rows with the same policy share one
// interval (the samples are drawn alike, so they would simulate alike).
struct WeightsRow {
  std::string name;  // "numatwin, one vector", "numatwin, per node", "Linux auto",
                     // "pairwise isolated", "interleave", "local only"
  MemoryPolicy policy;
  std::string how;
  double time_s = 0.0;
  PredictionUncertainty uncertainty;
};

struct WeightsAnswer {
  std::vector<model::NodeIndex> memory;  // the nodes spread over
  InterleaveWeights recommended;         // the one-vector search's weights
  int search_simulations = 0;  // candidates the searches evaluated, repeats included
  std::vector<WeightsRow> rows;  // in the order above
};

// Throws std::invalid_argument, naming the option, for a shuffle-family workload (it places its
// buffers itself), fewer than two memory nodes, unplaced threads (placement none), a largest
// weight outside 1..255 or samples == 1. `memory` empty: every node with memory.
WeightsAnswer answer_weights(const model::Topology& topology, const WorkloadSpec& spec,
                             const CostBasis& basis, std::vector<model::NodeIndex> memory,
                             int max_weight, int samples,
                             const ParallelFor& parallel = sequential_for);

}  // namespace numatwin::sim
