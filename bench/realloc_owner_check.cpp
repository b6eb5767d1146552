// realloc_owner_check: does growing a block cost more when the thread growing it is not the one
// that allocated it, with both threads allocating at once? (docs/allocators.md, glibc's MEDIAN
// at 2 threads.) MEDIAN per group's kernel (validate/allocating_kernels.cpp) keeps one table
// shared by its threads; a group's block is malloc'd by whichever thread meets the group first
// and realloc'd by whichever thread appends when it is full. allocbench times reallocs of a
// thread's own blocks only.
//
// The loop, as the kernel's append: G groups, N values with keys uniform over the groups; a
// group's block starts at 32 bytes (header + 3 values) and doubles through realloc when full;
// each slot has a lock bit taken with fetch_or. Modes, alternated within each round:
//   own     2 threads, thread t appends the values whose key has parity t (blocks stay with
//           the thread that allocated them);
//   shared  2 threads, thread t appends every other value (about half of each block's reallocs
//           are by the thread that did not allocate it);
//   1thr    one thread appends all values.
// The slots are prefetched 16 values ahead. Output: one line per mode and round, wall seconds.
// Run it under each allocator: LD_PRELOAD=<lib> bench/realloc_owner_check [ROUNDS].
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Slot {
  std::atomic<std::uint64_t> block{0};
};

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void append(Slot& slot, std::uint64_t value) {
  std::uint64_t held = 0;
  while ((held = slot.block.fetch_or(1, std::memory_order_acquire)) & 1) {
  }
  auto* b = reinterpret_cast<std::uint64_t*>(held & ~std::uint64_t{1});
  if (b == nullptr) {
    b = static_cast<std::uint64_t*>(std::malloc(32));
    if (b == nullptr) throw std::bad_alloc();
    b[0] = std::uint64_t{3} << 32;
  }
  std::uint64_t size = b[0] & 0xFFFFFFFFu;
  std::uint64_t capacity = b[0] >> 32;
  if (size == capacity) {
    b = static_cast<std::uint64_t*>(std::realloc(b, 16 * (capacity + 1)));
    if (b == nullptr) throw std::bad_alloc();
    capacity = 2 * (capacity + 1) - 1;
  }
  b[1 + size] = value;
  ++size;
  b[0] = (capacity << 32) | size;
  slot.block.store(reinterpret_cast<std::uint64_t>(b), std::memory_order_release);
}

void run(std::vector<Slot>& table, const std::vector<std::uint64_t>& keys) {
  for (std::size_t j = 0; j < keys.size(); ++j) {
    if (j + 16 < keys.size()) __builtin_prefetch(&table[keys[j + 16]]);
    append(table[keys[j]], j);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t groups = 200000;
  const std::size_t values = 20000000;
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<std::uint64_t> all(values);
  std::vector<std::uint64_t> own[2];
  std::vector<std::uint64_t> shared[2];
  for (std::size_t i = 0; i < values; ++i) {
    all[i] = mix(i) % groups;
    own[all[i] & 1].push_back(all[i]);
    shared[i & 1].push_back(all[i]);
  }
  const char* names[] = {"own", "shared", "1thr"};
  for (int r = 0; r < rounds; ++r) {
    for (int mode = 0; mode < 3; ++mode) {
      std::vector<Slot> table(groups);
      const auto begin = std::chrono::steady_clock::now();
      if (mode == 2) {
        run(table, all);
      } else {
        const std::vector<std::uint64_t>* lists = mode == 0 ? own : shared;
        std::thread a([&] { run(table, lists[0]); });
        std::thread b([&] { run(table, lists[1]); });
        a.join();
        b.join();
      }
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
      for (Slot& s : table) std::free(reinterpret_cast<void*>(s.block.load() & ~std::uint64_t{1}));
      std::printf("round %d %-6s %.3f s\n", r, names[mode], seconds);
    }
  }
  return 0;
}
