#include "numatwin/validate/kernels/allocating_kernels.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>

#include "numatwin/validate/kernels/aggregation_kernels.hpp"

namespace numatwin::validate {
namespace {

constexpr std::uint64_t kLockBit = 1;
constexpr std::uint64_t kBucketLock = std::uint64_t{1} << 63;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// A group's block: header word (low 32 bits: values held, high 32: capacity), then the values.
std::uint64_t* new_block() {
  auto* block = static_cast<std::uint64_t*>(std::malloc(kFirstGroupBlockBytes));
  if (block == nullptr) throw std::bad_alloc();
  block[0] = std::uint64_t{kFirstGroupBlockBytes / 8 - 1} << 32;
  return block;
}

std::uint64_t* append(std::uint64_t* block, std::uint64_t value) {
  std::uint64_t size = block[0] & 0xFFFFFFFFu;
  std::uint64_t capacity = block[0] >> 32;
  if (size == capacity) {  // grow to twice the bytes: (capacity + 1) x 8 -> 2 (capacity + 1) x 8
    auto* grown = static_cast<std::uint64_t*>(std::realloc(block, 16 * (capacity + 1)));
    if (grown == nullptr) throw std::bad_alloc();
    block = grown;
    capacity = 2 * (capacity + 1) - 1;
  }
  block[1 + size] = value;
  ++size;
  block[0] = (capacity << 32) | size;
  return block;
}

// Two prefetch stages, as MEDIAN's scatter: the table slot 2 d tuples ahead, and (d ahead, its
// entry now cached) the group's block header, so the block's miss overlaps too. The address is
// read without the lock: another worker may move the block before its turn, which costs only a
// useless prefetch (a prefetch never faults).
template <bool Concurrent>
void append_impl(TableView table, const Tuple* __restrict input, std::size_t n) {
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[2 * d];
  for (std::size_t i = 0; i < std::min(n, 2 * d); ++i) {
    ring[i] = table.slot(input[i].key);
    table.prefetch(ring[i]);
  }
  const auto stage_two = [&](std::size_t i) {
    TableEntry& e = table.find_or_insert<Concurrent>(input[i].key, ring[i % (2 * d)]);
    ring[i % (2 * d)] = static_cast<std::uint64_t>(&e - table.entries);
    __builtin_prefetch(reinterpret_cast<const void*>(e.payload.load(std::memory_order_relaxed) & ~kLockBit), 1, 3);
  };
  for (std::size_t i = 0; i < std::min(n, d); ++i) stage_two(i);
  for (std::size_t i = 0; i < n; ++i) {
    std::atomic<std::uint64_t>& payload = table.entries[ring[i % (2 * d)]].payload;
    if (i + 2 * d < n) {
      ring[i % (2 * d)] = table.slot(input[i + 2 * d].key);
      table.prefetch(ring[i % (2 * d)]);
    }
    if (i + d < n) stage_two(i + d);
    std::uint64_t held = 0;
    if constexpr (Concurrent) {
      while ((held = payload.fetch_or(kLockBit, std::memory_order_acquire)) & kLockBit) cpu_relax();
    } else {
      held = payload.load(std::memory_order_relaxed);
    }
    auto* block = reinterpret_cast<std::uint64_t*>(held & ~kLockBit);
    if (block == nullptr) block = new_block();
    block = append(block, input[i].value);
    payload.store(reinterpret_cast<std::uint64_t>(block), Concurrent ? std::memory_order_release : std::memory_order_relaxed);
  }
}

std::uint64_t splitmix_finaliser(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  return digest_mix(x);
}

template <bool Concurrent>
std::uint64_t build_impl(ChainedTable table, const Tuple* __restrict r, std::size_t n, std::uint64_t* split_nodes) {
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t nodes = 0;
  std::uint64_t split = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i + d < n) __builtin_prefetch(table.buckets + table.bucket_of(r[i + d].key), 1, 3);
    ChainBucket& b = table.buckets[table.bucket_of(r[i].key)];
    std::uint64_t state = 0;
    if constexpr (Concurrent) {
      while ((state = b.state.fetch_or(kBucketLock, std::memory_order_acquire)) & kBucketLock) cpu_relax();
    } else {
      state = b.state.load(std::memory_order_relaxed);
    }
    if (state == 0) {
      b.key = r[i].key;
      b.value = r[i].value;
    } else {
      auto* node = static_cast<OverflowNode*>(std::malloc(sizeof(OverflowNode)));
      if (node == nullptr) {
        b.state.store(state, std::memory_order_release);
        throw std::bad_alloc();
      }
      *node = OverflowNode{r[i].key, r[i].value, b.next};
      b.next = node;
      ++nodes;
      split += spans_two_lines(reinterpret_cast<std::uintptr_t>(node), sizeof(OverflowNode)) ? 1 : 0;
    }
    b.state.store(state + 1, Concurrent ? std::memory_order_release : std::memory_order_relaxed);
  }
  if (split_nodes != nullptr) *split_nodes = split;
  return nodes;
}

}  // namespace

