#include "numatwin/validate/kernels/sort_merge_join_kernel.hpp"

#include <algorithm>

namespace numatwin::validate {

void sort_by_key(std::span<Tuple> run) {
  std::sort(run.begin(), run.end(), [](const Tuple& a, const Tuple& b) { return a.key < b.key; });
}

JoinTotals merge_join(std::span<const Tuple> facts, std::span<const Tuple> dims) {
  const Tuple* __restrict f = facts.data();
  const Tuple* __restrict d = dims.data();
  const std::size_t nf = facts.size();
  const std::size_t nd = dims.size();
  std::size_t i = 0;
  std::size_t j = 0;
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  while (i < nf && j < nd) {
    const std::uint64_t fk = f[i].key;
    const std::uint64_t dk = d[j].key;
    if (fk < dk) {
      ++i;
    } else if (fk > dk) {
      ++j;
    } else {
      ++matches;
      checksum += d[j].value + f[i].value;
      ++i;  // the next fact may match the same dimension key
    }
  }
  return {matches, checksum};
}

}  // namespace numatwin::validate

namespace numatwin::validate {

std::size_t range_of(std::uint64_t key, std::span<const std::uint64_t> lower) {
  // The last range whose lower bound is <= key (lower[0] is the smallest key).
  const auto it = std::upper_bound(lower.begin() + 1, lower.end(), key);
  return static_cast<std::size_t>(it - (lower.begin() + 1));
}

std::vector<std::size_t> range_histogram(std::span<const Tuple> chunk,
                                         std::span<const std::uint64_t> lower) {
  std::vector<std::size_t> count(lower.size(), 0);
  for (const Tuple& t : chunk) ++count[range_of(t.key, lower)];
  return count;
}

void range_scatter(std::span<const Tuple> chunk, std::span<const std::uint64_t> lower,
                   std::vector<std::size_t> offset, Tuple* out) {
  for (const Tuple& t : chunk) out[offset[range_of(t.key, lower)]++] = t;
}

}  // namespace numatwin::validate
