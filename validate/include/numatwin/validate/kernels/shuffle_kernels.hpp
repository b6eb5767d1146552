// The timed inner loops of the shuffle family and of partitioned aggregation (Li et al.;
// docs/algorithms.md section 1), and the untimed helpers that lay their data out.
//
//   sum_elements        the shuffle consumer: the 64-bit sum of a piece of 64-bit integers (the
//                       study computes a mean: one add per element), eight independent lanes
//                       per 64-byte line so that the loop is bound by the loads alone.
//   aggregate_piece     SELECT key, COUNT(*), SUM(value) GROUP BY key over one piece of
//                       (key, value) tuples into an open-addressing table (linear probing,
//                       power-of-two capacity, at most half full), with a software prefetch
//                       of the slot kPrefetchDistance (aggregation_kernels.hpp) tuples ahead.
//   partition_in_place  splits a worker's tuples into `parts` key partitions in place (an
//                       American-flag pass: counts, then cycles of swaps), so that data
//                       generation stays the first touch and no second buffer is needed.
// Hashing: key_hash (a 64-bit finaliser); a key's partition comes from the high half of its hash,
// its table slot from the low bits, so that the tables of partitions do not share slot patterns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "numatwin/validate/kernels/data_generator.hpp"

namespace numatwin::validate {

// 64-bit integers of the shuffle.
std::uint64_t sum_elements(const std::uint64_t* data, std::size_t count);

// A 64-bit finaliser (every input bit affects every output bit).
[[nodiscard]] inline std::uint64_t key_hash(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}
// The value of element `index` of the shuffle's data (seeded): what producers write.
[[nodiscard]] inline std::uint64_t shuffle_element(std::uint64_t seed, std::uint64_t index) {
  return key_hash(index * 0x9e3779b97f4a7c15ULL + seed);
}

// Partitioned aggregation's input tuple (tuple_bytes 16): Tuple of data_generator.hpp.

// One group of a table: 16 bytes as the simulator's entry_bytes. `key_plus_one` 0 marks a free
// slot, so keys must be < 2^32 - 1 and a group's count < 2^32 (checked before running).
struct GroupEntry {
  std::uint32_t key_plus_one;
  std::uint32_t count;
  std::uint64_t sum;
};
static_assert(sizeof(GroupEntry) == 16);

inline constexpr std::uint64_t kMaxAggregationKey = 0xfffffffeULL;  // keys must be below this

// The key partition (0 .. parts-1) of a key.
[[nodiscard]] inline int partition_of(std::uint64_t key, int parts) {
  return static_cast<int>(((key_hash(key) >> 32) * static_cast<std::uint64_t>(parts)) >> 32);
}

// Slots of a table for `groups` expected groups: the smallest power of two >= 2 x groups (half
// full, as the simulator assumes), at least 16.
[[nodiscard]] std::size_t table_slots(double groups);

struct AggregationTable {
  GroupEntry* slots = nullptr;
  std::size_t mask = 0;        // slots - 1
  std::size_t* used = nullptr;  // occupied slots, updated on every new group
  bool* overflow = nullptr;     // set (and the tuple dropped) when the table is full
};

// Adds every tuple of [tuples, tuples + count) to `table`.
void aggregate_piece(const Tuple* tuples, std::size_t count, const AggregationTable& table);

// Reorders tuples[0, count) so that partition 0 comes first, then 1, ...; returns the start of
// every partition and the end (parts + 1 offsets).
std::vector<std::size_t> partition_in_place(Tuple* tuples, std::size_t count, int parts);

}  // namespace numatwin::validate
