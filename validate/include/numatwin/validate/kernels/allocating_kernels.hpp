// Kernels that allocate as the studies' code did (issue 16), through the process's malloc (glibc,
// or jemalloc / tcmalloc / tbbmalloc preloaded by `--allocator`):
//  - MEDIAN per group (Memarzia et al.'s holistic aggregation): each group's values live in a
//    block of its own, malloc'd at 32 bytes on the group's first value and grown by realloc to
//    twice its bytes when full. A block of b bytes is an 8-byte header (size, capacity) and
//    b / 8 - 1 values, so a group of k values ends in a block of 32 x 2^r(k) bytes after
//    r(k) = max(0, ceil(log2((k + 1) / 4))) reallocs (sim/include/numatwin/sim/plan/allocation_costs.hpp
//    uses the same rule). The shared table's payload holds the block's address; with several
//    workers its lowest bit is the group's lock (blocks are 16-byte aligned).
//  - The chained hash join (Blanas et al.): B buckets of 32 bytes (lock and count, one tuple
//    inline, the head of the overflow chain), B the power of two >= |R| / 2; a bucket's second and
//    later tuples are overflow nodes of 24 bytes (key, value, next), one malloc each, pushed at
//    the chain's head. The bucket of a key is the top log2 B bits of splitmix64's finaliser of it
//    (a mixing hash: the buckets' loads are Poisson, as the model assumes).
// Both free everything they allocated at the end of the run, inside the timed part.
#pragma once

#include <atomic>
#include <cstdint>
#include <span>

#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/operator_data.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"

namespace numatwin::validate {

inline constexpr std::size_t kFirstGroupBlockBytes = 32;

// Appends each tuple's value to its group's block (inserting the group). `concurrent`: other
// workers append too (per-group lock). Throws std::bad_alloc when malloc/realloc fails.
void per_group_append(TableView table, std::span<const Tuple> input, bool concurrent);

// For slots [begin, end): each group's block becomes twice its median (the payload), and the
// block is freed.
void per_group_select_and_free(TableView table, std::uint64_t begin, std::uint64_t end);

// Frees every block still held in slots [begin, end) (after a failed run) and clears the payloads.
void per_group_release(TableView table, std::uint64_t begin, std::uint64_t end);

struct OverflowNode {
  std::uint64_t key;
  std::uint64_t value;
  OverflowNode* next;
};

struct alignas(32) ChainBucket {
  std::atomic<std::uint64_t> state;  // bit 63: lock; bits 0-62: tuples in the bucket
  std::uint64_t key;
  std::uint64_t value;
  OverflowNode* next;
};
static_assert(sizeof(ChainBucket) == 32);

struct ChainedTable {
  ChainBucket* buckets = nullptr;
  std::uint64_t bucket_count = 0;  // a power of two
  int bits = 0;                    // log2(bucket_count)

  [[nodiscard]] std::uint64_t bucket_of(std::uint64_t key) const;
};

// The power of two >= build_rows / 2 (at least 1).
std::uint64_t chained_bucket_count(std::uint64_t build_rows);

// Inserts the chunk of R; returns the overflow nodes it allocated, and when `split_nodes` is
// given, how many of them span two 64-byte lines (line_split_bench.hpp). Throws std::bad_alloc.
std::uint64_t chained_build(ChainedTable table, std::span<const Tuple> build, bool concurrent, std::uint64_t* split_nodes = nullptr);

// Probes with the chunk of S (read-only): matches and sum(r.value + s.value).
JoinTotals chained_probe(ChainedTable table, std::span<const Tuple> probe);

// Frees the overflow chains of buckets [begin, end) and empties them; returns the nodes freed.
std::uint64_t chained_free(ChainedTable table, std::uint64_t begin, std::uint64_t end);

}  // namespace numatwin::validate
