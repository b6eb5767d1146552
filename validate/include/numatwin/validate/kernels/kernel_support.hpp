// What every real kernel shares, below the runs that time and place them: a phase's time, the
// clock, a worker's share of the elements, and whether an allocation crosses a cache line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace numatwin::validate {

struct PhaseTime {
  std::string name;  // e.g. "build", "probe", "partition", "step 3"
  double seconds = 0.0;
};

// Seconds on the steady clock (an arbitrary origin: differences only).
double now_seconds();

// Worker `worker` of `workers`' half-open range of `elements`: [e w / n, e (w + 1) / n).
std::pair<std::size_t, std::size_t> worker_chunk(std::size_t elements, int worker, int workers);

// [p, p + r) spans two 64-byte lines: (p mod 64) + r > 64 (a block of 0 bytes spans none).
// Inline: the chained join's timed build counts its nodes with it.
constexpr bool spans_two_lines(std::uintptr_t address, std::size_t request_bytes) {
  return (address % 64) + request_bytes > 64;
}

}  // namespace numatwin::validate
