// Which share of an allocator's blocks span two 64-byte lines (model/allocator_costs.hpp,
// LineSplitPoint; issue 16, docs/chained-probe.md, session 31). Run by `validate allocbench
// --calibrate` in each allocator's own process, after its other benchmarks.
//
// For each request size r and each of T trials t = 0..T-1:
//   malloc one block of 8 + 16 t bytes (it moves a heap top that hands out 16-byte granules by
//     an even or an odd number of granules: glibc's chunk of a request q is
//     max(32, q + 8 rounded up to 16) bytes), kept;
//   malloc N blocks of r bytes, kept; count those whose [p, p + r) spans two lines:
//     split(p, r) = (p mod 64) + r > 64 (r <= 64; above, a block always spans two or more);
//   share_t = count / N.
// All blocks are freed at the end, none before (a freed block would be handed out again and
// repeat the previous trial's addresses). low_share = min_t share_t, high_share = max_t share_t.
// An allocator that hands out size-class-aligned blocks gives the same share in every trial;
// glibc's 24-byte blocks give 0 or 0.5 by where its top stands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"

namespace numatwin::validate {

// split(p, r) above. Throws std::invalid_argument for r < 1.
bool spans_two_lines(std::uintptr_t address, std::size_t request_bytes);

// min and max of the trials' shares (each in 0..1). Throws std::invalid_argument for no trial or
// a share outside 0..1.
model::LineSplitPoint line_split_range(std::int64_t request_bytes, const std::vector<double>& trial_shares);

struct LineSplitBenchOptions {
  std::vector<std::int64_t> request_bytes = {8, 16, 24, 32, 40, 48, 56, 64};
  int trials = 8;                 // T
  std::size_t blocks = 4096;      // N per trial
};

// One point per request size, in the calling process's allocator. Throws std::invalid_argument
// for a request size < 1, trials < 1 or blocks < 1, std::bad_alloc when malloc fails.
std::vector<model::LineSplitPoint> run_line_split_bench(const LineSplitBenchOptions& options);

}  // namespace numatwin::validate
