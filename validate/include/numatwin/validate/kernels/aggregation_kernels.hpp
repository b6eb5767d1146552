// The aggregation kernels of Memarzia et al.'s W1 and W2 over one shared hash table
// (shared_hash_table.hpp), each called by every worker on its own part:
//
//   COUNT   `SELECT key, COUNT(*) GROUP BY key`: every worker scans its input chunk and, per
//           tuple, finds or inserts the key (CAS) and adds one to its count (fetch_add).
//   MEDIAN  `SELECT key, MEDIAN(value) GROUP BY key`, values kept per group, four steps with a
//           barrier between them:
//             count    as COUNT: the table learns every group and its size;
//             offsets  each worker turns the counts of its slice of slots into the start of each
//                      group's run in the values array (an exclusive prefix sum; the slices'
//                      bases come from the other slices' totals);
//             scatter  every worker scans its chunk again and appends each value to its group's
//                      run (fetch_add on the group's cursor);
//             median   each worker selects the median of the groups in its slice of slots
//                      (insertion sort for runs of up to 32 values, nth_element beyond; even
//                      sizes: the mean of the two middle values).
//           A group's result is kept as lo + hi (twice the median), exact in integers.
//
// Inner loops keep `kPrefetchDistance` table slots prefetched ahead of the tuple being handled,
// so several cache misses overlap (the latency-bound random accesses of sim/plan/operator_plan.hpp);
// the scatter also prefetches the values line its group's cursor points at, d tuples ahead.
// Results stay in the table: payload = count, or twice the median.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"

namespace numatwin::validate {

inline constexpr std::size_t kPrefetchDistance = 32;

// Runs handle(i, slot) over every tuple of `input` in order, with the slot of tuple
// i + kPrefetchDistance computed and prefetched (for writing, or for reading) while tuple i is
// handled: the inner loop of every kernel on a shared table (COUNT, the hash join's build and
// probe).
template <bool ForWrite, typename Handle>
inline void prefetched_loop(TableView table, const Tuple* __restrict input, std::size_t n, Handle&& handle) {
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[d];
  const auto fetch = [&](std::size_t i) {
    const std::uint64_t s = table.slot(input[i].key);
    if constexpr (ForWrite)
      table.prefetch(s);
    else
      table.prefetch_read(s);
    return s;
  };
  const std::size_t head = n < d ? n : d;
  for (std::size_t i = 0; i < head; ++i) ring[i] = fetch(i);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t s = ring[i % d];
    if (i + d < n) ring[i % d] = fetch(i + d);
    handle(i, s);
  }
}

// COUNT over `input` (one worker's chunk). `concurrent`: other workers update the table too.
void count_aggregate(TableView table, std::span<const Tuple> input, bool concurrent);

// Sum of the payloads of slots [begin, end): the values the slice's groups hold.
std::uint64_t slice_total(TableView table, std::uint64_t begin, std::uint64_t end);
// Payload of each used slot in [begin, end) := base + counts of the used slots before it.
void counts_to_offsets(TableView table, std::uint64_t begin, std::uint64_t end, std::uint64_t base);
// values[cursor++] = value for every tuple, the cursor being its group's payload.
void median_scatter(TableView table, std::span<const Tuple> input, std::uint64_t* values,
                    bool concurrent);
// For every used slot in [begin, end) (after the scatter, its payload is the end of its run; the
// first run starts at `base`): payload := lo + hi of the run's two middle values (the same value
// twice for odd sizes). Reorders the runs.
// Twice the median of run[0, size) (size >= 1; the mean of the two middle values for even sizes,
// kept as their sum); reorders the run.
std::uint64_t twice_median(std::uint64_t* run, std::uint64_t size);

void median_select(TableView table, std::uint64_t begin, std::uint64_t end, std::uint64_t base,
                   std::uint64_t* values);

// The result digest of slots [begin, end): used entries and sum of mix(key) * (payload + 1)
// (digest_mix), wrapping modulo 2^64; independent of slot order, so slices add up.
struct GroupDigest {
  std::uint64_t groups = 0;
  std::uint64_t digest = 0;
  std::uint64_t payload_sum = 0;
};
GroupDigest table_digest(TableView table, std::uint64_t begin, std::uint64_t end);
[[nodiscard]] inline std::uint64_t group_digest_term(std::uint64_t key, std::uint64_t result) {
  return digest_mix(key) * (result + 1);
}

}  // namespace numatwin::validate
