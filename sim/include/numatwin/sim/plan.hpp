// A traffic plan: what each thread does, in order. The simulator interprets plans; workload
// builders (shuffle_plan.hpp, ...) turn a WorkloadSpec into one.
#pragma once

#include <variant>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::sim {

// Stream `bytes` of payload: read from `read_node`'s memory and/or write to `write_node`'s (a copy
// when both are set), or from/to pages spread over several nodes. `step` tags the transfer for
// per-step statistics (-1: none). Random accesses keep at most `lines_in_flight` misses in flight
// (0: streaming, the core's miss buffers); `cycles_per_byte` is the core work per payload byte
// (consumer work, hashing, cache hits), overlapped with the memory traffic: it caps the rate.
struct Transfer {
  model::NodeIndex read_node = -1;
  model::NodeIndex write_node = -1;
  double bytes = 0.0;
  int step = -1;
  std::vector<model::NodeShare> read_spread;
  std::vector<model::NodeShare> write_spread;
  double lines_in_flight = 0.0;
  double cycles_per_byte = 0.0;
};

// Busy the thread's core for this long without memory traffic.
struct Compute {
  double seconds = 0.0;
};

// Re-bind the thread to a core of `node` (the simulator picks the core with the fewest threads,
// lowest index on ties), paying `overhead_seconds` for the move.
struct Bind {
  model::NodeIndex node = 0;
  double overhead_seconds = 0.0;
};

// Wait until every thread that has not finished reaches a barrier.
struct Barrier {};

using Op = std::variant<Transfer, Compute, Bind, Barrier>;

struct ThreadPlan {
  int core = 0;  // global core the thread starts on
  std::vector<Op> ops;
};

struct Plan {
  std::vector<ThreadPlan> threads;
  int steps = 0;  // number of distinct step tags (0..steps-1)
};

}  // namespace numatwin::sim
