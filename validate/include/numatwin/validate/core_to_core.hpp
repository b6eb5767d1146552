// Core-to-core latency (Intel mlc's c2c "HitM" latency): two threads pinned to two CPUs pass a
// counter back and forth through one cache line; each handover moves the line, modified, from
// one core's cache to the other's. One-way latency = elapsed / handovers. The median over
// `trials` runs of `round_trips` round trips is reported (spinning threads on a busy or virtual
// machine are sometimes descheduled; the median keeps those runs out).
#pragma once

#include <optional>

namespace numatwin::validate {

struct CoreToCoreOptions {
  int round_trips = 20000;
  int trials = 5;
};

// Nanoseconds of one handover between `cpu_a` and `cpu_b`. Throws std::invalid_argument for equal
// CPUs and std::runtime_error when a thread cannot be pinned.
double core_to_core_latency_ns(int cpu_a, int cpu_b, const CoreToCoreOptions& options = {});

}  // namespace numatwin::validate
