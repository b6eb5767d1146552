// Where a workload's data lives: memory policies turned into page placements, with capacity.
// One definition shared by the simulator and (later) the validator, which applies the same
// policy through libnuma.
//
// A dataset is a byte range [0, size). Its placement is a list of segments, each spread over one
// or more nodes (an interleaved segment is spread evenly). The pages a thread works on (its chunk,
// or the whole table for random accesses) give a spread: the node fractions of the bytes.
//
// Policies (Memarzia et al.; numactl's names):
//   first-touch   pages go to the node of the thread that touches them first; `init` says who:
//                 the workers (each its own chunk; shared structures in slices, one per worker) or
//                 one loader thread (everything on the loader's node). A full node spills to the
//                 nearest node with room (as Linux does).
//   localalloc    the allocating thread's node: per-thread data on its thread's node, shared data
//                 on the loader's node (the main thread allocates it).
//   interleave    pages round robin over `nodes` (default: every node with memory).
//   preferred     `nodes[0]` until it is full, then the nearest nodes with room.
//   bind          only `nodes`, filled in order; a dataset that does not fit is an error.
//   weighted-interleave
//                 pages spread over nodes in proportion to integer weights (Linux 6.9+,
//                 MPOL_WEIGHTED_INTERLEAVE with /sys/kernel/mm/mempolicy/weighted_interleave/nodeN,
//                 weights 1..255: "nodeset(0,1) & weights (2,1) - 2 pages allocated on node 0 for
//                 every 1 page allocated on node 1", mm/mempolicy.c's header comment and
//                 Documentation/ABI/testing/sysfs-kernel-mm-mempolicy-weighted-interleave; commit
//                 fa3bea4e1f82, Gregory Price, 2024), so a region of many pages lands w_i / sum w on
//                 node i,
//                 one vector for every socket as Linux has it ("weighted-interleave:0=3,2=1"), or
//                 one vector per node with cores, chosen by the node of the thread that allocates
//                 ("weighted-interleave:s0[s0=3,c0=1];s1[s1=3,c1=1]"), as the 2026 socket-aware
//                 proposals have it. Each worker's chunk is allocated by the worker (the loader
//                 with first touch by one thread is not a weighted-interleave notion: every chunk
//                 follows its worker's node). Weights are 1..255.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::sim {

enum class MemoryPolicyKind { kFirstTouch, kLocalAlloc, kInterleave, kPreferred, kBind, kWeightedInterleave };

// One weight vector: node i of `nodes` gets weights[i] (1..255) pages in turn.
struct InterleaveWeights {
  std::vector<model::NodeIndex> nodes;
  std::vector<int> weights;
  // The node fractions: weights[i] / sum.
  [[nodiscard]] std::vector<model::NodeShare> shares() const;
};

// A weight vector used by threads running on `cpu_node` (a node with cores).
struct NodeWeights {
  model::NodeIndex cpu_node = 0;
  InterleaveWeights weights;
};
enum class InitThreads { kWorkers, kLoader };

struct MemoryPolicy {  // a new field must join memory_policy_key
  MemoryPolicyKind kind = MemoryPolicyKind::kFirstTouch;
  InitThreads init = InitThreads::kWorkers;  // first-touch only
  std::vector<model::NodeIndex> nodes;       // interleave (empty: all), preferred (one), bind (>= 1)
  // weighted-interleave: one vector for all (`global`), or one per node with cores (`by_node`,
  // which then must name every node a worker runs on).
  InterleaveWeights global;
  std::vector<NodeWeights> by_node;

  // The weight vector a thread on `cpu_node` allocates with; throws std::invalid_argument when a
  // per-node policy has none for it.
  [[nodiscard]] const InterleaveWeights& weights_for(model::NodeIndex cpu_node, const model::Topology& topology) const;
};

// How a dataset is used, which decides where first-touch and localalloc put it.
enum class DatasetKind {
  kPartitioned,  // each worker owns one contiguous chunk (input relations, runs)
  kShared,       // one structure every worker touches (a shared hash table, an index)
  kPrivate,      // one structure per worker (a private hash table): worker w owns chunk w
};