void per_group_append(TableView table, std::span<const Tuple> input, bool concurrent) {
  if (concurrent) {
    append_impl<true>(table, input.data(), input.size());
  } else {
    append_impl<false>(table, input.data(), input.size());
  }
}

void per_group_select_and_free(TableView table, std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t s = begin; s < end; ++s) {
    TableEntry& e = table.entries[s];
    if (e.key.load(std::memory_order_relaxed) == kEmptyKey) continue;
    auto* block = reinterpret_cast<std::uint64_t*>(e.payload.load(std::memory_order_relaxed));
    const std::uint64_t twice = twice_median(block + 1, block[0] & 0xFFFFFFFFu);
    std::free(block);
    e.payload.store(twice, std::memory_order_relaxed);
  }
}

void per_group_release(TableView table, std::uint64_t begin, std::uint64_t end) {
  for (std::uint64_t s = begin; s < end; ++s) {
    TableEntry& e = table.entries[s];
    if (e.key.load(std::memory_order_relaxed) == kEmptyKey) continue;
    std::free(reinterpret_cast<void*>(e.payload.load(std::memory_order_relaxed) & ~kLockBit));
    e.payload.store(0, std::memory_order_relaxed);
  }
}

std::uint64_t ChainedTable::bucket_of(std::uint64_t key) const {
  return bits == 0 ? 0 : splitmix_finaliser(key) >> (64 - bits);
}

std::uint64_t chained_bucket_count(std::uint64_t build_rows) {
  std::uint64_t b = 1;
  while (2 * b < build_rows) b *= 2;  // b >= build_rows / 2
  return b;
}

std::uint64_t chained_build(ChainedTable table, std::span<const Tuple> build, bool concurrent, std::uint64_t* split_nodes) {
  return concurrent ? build_impl<true>(table, build.data(), build.size(), split_nodes)
                    : build_impl<false>(table, build.data(), build.size(), split_nodes);
}

JoinTotals chained_probe(ChainedTable table, std::span<const Tuple> probe) {
  constexpr std::size_t d = kPrefetchDistance;
  const Tuple* __restrict s = probe.data();
  const std::size_t n = probe.size();
  JoinTotals t;
  constexpr std::size_t half = d / 2;
  for (std::size_t i = 0; i < n; ++i) {
    // The bucket d tuples ahead, and (d / 2 ahead, the bucket now cached) its first overflow node;
    // deeper nodes are known only when their predecessor has arrived.
    if (i + d < n) __builtin_prefetch(table.buckets + table.bucket_of(s[i + d].key), 0, 3);
    if (i + half < n) __builtin_prefetch(table.buckets[table.bucket_of(s[i + half].key)].next, 0, 3);
    const ChainBucket& b = table.buckets[table.bucket_of(s[i].key)];
    if (b.state.load(std::memory_order_relaxed) == 0) continue;
    const std::uint64_t key = s[i].key;
    if (b.key == key) {
      ++t.matches;
      t.checksum += b.value + s[i].value;
      continue;
    }
    for (const OverflowNode* node = b.next; node != nullptr; node = node->next) {
      if (node->key == key) {  // R's keys are distinct: the first match is the only one
        ++t.matches;
        t.checksum += node->value + s[i].value;
        break;
      }
    }
  }
  return t;
}

std::uint64_t chained_free(ChainedTable table, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t freed = 0;
  for (std::uint64_t i = begin; i < end; ++i) {
    ChainBucket& b = table.buckets[i];
    for (OverflowNode* node = b.next; node != nullptr;) {
      OverflowNode* next = node->next;
      std::free(node);
      node = next;
      ++freed;
    }
    b.next = nullptr;
    b.state.store(0, std::memory_order_relaxed);
  }
  return freed;
}

}  // namespace numatwin::validate
