#include "numatwin/validate/hash_join_kernels.hpp"

#include <algorithm>
#include <atomic>

#include "numatwin/validate/aggregation_kernels.hpp"

namespace numatwin::validate {
namespace {

template <bool Concurrent>
void build_impl(TableView table, const Tuple* __restrict r, std::size_t n) {
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[d];
  const std::size_t head = std::min(n, d);
  for (std::size_t i = 0; i < head; ++i) {
    ring[i] = table.slot(r[i].key);
    table.prefetch(ring[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t s = ring[i % d];
    if (i + d < n) {
      ring[i % d] = table.slot(r[i + d].key);
      table.prefetch(ring[i % d]);
    }
    table.insert<Concurrent>(r[i].key, r[i].value, s);
  }
}

}  // namespace

void hash_join_build(TableView table, std::span<const Tuple> build, bool concurrent) {
  if (concurrent) {
    build_impl<true>(table, build.data(), build.size());
  } else {
    build_impl<false>(table, build.data(), build.size());
  }
}

JoinTotals hash_join_probe(TableView table, std::span<const Tuple> probe) {
  const Tuple* __restrict s = probe.data();
  const std::size_t n = probe.size();
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[d];
  const std::size_t head = std::min(n, d);
  for (std::size_t i = 0; i < head; ++i) {
    ring[i] = table.slot(s[i].key);
    table.prefetch_read(ring[i]);
  }
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t slot = ring[i % d];
    if (i + d < n) {
      ring[i % d] = table.slot(s[i + d].key);
      table.prefetch_read(ring[i % d]);
    }
    const std::uint64_t key = s[i].key;
    for (;;) {
      const TableEntry& e = table.entries[slot];
      const std::uint64_t current = e.key.load(std::memory_order_relaxed);
      if (current == key) {
        ++matches;
        checksum += e.payload.load(std::memory_order_relaxed) + s[i].value;
        break;
      }
      if (current == kEmptyKey) break;
      slot = table.next(slot);
    }
  }
  return {matches, checksum};
}

}  // namespace numatwin::validate