struct Segment {
  double begin_bytes = 0.0;
  double end_bytes = 0.0;
  std::vector<model::NodeShare> spread;
};

struct DataPlacement {
  std::string name;
  double size_bytes = 0.0;
  std::vector<Segment> segments;  // ascending and disjoint, as MemoryPlacer lays them out

  // Node fractions of the bytes in [begin, end) (merged per node, in node order).
  [[nodiscard]] std::vector<model::NodeShare> spread(double begin_bytes, double end_bytes) const;
  [[nodiscard]] std::vector<model::NodeShare> spread() const { return spread(0.0, size_bytes); }
  // Worker w's chunk of `workers` equal chunks.
  [[nodiscard]] std::vector<model::NodeShare> chunk(int worker, int workers) const;
};

// Places datasets one after the other, keeping track of how full every node is.
class MemoryPlacer {
 public:
  // `worker_nodes[w]` is the node worker w runs on when it first touches its data;
  // `loader_node` the node of the loader (main) thread.
  MemoryPlacer(const model::Topology& topology, const model::Routing& routing, std::vector<model::NodeIndex> worker_nodes,
               model::NodeIndex loader_node);

  // Throws std::invalid_argument naming the dataset when it cannot fit (bind to full nodes, or
  // more data than the machine's memory) or the policy names a node without memory.
  // `worker_shares`: the share of the dataset each worker first-touches, in worker order (they
  // add up to 1); empty: equal shares.
  DataPlacement place(const std::string& name, double size_bytes, DatasetKind kind, const MemoryPolicy& policy,
                      const std::vector<double>& worker_shares = {});

  [[nodiscard]] const std::vector<double>& used_bytes() const { return used_; }

 private:
  // Puts `bytes` starting at `node`, spilling to the nearest nodes with room; appends segments.
  void fill_from(model::NodeIndex node, double bytes, double& offset, DataPlacement& placement, const std::string& name);
  void fill_in_order(const std::vector<model::NodeIndex>& nodes, double bytes, double& offset, DataPlacement& placement,
                     const std::string& name, bool spill);
  [[nodiscard]] double room(model::NodeIndex node) const;

  const model::Topology* topology_;
  const model::Routing* routing_;
  std::vector<model::NodeIndex> worker_nodes_;
  model::NodeIndex loader_node_;
  std::vector<double> used_;
};

// "first-touch", "first-touch:loader", "localalloc", "interleave", "interleave:0,2",
// "preferred:1", "bind:0,1", "weighted-interleave:0=3,1=1",
// "weighted-interleave:s0[s0=3,c0=1];s1[s1=3,c1=1]" (node ids or indices). Throws
// std::invalid_argument naming the part that is wrong.
MemoryPolicy parse_memory_policy(const std::string& text, const model::Topology& topology);
std::string memory_policy_name(const MemoryPolicy& policy, const model::Topology& topology);

// Every field of a policy, as one key: equal keys, equal policies (weights search: a policy's
// simulated time is looked up by it).
[[nodiscard]] std::vector<int> memory_policy_key(const MemoryPolicy& policy);

// The placement of one dataset after the scanner has passed the first `prefix_bytes` of the
// address space, the dataset starting at `offset_bytes`: the chunks of a partitioned or private
// dataset under the default policy (first touch, localalloc) that lie in the prefix move to their
// worker's node (worker w's chunk: worker_shares[w] of the dataset, or 1 / workers when empty);
// everything else stays. Capacity is not checked (the kernel would leave a page on a full node).
[[nodiscard]] DataPlacement balanced_placement(const DataPlacement& placed, DatasetKind kind, const MemoryPolicy& policy,
                                               double offset_bytes, double prefix_bytes,
                                               const std::vector<model::NodeIndex>& worker_nodes,
                                               const std::vector<double>& worker_shares);

}  // namespace numatwin::sim
