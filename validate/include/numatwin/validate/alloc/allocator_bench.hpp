// The allocator microbenchmark (after Durner, Leis and Neumann): T threads, each repeatedly
//   allocate-and-write: allocates objects until it holds `bytes_per_thread` requested bytes,
//     writing every byte; the size class c (powers of two from min to max bytes) is drawn with
//     probability proportional to 1 / 2^c, so every class gets the same share of the bytes and
//     small objects are the most numerous; the size is uniform in (2^(c-1), 2^c];
//   read-and-free: after a barrier, reads (sums) and frees the objects of the NEXT thread, so
//     memory is freed by a thread other than the one that allocated it, as when one operator's
//     results are consumed by another thread.
// Time of each phase (wall, slowest thread), and memory overhead = (peak resident set - resident
// set before the run) / peak requested bytes (T x bytes_per_thread), from VmHWM and VmRSS of
// /proc/self/status. Run one allocator per process: the peak is per process.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace numatwin::validate {

struct AllocatorBenchOptions {
  int threads = 2;
  double bytes_per_thread = 256.0 * 1024 * 1024;
  int rounds = 3;
  std::size_t min_object_bytes = 16;
  std::size_t max_object_bytes = 1 << 20;
  std::uint64_t seed = 1;
};

struct AllocatorBenchResult {
  std::string allocator;                // active_allocator()
  int threads = 0;
  int rounds = 0;
  double objects = 0.0;                 // allocated over all rounds
  double requested_peak_bytes = 0.0;
  double alloc_write_seconds = 0.0;     // summed over rounds
  double read_free_seconds = 0.0;
  double peak_rss_bytes = 0.0;          // VmHWM minus VmRSS before the run
  double overhead = 0.0;                // peak_rss_bytes / requested_peak_bytes
  std::uint64_t checksum = 0;           // of what the readers read; equals the writers' sum
  bool verified = false;
};

// Throws std::invalid_argument for threads < 1, rounds < 1, bytes_per_thread < max object size
// or min > max object size.
AllocatorBenchResult run_allocator_bench(const AllocatorBenchOptions& options);

nlohmann::ordered_json to_json(const AllocatorBenchResult& result);
AllocatorBenchResult allocator_bench_from_json(const nlohmann::json& json);

}  // namespace numatwin::validate
