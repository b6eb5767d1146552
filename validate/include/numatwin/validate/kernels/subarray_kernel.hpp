// The subarray filter's inner loop, as the model describes it (sim/src/plan/operators/subarray.cpp):
// every cell of a slice is tested against the range, the selected cells are collected in a
// block of kSubarrayClaimCells on the stack and appended to the chunk's result with one atomic
// add on the chunk's shared cursor per block.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace numatwin::validate {

constexpr std::size_t kSubarrayClaimCells = 64;  // the model's claim block (subarray.cpp)

// The value of cell i: uniform in [0, 1) (splitmix64 of i, 53 bits), so that `v < s` selects a
// share s of every chunk.
double subarray_cell_value(std::uint64_t i);

struct SubarrayTotals {
  std::uint64_t selected = 0;
  std::uint64_t bits = 0;  // sum of the selected values' bit patterns (mod 2^64): order-free
  SubarrayTotals& operator+=(const SubarrayTotals& o) {
    selected += o.selected;
    bits += o.bits;
    return *this;
  }
};

// Filters cells[begin, end): appends every value < threshold to `result` at the positions the
// chunk's `cursor` hands out. Returns what it appended.
SubarrayTotals subarray_filter(const double* cells, std::size_t begin, std::size_t end, double threshold, double* result,
                               std::atomic<std::uint64_t>& cursor);

}  // namespace numatwin::validate
