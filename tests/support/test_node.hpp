// The NUMA node of the hand-worked model tests: 4 cores at 2 GHz, 1 GiB of memory read at
// 20 GB/s with 100 ns local latency, 10 miss buffers per core (so one core streams at most
// 10 x 64 B / 100 ns = 6.4 GB/s). Tests change the fields their derivation needs.
#pragma once

#include <string>

#include "numatwin/model/topology.hpp"

namespace numatwin::testing_support {

inline model::Node test_node(std::string id, int threads_per_core = 2) {
  model::Node n;
  n.id = std::move(id);
  n.cores = 4;
  n.threads_per_core = threads_per_core;
  n.frequency_ghz = 2.0;
  n.memory_capacity_bytes = 1LL << 30;
  n.memory_read_bandwidth_gbps = 20.0;
  n.local_latency_ns = 100.0;
  n.miss_buffers_per_core = 10;
  return n;
}

}  // namespace numatwin::testing_support
