// The steps of the radix-partitioned hash join (hash_join_kernels.hpp; radix_join_kernel.cpp
// runs them on a team): the histogram, the scatter through write-combining buffers flushed with
// streaming stores, and the build and probe of a partition's private table. In a header of
// their own so that the cost microbenchmarks (cost_microbenchmarks.cpp) time the very same
// loops on one core. Private to the validate library.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace numatwin::validate::radix {


constexpr std::size_t kLineBytes = 64;
constexpr std::uint32_t kTuplesPerLine = kLineBytes / sizeof(Tuple);
// Stream loops prefetch this many tuples (4 KiB) ahead, once per line: the hardware prefetcher
// stops at page boundaries, and the input and S' are read from memory.
constexpr std::size_t kStreamAheadTuples = 256;
// Up to this many partitions, each write-combining buffer holds 4 lines (one flush per 16
// tuples: fewer mispredicted flush branches; 128 x 256 bytes stay in L1); beyond, one line.
constexpr std::size_t kWideBufferPartitions = 128;
constexpr std::uint32_t kWideBufferLines = 4;

// The top `bits` bits of the key's Fibonacci hash; 0 when bits is 0 (no shift by 64).
inline std::uint64_t radix_partition_of(std::uint64_t key, int bits) {
  return ((key * kFibonacci) >> 1) >> (63 - bits);
}

// Calls visit(i) for i in [0, n), prefetching in[i + kStreamAheadTuples] once per line. (Two
// loops rather than a bounds test beside the prefetch: GCC 12 dropped such a prefetch.)
template <typename Visit>
inline void for_each_streamed(const Tuple* in, std::size_t n, Visit&& visit) {
  const std::size_t ahead_end = n > kStreamAheadTuples ? n - kStreamAheadTuples : 0;
  std::size_t i = 0;
  for (; i < ahead_end; ++i) {
    if (i % kTuplesPerLine == 0) __builtin_prefetch(in + i + kStreamAheadTuples);
    visit(i);
  }
  for (; i < n; ++i) visit(i);
}

inline void count_partitions(const Tuple* __restrict in, std::size_t n, int bits,
                      std::uint64_t* __restrict counts) {
  for_each_streamed(in, n, [&](std::size_t i) { ++counts[radix_partition_of(in[i].key, bits)]; });
}

struct alignas(kLineBytes) Line {
  Tuple tuples[kTuplesPerLine];
};

// One worker's software write-combining state, allocated before the parallel part. Per
// partition p: a buffer of `lines` cache lines; base[p], the output index of the buffer's first
// slot (line-aligned: below the partition's first index until the first flush); fill[p], the
// next free slot.
struct ScatterBuffers {
  ScatterBuffers(std::size_t partitions, std::uint32_t lines_per_buffer)
      : lines(lines_per_buffer),
        buffers(std::make_unique<Line[]>(partitions * lines_per_buffer)),
        base(partitions),
        fill(partitions) {}
  std::uint32_t lines;
  std::unique_ptr<Line[]> buffers;
  std::vector<std::int64_t> base;
  std::vector<std::uint32_t> fill;
};

// Copies Slots tuples from a line-aligned buffer to a line-aligned destination, bypassing the
// caches (no read for ownership; the copies are read back only in the join phase).
template <std::uint32_t Slots>
inline void stream_tuples(Tuple* __restrict dst, const Tuple* __restrict src) {
#if defined(__SSE2__)
  for (std::uint32_t k = 0; k < Slots; ++k)
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + k),
                     _mm_load_si128(reinterpret_cast<const __m128i*>(src + k)));
#else
  std::memcpy(dst, src, Slots * sizeof(Tuple));
#endif
}

