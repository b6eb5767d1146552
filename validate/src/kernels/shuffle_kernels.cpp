#include "numatwin/validate/kernels/shuffle_kernels.hpp"

#include "numatwin/validate/kernels/aggregation_kernels.hpp"  // kPrefetchDistance: one distance for every table loop

#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace numatwin::validate {
namespace {

using Lanes = unsigned long long __attribute__((vector_size(16)));


}  // namespace

std::uint64_t sum_elements(const std::uint64_t* __restrict data, std::size_t count) {
  // Two 64-byte lines per iteration into eight independent 2-lane sums: no dependency chain
  // longer than one add per 128 bytes, so the loop runs at the loads' rate.
  Lanes a{0, 0}, b{0, 0}, c{0, 0}, d{0, 0}, e{0, 0}, f{0, 0}, g{0, 0}, h{0, 0};
  std::size_t i = 0;
  for (; i + 16 <= count; i += 16) {
    Lanes v[8];
    std::memcpy(v, data + i, sizeof v);
    a += v[0];
    b += v[1];
    c += v[2];
    d += v[3];
    e += v[4];
    f += v[5];
    g += v[6];
    h += v[7];
  }
  const Lanes total = ((a + b) + (c + d)) + ((e + f) + (g + h));
  std::uint64_t sum = total[0] + total[1];
  for (; i < count; ++i) sum += data[i];
  return sum;
}

std::size_t table_slots(double groups) {
  const double wanted = std::max(16.0, 2.0 * std::ceil(groups));
  std::size_t slots = 16;
  while (static_cast<double>(slots) < wanted) slots *= 2;
  return slots;
}

void aggregate_piece(const Tuple* __restrict tuples, std::size_t count, const AggregationTable& table) {
  GroupEntry* __restrict slots = table.slots;
  const std::size_t mask = table.mask;
  std::size_t used = *table.used;
  for (std::size_t i = 0; i < count; ++i) {
    if (i + kPrefetchDistance < count) __builtin_prefetch(&slots[key_hash(tuples[i + kPrefetchDistance].key) & mask], 1, 3);
    const std::uint64_t key = tuples[i].key;
    const std::uint64_t value = tuples[i].value;
    const auto key_plus_one = static_cast<std::uint32_t>(key + 1);
    std::size_t s = key_hash(key) & mask;
    for (;;) {
      GroupEntry& entry = slots[s];
      if (entry.key_plus_one == key_plus_one) {
        ++entry.count;
        entry.sum += value;
        break;
      }
      if (entry.key_plus_one == 0) {
        if (used + 1 > mask) {  // keep one slot free so that probing ends
          *table.overflow = true;
          break;
        }
        entry = GroupEntry{key_plus_one, 1, value};
        ++used;
        break;
      }
      s = (s + 1) & mask;
    }
  }
  *table.used = used;
}

std::vector<std::size_t> partition_in_place(Tuple* tuples, std::size_t count, int parts) {
  const auto n = static_cast<std::size_t>(parts);
  std::vector<std::size_t> offsets(n + 1, 0);
  for (std::size_t i = 0; i < count; ++i) ++offsets[static_cast<std::size_t>(partition_of(tuples[i].key, parts)) + 1];
  for (std::size_t p = 0; p < n; ++p) offsets[p + 1] += offsets[p];
  std::vector<std::size_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t p = 0; p < n; ++p) {
    while (next[p] < offsets[p + 1]) {
      Tuple moving = tuples[next[p]];
      auto q = static_cast<std::size_t>(partition_of(moving.key, parts));
      while (q != p) {
        std::swap(moving, tuples[next[q]++]);
        q = static_cast<std::size_t>(partition_of(moving.key, parts));
      }
      tuples[next[p]++] = moving;
    }
  }
  return offsets;
}

}  // namespace numatwin::validate
