// What a dependent LLC miss costs a loop as a function of the independent work between two of
// them (model/dependent_miss.hpp; issue 16, docs/chained-probe.md). One thread, in the calling
// process; run by `validate allocbench --calibrate` once per calibration (it does not depend on
// the allocator: the buffer is one allocation, filled before the timed passes).
//
// The loop. A buffer of L lines of 64 bytes (footprint F, well beyond the LLC); word 0 of each
// line is the index of the next line in one random cyclic permutation of all L (a random chain),
// word 1 a value. N = M k items (M misses in every cell), each with a head line h_i drawn uniformly (a sequential array of line
// indices: streamed). Item i:
//   prefetch line h_{i+d} (d = 32, the kernels' prefetch distance);
//   read word 0 and word 1 of line h_i (its prefetched head);
//   with the miss, and when i is the first item of its group of k: read word 1 of the chain's next
//     line, word 0 of h_i: an LLC miss (with probability m) whose address comes from the head;
//     without it, that item adds word 0 itself instead (no further line);
//   w work units: x <- splitmix64 finaliser(x + i + j) for j < w (x depends on i only, not on any
//     load: independent work), each kept in a register by the project's asm-volatile idiom so the
//     compiler neither vectorises nor drops it.
//   with the second miss (t_second): the same item also reads word 1 of the line after the first
//     miss's line in the chain (its address is word 0 of the first miss's line): a miss behind a
//     miss, as a chain's node behind another in the same probe.
//   with the split head (t_split_head, instead of the miss): the item reads its head's last word
//     and word 0 of the line after its head in the buffer, which nothing prefetched (an item
//     spanning two lines whose first line was prefetched: a chain's first node 48 bytes into its
//     line);
//   with the split miss (t_split_miss, instead of the one-line miss): the dependent read takes the
//     last word of the line its head links to and word 0 of the line after that one (the
//     dependent item spans two lines).
// Per cell (k, w), the five passes (without the misses, t_without; with the first, t_with; with
// both, t_second; the split head; the split miss) run back to back, their order rotating between
// rounds; over R rounds, each pass's
// fastest round (on a shared machine another process only ever adds time to a pass, so the
// minimum is the least disturbed):
//   miss_ns(k, w)        = (min_r t_with - min_r t_without) / M / m,   M misses (N = M k items),
//   second_miss_ns(k, w) = (min_r t_second - min_r t_with) / M / m,
//   split_head_ns(k, w)  = (min_r t_split_head - min_r t_without) / M / m,
//   split_miss_ns(k, w)  = (min_r t_split_miss - min_r t_with) / M / m,
//                   m = max(0.05, 1 - min(1, LLC / F)) the share of random lines that miss the LLC,
// each taken >= 0 (a negative difference is noise). The work unit alone, with no memory access:
//   work_unit_ns = (min_r t(8 units per item) - min_r t(0 units)) / (8 M)   (over M items).
// Run time: about 5 R x sum_k M k x 4 w values x (25..40 ns an item) + R x 16 M x (the misses),
// 11.5 s with the defaults on this project's 2026 VM (`--dependent-misses-only`, 2026-11-27).
// The translation of the buffer's pages (whatever the process gets: the buffer is not advised
// either way) is in the misses as measured.
#pragma once

#include <cstddef>
#include <vector>

#include "numatwin/model/dependent_miss.hpp"

namespace numatwin::validate {

// One cell's round: seconds of the two passes and the misses the "with" pass took.
struct DependentMissRound {
  double with_miss_s = 0.0;
  double without_miss_s = 0.0;
  double misses = 0.0;         // M
  double second_miss_s = 0.0;  // with the second miss too (0: not run)
  double split_head_s = 0.0;   // with the split head instead of the miss (0: not run)
  double split_miss_s = 0.0;   // with the split miss instead of the one-line miss (0: not run)
};

// The derivation above for one cell: (fastest with - fastest without) / M / m, >= 0.
// Throws std::invalid_argument for no rounds, a round with misses <= 0 or unlike the first's,
// or bytes < 0.
double derive_miss_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes);
// (fastest second - fastest with) / M / m, >= 0; the same checks, and a round without the second
// pass (second_miss_s <= 0) is refused.
double derive_second_miss_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes);
// (fastest split head - fastest without) / M / m and (fastest split miss - fastest with) / M / m,
// >= 0; the same checks, and a round without the pass is refused.
double derive_split_head_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes);
double derive_split_miss_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes);
// (work_s - base_s) / (units x items), >= 0. Throws std::invalid_argument for units or items <= 0.
double derive_work_unit_ns(double work_s, double base_s, int units, double items);

struct DependentMissBenchOptions {
  std::vector<int> items_per_miss = {1, 2, 4, 8};  // k
  std::vector<int> work_units = {0, 1, 3, 6};      // w
  int rounds = 5;                                  // R
  double footprint_bytes = 256.0 * 1024 * 1024;    // F
  double llc_bytes = 32.0 * 1024 * 1024;           // the machine's LLC (the caller's topology)
  std::size_t misses = std::size_t{1} << 18;       // M per cell (N = M k items)
};

// The grid at every (k, w) of the options, and work_unit_ns; host, measured_at and source are
// left for the caller. Throws std::invalid_argument for a k < 1, a w < 0, rounds < 1, misses < 64
// or a footprint under 1 MiB.
model::DependentMissGrid run_dependent_miss_bench(const DependentMissBenchOptions& options);

}  // namespace numatwin::validate
