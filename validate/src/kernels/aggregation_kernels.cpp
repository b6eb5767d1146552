#include "numatwin/validate/kernels/aggregation_kernels.hpp"

#include <algorithm>

namespace numatwin::validate {
namespace {

template <bool Concurrent>
void count_impl(TableView table, const Tuple* __restrict input, std::size_t n) {
  prefetched_loop<true>(table, input, n, [&](std::size_t i, std::uint64_t s) {
    TableView::add<Concurrent>(table.find_or_insert<Concurrent>(input[i].key, s), 1);
  });
}

// Two prefetch stages: the table slot 2 d tuples ahead, and (d ahead, its entry now cached) the
// values line the group's cursor points at, so the append's write miss overlaps too.
template <bool Concurrent>
void scatter_impl(TableView table, const Tuple* __restrict input, std::size_t n,
                  std::uint64_t* __restrict values) {
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[2 * d];
  const auto find = [&](std::size_t i, std::uint64_t s) {
    const std::uint64_t key = input[i].key;
    while (table.entries[s].key.load(std::memory_order_relaxed) != key)
      s = table.next(s);  // every key is present
    return s;
  };
  for (std::size_t i = 0; i < std::min(n, 2 * d); ++i) {
    ring[i] = table.slot(input[i].key);
    table.prefetch(ring[i]);
  }
  for (std::size_t i = 0; i < std::min(n, d); ++i) {
    ring[i] = find(i, ring[i]);
    __builtin_prefetch(values + table.entries[ring[i]].payload.load(std::memory_order_relaxed), 1,
                       3);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t s = ring[i % (2 * d)];
    if (i + 2 * d < n) {
      ring[i % (2 * d)] = table.slot(input[i + 2 * d].key);
      table.prefetch(ring[i % (2 * d)]);
    }
    if (i + d < n) {
      const std::size_t j = (i + d) % (2 * d);
      ring[j] = find(i + d, ring[j]);
      __builtin_prefetch(values + table.entries[ring[j]].payload.load(std::memory_order_relaxed), 1,
                         3);
    }
    std::atomic<std::uint64_t>& cursor = table.entries[s].payload;
    std::uint64_t at = 0;
    if constexpr (Concurrent) {
      at = cursor.fetch_add(1, std::memory_order_relaxed);
    } else {
      at = cursor.load(std::memory_order_relaxed);
      cursor.store(at + 1, std::memory_order_relaxed);
    }
    values[at] = input[i].value;
  }
}

}  // namespace

void count_aggregate(TableView table, std::span<const Tuple> input, bool concurrent) {
  if (concurrent) {
    count_impl<true>(table, input.data(), input.size());
  } else {
    count_impl<false>(table, input.data(), input.size());
  }
}

std::uint64_t slice_total(TableView table, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t total = 0;
  for (std::uint64_t s = begin; s < end; ++s) {
    if (table.entries[s].key.load(std::memory_order_relaxed) != kEmptyKey)
      total += table.entries[s].payload.load(std::memory_order_relaxed);
  }
  return total;
}

void counts_to_offsets(TableView table, std::uint64_t begin, std::uint64_t end,
                       std::uint64_t base) {
  for (std::uint64_t s = begin; s < end; ++s) {
    TableEntry& e = table.entries[s];
    if (e.key.load(std::memory_order_relaxed) == kEmptyKey) continue;
    const std::uint64_t count = e.payload.load(std::memory_order_relaxed);
    e.payload.store(base, std::memory_order_relaxed);
    base += count;
  }
}

void median_scatter(TableView table, std::span<const Tuple> input, std::uint64_t* values,
                    bool concurrent) {
  if (concurrent) {
    scatter_impl<true>(table, input.data(), input.size(), values);
  } else {
    scatter_impl<false>(table, input.data(), input.size(), values);
  }
}

std::uint64_t twice_median(std::uint64_t* run, std::uint64_t size) {
  if (size == 1) return 2 * run[0];
  if (size == 2) return run[0] + run[1];
  if (size <= 32) {
    // Small runs (the common case: records / groups values each): insertion sort is cheaper
    // than nth_element's partitioning.
    for (std::uint64_t a = 1; a < size; ++a) {
      const std::uint64_t v = run[a];
      std::uint64_t b = a;
      for (; b > 0 && run[b - 1] > v; --b) run[b] = run[b - 1];
      run[b] = v;
    }
    return run[(size - 1) / 2] + run[size / 2];
  }
  const std::uint64_t k = (size - 1) / 2;
  std::nth_element(run, run + k, run + size);
  const std::uint64_t lo = run[k];
  const std::uint64_t hi = size % 2 == 1 ? lo : *std::min_element(run + k + 1, run + size);
  return lo + hi;
}

void median_select(TableView table, std::uint64_t begin, std::uint64_t end, std::uint64_t base,
                   std::uint64_t* values) {
  std::uint64_t start = base;
  for (std::uint64_t s = begin; s < end; ++s) {
    TableEntry& e = table.entries[s];
    if (e.key.load(std::memory_order_relaxed) == kEmptyKey) continue;
    const std::uint64_t stop = e.payload.load(std::memory_order_relaxed);
    e.payload.store(twice_median(values + start, stop - start), std::memory_order_relaxed);
    start = stop;
  }
}

GroupDigest table_digest(TableView table, std::uint64_t begin, std::uint64_t end) {
  GroupDigest d;
  for (std::uint64_t s = begin; s < end; ++s) {
    const std::uint64_t key = table.entries[s].key.load(std::memory_order_relaxed);
    if (key == kEmptyKey) continue;
    const std::uint64_t payload = table.entries[s].payload.load(std::memory_order_relaxed);
    ++d.groups;
    d.digest += group_digest_term(key, payload);
    d.payload_sum += payload;
  }
  return d;
}

}  // namespace numatwin::validate
