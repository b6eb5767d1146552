#include "numatwin/validate/kernels/hash_join_kernels.hpp"

#include <atomic>

#include "numatwin/validate/kernels/aggregation_kernels.hpp"

namespace numatwin::validate {
namespace {

template <bool Concurrent>
void build_impl(TableView table, const Tuple* __restrict r, std::size_t n) {
  prefetched_loop<true>(table, r, n, [&](std::size_t i, std::uint64_t s) { table.insert<Concurrent>(r[i].key, r[i].value, s); });
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
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  prefetched_loop<false>(table, s, probe.size(), [&](std::size_t i, std::uint64_t slot) {
    const std::uint64_t key = s[i].key;
    for (;;) {
      const TableEntry& e = table.entries[slot];
      const std::uint64_t current = e.key.load(std::memory_order_relaxed);
      if (current == key) {
        ++matches;
        checksum += e.payload.load(std::memory_order_relaxed) + s[i].value;
        return;
      }
      if (current == kEmptyKey) return;
      slot = table.next(slot);
    }
  });
  return {matches, checksum};
}

}  // namespace numatwin::validate
