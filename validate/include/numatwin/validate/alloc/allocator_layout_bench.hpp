// Where the allocator puts objects, as the allocating kernels meet it (model/allocator_costs.hpp:
// the layout figures). allocator_cost_bench.hpp times calls on objects in allocation order, hot;
// the kernels realloc and free blocks in an order unrelated to their allocation (a group's turn,
// a chain's walk), cold, and they reach a block's tail or a chain's next node through an address
// read from the object's first line. Measured in this process with whatever malloc it runs.
//
// For T = 1 .. max_threads threads and each size class s, every thread at once, over its own
// objects (footprint F bytes per thread, K = F / s objects; the kernels' prefetch distance d = 32):
//   dependent accesses: K objects of s bytes; word 0 of each holds the word offset of a random line
//     past the first (word 2 when s <= 64), word 1 the address of another random object. J random
//     object indices (precomputed); each pass prefetches object i + d's first line, then
//       base write:      writes word 2 of object i                       -> t_bw
//       dependent write: writes the word at object i's word-0 offset      -> t_dw
//       locked write:    the same, inside a lock taken by a locked fetch_or on the thread's own
//                        lock word and released by a store, as a concurrent table's slot lock
//                        (the next lock waits for the write's miss)         -> t_lw
//       base read:       reads word 3 of object i                        -> t_br
//       dependent read:  reads word 3 of the object word 1 points to     -> t_dr
//       block read:      J_b = max(1, J / 4) objects read whole (every word summed), object
//                        seq[i] + (sum & z), z a zero the compiler cannot see: the next object
//                        is not reached until this one's words have arrived, as a selection over
//                        each group's block in turn (MEDIAN: the compares' mispredictions keep
//                        the core from running ahead into the next block) -> t_blk
//       hot block read:  the same chain over 8 objects, cycled, in the core's cache -> t_hot
//                        (the objects are zero-filled when allocated, so every page they read
//                        is their own, never the kernel's shared zero page)
//   scattered calls: K objects of s / 2 bytes (filled), R = min(K, max_sampled) of them taken in
//     three independent random orders:
//       touch:   read each one's word 0                                   -> t_touch
//       realloc: read word 0, realloc to s bytes, write its last word     -> t_realloc
//       free:    read word 0 of the grown object, free it                 -> t_free
//       reuse:   R mallocs of s bytes right after those frees (the call only; what the allocator
//                hands out first is what it kept of the frees, e.g. glibc's fastbin list
//                through the freed, cold chunks)                           -> t_reuse
//       shared:  (T >= 2 only; a second sample of R objects per thread, disjoint from the first)
//                thread t grows entries e = t mod T of every thread's second sample, taking the
//                pools in turn, all threads at once: (T - 1) / T of its reallocs are of blocks
//                another running thread allocated, as in a table that T threads share (MEDIAN's
//                per-group table); each inside a lock taken with a locked fetch_or and released
//                with a store, as the kernels' concurrent tables lock a slot (the locked
//                instruction waits for the stores before it: the previous grow's copy is not
//                left to drain behind the next) -> t_shared over R' objects (R' ~ R); run
//                last, after the reuse pass (before it, it doubled glibc's reuse figure at
//                2 threads, and the join that reads that figure never reallocs across threads)
//   (the other objects stay allocated: they are the footprint the samples are scattered in).
// Derivation (derive_layout_costs; m = 1 - min(1, llc_bytes / (T F)), the share of a random access
// over every thread's objects that misses an LLC of llc_bytes):
//   dependent_write_ns = max(0, t_dw - t_bw) / J / m      (per LLC miss of the dependent access)
//   dependent_read_ns  = max(0, t_dr - t_br) / J / m
//   block_read_ns      = max(0, t_blk - t_hot) / J_b / m  (per object that misses the LLC)
//   locked_write_ns    = max(0, t_lw - t_dw) / J / m      (what the lock adds, per LLC miss of the write)
//   reuse_malloc_ns    = t_reuse / R
//   scattered_realloc_ns = max(0, t_realloc - t_touch) / R  (the read is the kernel's, not the call's)
//   scattered_free_ns    = max(0, t_free - t_touch) / R
//   shared_realloc_ns    = max(0, t_shared - t_touch R' / R) / R'   (T >= 2; 0 at T = 1)
// per thread, then the mean over the threads; the reported value is the median over repetitions.
// m is taken >= 0.05 (a footprint within the LLC says little about a miss: a warning in the source).
#pragma once

#include <cstdint>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"

namespace numatwin::validate {

// One thread's timed passes at one size (seconds) and what they covered.
struct LayoutTimings {
  double accesses = 0.0;  // J
  double base_write_s = 0.0;
  double dependent_write_s = 0.0;
  double locked_write_s = 0.0;  // 0: not run
  double base_read_s = 0.0;
  double dependent_read_s = 0.0;
  double blocks = 0.0;          // J_b (0: the block passes were not run)
  double block_read_s = 0.0;
  double block_hot_s = 0.0;
  double sampled = 0.0;  // R
  double touch_s = 0.0;
  double realloc_s = 0.0;
  double free_s = 0.0;
  double reuse_malloc_s = 0.0;  // 0: not run
  double shared_sampled = 0.0;  // R' (0: no shared pass, T = 1)
  double shared_realloc_s = 0.0;
};

struct LayoutCosts {
  double dependent_write_ns = 0.0;
  double dependent_read_ns = 0.0;
  double scattered_realloc_ns = 0.0;
  double scattered_free_ns = 0.0;
  double shared_realloc_ns = 0.0;  // 0 when there was no shared pass
  double locked_write_ns = 0.0;    // 0 when the locked pass was not run
  double reuse_malloc_ns = 0.0;    // 0 when the reuse pass was not run
  double block_read_ns = 0.0;      // 0 when the block passes were not run
};

// The derivation above; footprint_bytes = T F. Throws std::invalid_argument for accesses or
// sampled <= 0, or footprint or llc bytes < 0.
LayoutCosts derive_layout_costs(const LayoutTimings& t, double footprint_bytes, double llc_bytes);

struct AllocatorLayoutBenchOptions {
  int max_threads = 2;
  std::vector<std::int64_t> sizes = {32, 64, 128, 256, 512, 1024, 4096};
  int repetitions = 3;
  double bytes_per_thread = 96.0 * 1024 * 1024;  // F
  double llc_bytes = 32.0 * 1024 * 1024;         // the machine's LLC (the caller's topology)
  std::size_t accesses = 400000;                 // J
  std::size_t max_sampled = 200000;
};

// The layout points at 1 .. max_threads threads and each size. Throws std::invalid_argument for max_threads < 1, repetitions < 1
// or a size not a power of two >= 32; std::runtime_error when malloc returns nothing.
std::vector<model::AllocatorLayoutPoint> run_allocator_layout_bench(const AllocatorLayoutBenchOptions& options);

}  // namespace numatwin::validate
