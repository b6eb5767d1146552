// The order in which the threads of a shuffle visit the producers (Li et al.; docs/algorithms.md
// section 1; the rings are described in shuffle_plan.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// The outer ring (threads ordered socket first) and, for the thread at each outer position, the
// order in which it visits the producers (thread indices) under `algorithm`. Shared by the
// shuffles and the operators built on them (partitioned aggregation, sort-merge join).
struct ShuffleOrder {
  std::vector<int> outer;                   // thread index at each outer position
  std::vector<std::vector<int>> producers;  // producers[o]: the visiting order of thread outer[o]
};
// kScheduled takes each thread's order from `orders` (indexed by thread; checked by the caller).
ShuffleOrder shuffle_order(const std::vector<PlacedThread>& threads, ShuffleAlgorithm algorithm, std::uint64_t seed,
                           const std::vector<std::vector<int>>& orders = {});

}  // namespace numatwin::sim
