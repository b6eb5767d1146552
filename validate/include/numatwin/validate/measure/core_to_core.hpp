// Core-to-core latency (Intel mlc's c2c "HitM" latency): two threads pinned to two CPUs pass a
// counter back and forth through one cache line; each handover moves the line, modified, from
// one core's cache to the other's. One-way latency = elapsed / handovers. The smallest over
// `trials` short runs of `round_trips` round trips is reported, as latency benchmarks do: a
// spinning thread that is descheduled (a busy or virtual machine) only ever makes a run slower,
// and with many short runs some run is not interrupted.
#pragma once

#include <optional>

namespace numatwin::validate {

struct CoreToCoreOptions {
  int round_trips = 2000;
  int trials = 21;
};

// Nanoseconds of one handover between `cpu_a` and `cpu_b`. Throws std::invalid_argument for equal
// CPUs and std::runtime_error when a thread cannot be pinned.
double core_to_core_latency_ns(int cpu_a, int cpu_b, const CoreToCoreOptions& options = {});

}  // namespace numatwin::validate
