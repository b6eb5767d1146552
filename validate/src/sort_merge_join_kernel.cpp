#include "numatwin/validate/sort_merge_join_kernel.hpp"

namespace numatwin::validate {

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
