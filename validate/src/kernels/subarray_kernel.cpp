#include "numatwin/validate/kernels/subarray_kernel.hpp"

#include <bit>
#include <cstring>

namespace numatwin::validate {
namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

void append(const double* block, std::size_t n, double* result, std::atomic<std::uint64_t>& cursor) {
  const std::uint64_t at = cursor.fetch_add(n, std::memory_order_relaxed);
  std::memcpy(result + at, block, n * sizeof(double));
}

}  // namespace

double subarray_cell_value(std::uint64_t i) { return static_cast<double>(mix(i) >> 11) * 0x1.0p-53; }

SubarrayTotals subarray_filter(const double* cells, std::size_t begin, std::size_t end, double threshold, double* result,
                               std::atomic<std::uint64_t>& cursor) {
  SubarrayTotals totals;
  double block[kSubarrayClaimCells];
  std::size_t held = 0;
  for (std::size_t i = begin; i < end; ++i) {
    const double v = cells[i];
    block[held] = v;
    held += v < threshold ? 1 : 0;  // branch-free: the slot is overwritten unless selected
    if (held == kSubarrayClaimCells) {
      for (double x : block) totals.bits += std::bit_cast<std::uint64_t>(x);
      append(block, held, result, cursor);
      totals.selected += held;
      held = 0;
    }
  }
  for (std::size_t k = 0; k < held; ++k) totals.bits += std::bit_cast<std::uint64_t>(block[k]);
  if (held > 0) append(block, held, result, cursor);
  totals.selected += held;
  return totals;
}

}  // namespace numatwin::validate
