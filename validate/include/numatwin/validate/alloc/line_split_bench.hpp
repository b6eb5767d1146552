// Which share of an allocator's blocks span two 64-byte lines (model/allocator_costs.hpp,
// LineSplitPoint; issue 16, docs/chained-probe.md, session 31). Run by `validate allocbench
// --calibrate` in each allocator's own process, after its other benchmarks.
//
// A long run of malloc(r) hands out blocks at a stride S (the allocator's block for r: 32 bytes
// for r = 24 with every allocator here), so the blocks' offsets within their lines are
// c + j S mod 64 for a phase c. Where the phase can stand is the allocator's: jemalloc, tcmalloc
// and tbbmalloc place a size class's blocks at multiples of the class (c = 0 always); glibc
// carves them out of whatever region it has, at any multiple of its 16-byte granule, so its
// phase depends on what the process allocated before. The share of a run's blocks that span two
// lines at phase c (r <= 64):
//   share(c) = (1 / L) sum_{j < L} [ ((c + j S) mod 64) + r > 64 ],   L = 64 / gcd(S, 64)
// (one period of the offsets); r > 64: every block spans two or more, share 1.
//
// Measured, for each request size r:
//   a run of N blocks of r, kept: S = the most frequent positive difference between two
//     consecutive blocks' addresses (r rounded up to 16 when no difference is positive);
//   a run of N blocks of r each followed by a block of 40 bytes (an odd number of 16-byte
//     granules with glibc's 8-byte header: a 48-byte chunk), all kept: an allocator that carves
//     both sizes out of one region moves the next block of r by an odd granule each time;
//   the phases seen: P = { p mod gcd(S, 64) : p a block of r of either run };
//   low_share = min_{c in P} share(c), high_share = max_{c in P} share(c).
// glibc with r = 24: S = 32, P = {0, 16}: share(0) = 0 (offsets 0, 32), share(16) = 1/2 (16, 48):
// 0..0.5. The others: P = {0}: 0..0. All blocks are freed at the end of each size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"  // spans_two_lines

namespace numatwin::validate {

// spans_two_lines (kernel_support.hpp): [p, p + r) crosses a 64-byte line.

// share(c) above for stride S and request r. Throws std::invalid_argument for S < 1 or r < 1.
double run_split_share(std::uintptr_t phase, std::uintptr_t stride, std::size_t request_bytes);

// S above from a run's addresses in allocation order (0 when no difference is positive).
std::uintptr_t run_stride(const std::vector<std::uintptr_t>& addresses);

// The derivation above from the two runs' addresses. Throws std::invalid_argument for an empty
// run or r < 1.
model::LineSplitPoint line_split_from(std::int64_t request_bytes, const std::vector<std::uintptr_t>& plain,
                                      const std::vector<std::uintptr_t>& interleaved);

struct LineSplitBenchOptions {
  std::vector<std::int64_t> request_bytes = {8, 16, 24, 32, 40, 48, 56, 64};
  std::size_t blocks = 4096;  // N per run, >= 2
};

// One point per request size, in the calling process's allocator. Throws std::invalid_argument
// for a request size < 1 or blocks < 2, std::bad_alloc when malloc fails.
std::vector<model::LineSplitPoint> run_line_split_bench(const LineSplitBenchOptions& options);

}  // namespace numatwin::validate