// Copies `in` to out[first[p] ...) per partition p (first[p] advanced by the tuples written).
// Full buffers go out with streaming stores when `out` is 16-byte aligned; a partition's first
// (partial) and last buffers with ordinary stores, since their lines are shared with the
// neighbouring ranges, which other workers may write.
template <std::uint32_t Lines>
void scatter_partitions(const Tuple* __restrict in, std::size_t n, Tuple* __restrict out,
                        std::uint64_t* __restrict first, int bits, ScatterBuffers& state) {
  constexpr std::uint32_t kSlots = Lines * kTuplesPerLine;
  const std::size_t parts = std::size_t{1} << bits;
  const auto address = reinterpret_cast<std::uintptr_t>(out);
  const bool aligned = address % sizeof(Tuple) == 0;
  // Index i starts a line when (lead + i) is a multiple of kTuplesPerLine.
  const std::uint64_t lead = aligned ? (address / sizeof(Tuple)) % kTuplesPerLine : 0;
  Tuple* __restrict buffers = state.buffers[0].tuples;
  std::int64_t* __restrict base = state.base.data();
  std::uint32_t* __restrict fill = state.fill.data();
  for (std::size_t p = 0; p < parts; ++p) {
    const std::uint64_t before = (lead + first[p]) % kTuplesPerLine;
    base[p] = static_cast<std::int64_t>(first[p] - before);
    fill[p] = static_cast<std::uint32_t>(before);
  }
  for_each_streamed(in, n, [&](std::size_t i) {
    const std::uint64_t p = radix_partition_of(in[i].key, bits);
    Tuple* buffer = buffers + p * kSlots;
    const std::uint32_t f = fill[p];
    buffer[f] = in[i];
    if (f + 1 < kSlots) {
      fill[p] = f + 1;
      return;
    }
    fill[p] = 0;
    const std::int64_t b = base[p];
    const auto start = static_cast<std::int64_t>(first[p]);
    if (b >= start && aligned) {
      stream_tuples<kSlots>(out + b, buffer);
    } else {
      const std::int64_t from = std::max(b, start);
      std::memcpy(out + from, buffer + (from - b),
                  static_cast<std::size_t>(b + kSlots - from) * sizeof(Tuple));
    }
    base[p] = b + kSlots;
  });
  for (std::size_t p = 0; p < parts; ++p) {
    const std::int64_t b = base[p];
    const std::int64_t from = std::max(b, static_cast<std::int64_t>(first[p]));
    const std::int64_t to = b + fill[p];
    if (to > from)
      std::memcpy(out + from, buffers + p * kSlots + (from - b),
                  static_cast<std::size_t>(to - from) * sizeof(Tuple));
    first[p] = static_cast<std::uint64_t>(std::max(to, from));
  }
#if defined(__SSE2__)
  _mm_sfence();  // the streaming stores are weakly ordered: visible before the barrier
#endif
}

inline void scatter(const Tuple* in, std::size_t n, Tuple* out, std::uint64_t* first, int bits,
             ScatterBuffers& state) {
  if (state.lines == kWideBufferLines)
    scatter_partitions<kWideBufferLines>(in, n, out, first, bits, state);
  else
    scatter_partitions<1>(in, n, out, first, bits, state);
}

struct LocalEntry {
  std::uint64_t key;
  std::uint64_t value;
};

// The slot of `key` in a partition's table of 2^capacity_bits entries: the hash bits below the
// partition bits.
inline std::uint64_t partition_table_slot(std::uint64_t key, int bits, int capacity_bits) {
  return ((key * kFibonacci) << bits) >> (64 - capacity_bits);
}

// Empties a partition's table and inserts r_p (the build step of join_partition).
inline void build_partition_table(const Tuple* __restrict r, std::size_t nr, int bits,
                                  LocalEntry* __restrict table, int capacity_bits) {
  const std::size_t capacity = std::size_t{1} << capacity_bits;
  const std::uint64_t mask = capacity - 1;
  std::memset(table, 0xFF, capacity * sizeof(LocalEntry));  // every key kEmptyKey
  for_each_streamed(r, nr, [&](std::size_t i) {
    std::uint64_t h = partition_table_slot(r[i].key, bits, capacity_bits);
    while (table[h].key != kEmptyKey) h = (h + 1) & mask;
    table[h] = {r[i].key, r[i].value};
  });
}

// Probes a partition's table with s_p (the probe step of join_partition).
inline JoinTotals probe_partition_table(const Tuple* __restrict s, std::size_t ns, int bits,
                                        const LocalEntry* __restrict table, int capacity_bits) {
  const std::uint64_t mask = (std::uint64_t{1} << capacity_bits) - 1;
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  for_each_streamed(s, ns, [&](std::size_t i) {
    const std::uint64_t key = s[i].key;
    std::uint64_t h = partition_table_slot(key, bits, capacity_bits);
    for (;;) {
      const LocalEntry& e = table[h];
      if (e.key == key) {
        ++matches;
        checksum += e.value + s[i].value;
        return;
      }
      if (e.key == kEmptyKey) return;
      h = (h + 1) & mask;
    }
  });
  return {matches, checksum};
}

// Builds a private table from r_p and probes it with s_p; hash bits below the partition bits.
inline JoinTotals join_partition(const Tuple* __restrict r, std::size_t nr, const Tuple* __restrict s,
                                 std::size_t ns, int bits, LocalEntry* __restrict table,
                                 int capacity_bits) {
  if (nr == 0 || ns == 0) return {};
  build_partition_table(r, nr, bits, table, capacity_bits);
  return probe_partition_table(s, ns, bits, table, capacity_bits);
}

// The smallest power of two >= 2 |R_p| (at least 2): the table half full at most.
inline int table_bits(std::uint64_t build_tuples) {
  return static_cast<int>(std::bit_width(std::max<std::uint64_t>(2 * build_tuples, 2) - 1));
}

}  // namespace numatwin::validate::radix
