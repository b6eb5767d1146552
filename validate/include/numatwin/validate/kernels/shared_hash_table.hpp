// The shared hash table of the operator kernels (Memarzia et al.'s W1-W3): one open-addressing
// table of 16-byte entries (key, payload) that every worker updates concurrently, lock-free.
//
//   slot(key)   Fibonacci hashing: h = key * 2^64/phi (odd), slot = high 64 bits of h * capacity,
//               so the capacity need not be a power of two (the simulator sizes tables at
//               exactly twice the entries: half full). Linear probing, wrapping at the end.
//   insert      claim an empty slot with a compare-and-swap on the key; a worker that loses the
//               race re-reads the key and either finds its own key there or probes on.
//   payload     COUNT adds with fetch_add; joins store the build tuple's value once.
//
// `Concurrent = false` (one worker) replaces the atomic read-modify-writes by plain loads and
// stores: no other thread can race, and lock-prefixed instructions would only serialise the loop.
// Entries live in caller-owned memory (a PlacedDataset), so pages follow the memory policy.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace numatwin::validate {

inline constexpr std::uint64_t kEmptyKey = ~std::uint64_t{0};
inline constexpr std::uint64_t kFibonacci = 0x9E3779B97F4A7C15ULL;

struct alignas(16) TableEntry {
  std::atomic<std::uint64_t> key;
  std::atomic<std::uint64_t> payload;
};
static_assert(sizeof(TableEntry) == 16);
static_assert(std::atomic<std::uint64_t>::is_always_lock_free);

__extension__ using WideProduct = unsigned __int128;  // GCC and clang; silences -Wpedantic

struct TableView {
  TableEntry* entries = nullptr;
  std::uint64_t capacity = 0;

  [[nodiscard]] std::uint64_t slot(std::uint64_t key) const {
    const std::uint64_t h = key * kFibonacci;
    return static_cast<std::uint64_t>((static_cast<WideProduct>(h) * capacity) >> 64);
  }
  [[nodiscard]] std::uint64_t next(std::uint64_t s) const { return s + 1 == capacity ? 0 : s + 1; }
  void prefetch(std::uint64_t s) const { __builtin_prefetch(entries + s, 1, 3); }
  void prefetch_read(std::uint64_t s) const { __builtin_prefetch(entries + s, 0, 3); }

  // Entries [begin, end) become empty (key kEmptyKey, payload 0).
  void clear(std::uint64_t begin, std::uint64_t end) const {
    for (std::uint64_t s = begin; s < end; ++s) {
      entries[s].key.store(kEmptyKey, std::memory_order_relaxed);
      entries[s].payload.store(0, std::memory_order_relaxed);
    }
  }

  // The entry of `key` starting at slot `s`, inserted (payload 0) when missing. The table must
  // have an empty slot (it is sized at twice the distinct keys).
  template <bool Concurrent>
  [[nodiscard]] TableEntry& find_or_insert(std::uint64_t key, std::uint64_t s) const {
    for (;;) {
      TableEntry& e = entries[s];
      std::uint64_t current = e.key.load(std::memory_order_relaxed);
      if (current == key) return e;
      if (current == kEmptyKey) {
        if constexpr (Concurrent) {
          if (e.key.compare_exchange_strong(current, key, std::memory_order_relaxed) ||
              current == key)
            return e;
        } else {
          e.key.store(key, std::memory_order_relaxed);
          return e;
        }
      }
      s = next(s);
    }
  }

  template <bool Concurrent>
  static void add(TableEntry& e, std::uint64_t amount) {
    if constexpr (Concurrent) {
      e.payload.fetch_add(amount, std::memory_order_relaxed);
    } else {
      e.payload.store(e.payload.load(std::memory_order_relaxed) + amount,
                      std::memory_order_relaxed);
    }
  }

  // Inserts a new entry (key, payload) starting at slot `s`; duplicates get their own entry.
  // Readers run after a barrier (build, then probe), which orders the payload store before them.
  template <bool Concurrent>
  void insert(std::uint64_t key, std::uint64_t payload, std::uint64_t s) const {
    for (;;) {
      TableEntry& e = entries[s];
      std::uint64_t current = e.key.load(std::memory_order_relaxed);
      if (current == kEmptyKey) {
        if constexpr (Concurrent) {
          if (e.key.compare_exchange_strong(current, key, std::memory_order_relaxed)) {
            e.payload.store(payload, std::memory_order_relaxed);
            return;
          }
        } else {
          e.key.store(key, std::memory_order_relaxed);
          e.payload.store(payload, std::memory_order_relaxed);
          return;
        }
      }
      s = next(s);
    }
  }

  // The first entry holding `key` from slot `s`, or nullptr. Read-only (after the build).
  [[nodiscard]] const TableEntry* find(std::uint64_t key, std::uint64_t s) const {
    for (;;) {
      const TableEntry& e = entries[s];
      const std::uint64_t current = e.key.load(std::memory_order_relaxed);
      if (current == key) return &e;
      if (current == kEmptyKey) return nullptr;
      s = next(s);
    }
  }
};

// 64-bit finaliser (splitmix64's): the digests of operator results mix the key with it.
[[nodiscard]] inline std::uint64_t digest_mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

}  // namespace numatwin::validate
