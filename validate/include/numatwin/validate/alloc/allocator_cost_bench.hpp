// The allocator's costs for the model (model/allocator_costs.hpp), measured in this process with
// whatever malloc it runs (glibc, or a preloaded jemalloc / tcmalloc / tbbmalloc):
// for T = 1 .. max_threads threads and each size class s (powers of two), every thread at once
//   malloc:      K mallocs of s bytes, the first byte of each written   -> malloc_ns
//   free:        the same K frees, in allocation order, by the thread that allocated them -> free_ns
//   realloc:     K objects of s / 2 bytes (allocated and filled, untimed) grown to s bytes each,
//                in order -> realloc_ns (the copy included when the allocator moves the object)
//   remote free: K mallocs (untimed), a barrier, then thread i frees thread i+1's objects
//                (with T = 1 a second thread frees them after the first has finished) -> remote_free_ns
// K = clamp(bytes_per_size / s, min_objects, max_objects). Each figure is the per-operation mean
// over the threads of one repetition; the reported value is the median over the repetitions.
// The overhead ratio comes from run_allocator_bench (allocator_bench.hpp), which the caller runs
// first in a fresh process.
#pragma once

#include <cstdint>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"

namespace numatwin::validate {

struct AllocatorCostBenchOptions {
  int max_threads = 2;
  std::vector<std::int64_t> sizes = {16, 32, 64, 128, 256, 512, 1024, 4096, 16384, 65536};
  int repetitions = 5;
  double bytes_per_size = 16.0 * 1024 * 1024;
  std::size_t min_objects = 2000;
  std::size_t max_objects = 200000;
};

// The points (host, time, source and overhead ratio are the caller's). Throws
// std::invalid_argument for max_threads < 1, repetitions < 1, or a size that is not a power of
// two >= 2; std::runtime_error when malloc returns nothing.
std::vector<model::AllocatorCostPoint> run_allocator_cost_bench(const AllocatorCostBenchOptions& options);

}  // namespace numatwin::validate
