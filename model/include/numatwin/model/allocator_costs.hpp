// What a memory allocator costs on a machine (Durner, Leis and Neumann; Memarzia et al.): per
// allocator, the time of malloc, free and a doubling realloc per size class and thread count, the
// extra cost of freeing an object another thread allocated, and the bytes the allocator keeps
// resident per byte requested. Measured by `numatwin validate allocbench --calibrate` and stored
// in the topology file under /allocator_costs with where and when they were measured.
//
// The maths the simulator uses (sim/src/plan/operators/allocation_costs.cpp applies it):
//   A cost is looked up at (T threads, s bytes). The measured thread counts form rows; the row
//   used is the largest measured count <= T (the smallest row when T is below every row, the
//   largest when above: a count beyond what was measured is carried from the largest row).
//   Within a row, s is rounded up to its size class 2^ceil(log2 s) (allocators serve a request
//   from the class that holds it), clamped to the smallest and largest measured class; between
//   two measured classes the cost is interpolated linearly in log2 of the size.
//   realloc_ns(s) is the time to grow an object from s/2 to s bytes (the copy included when the
//   allocator moves it), as a growth rule that doubles does.
//   remote_free_ns(s) is the time of a free of an object allocated by another thread (the cost
//   of handing it back to its owner's heap or arena included).
//   overhead_ratio = (resident bytes at the peak) / (bytes requested at the peak), >= 0.
// Where the allocator put the objects (validate/allocator_layout_bench.hpp measures them; a point
// may lack them, files written before they existed do):
//   scattered_realloc_ns(s), scattered_free_ns(s): a realloc (s/2 -> s) or a free of objects taken
//     in an order unrelated to their allocation, over a footprint beyond the LLC, each object's
//     first word read just before (as the kernels read a block's header or a node's link): the
//     call's own time with its object, its neighbours and the allocator's metadata cold, the read
//     itself not included;
//   shared_realloc_ns(s) (T >= 2): the same scattered realloc when the T threads grow each other's
//     blocks at once, (T - 1) / T of a thread's reallocs being of blocks another thread allocated
//     (a table the T threads share, as MEDIAN's per-group table is). glibc grows a block under the
//     lock of the arena it came from, which its owner is using meanwhile; the others hand it
//     over without a lock. Optional (0 = not measured: scattered_realloc_ns stands in; at T = 1,
//     where every block is the thread's own, it is scattered_realloc_ns by definition);
//   locked_write_ns(s): what a dependent write adds, per LLC miss, when each write sits inside a
//     lock taken by a locked read-modify-write (as the kernels lock a shared table's slot per
//     update at T >= 2): the next lock waits for the write's miss instead of leaving it to drain.
//     Optional (0 = not measured: nothing is added);
//   reuse_malloc_ns(s): a malloc of s bytes right after as many objects of s bytes were freed in
//     an order unrelated to their allocation, over a footprint beyond the LLC: what a query pays
//     that runs after another freed its state (the kernels' repetitions; a database's stream of
//     queries). glibc pops its fastbin list through the freed chunks, each pop a dependent miss.
//     Optional (0 = not measured: malloc_ns stands in);
//   block_read_ns(s): reading a whole object of s bytes (every word) that was reached through a
//     pointer, where the next object is not reached until this one has been read (a selection
//     over each group's block in turn, whose compares keep the core from running ahead into the
//     next block): what one such read adds over the same read of an object in the core's cache,
//     per object that misses the LLC, its first line's miss, its page's translation and the
//     wait for the stream of its other lines included. Optional (0 = not measured: a file
//     written before it; the caller keeps its one-line dependent access and stream);
//   dependent_write_ns(s), dependent_read_ns(s): an access at an address read from an object's
//     first line (prefetched ahead): what one such access adds when it misses the LLC, as the core
//     overlaps it with the next objects' accesses (not one miss at a time); the translation of its
//     page on the heap's pages as measured is included.
//   They are stored as their own points (`layout`, JSON `layout_points`) and looked up as the
//   others (row, size class, interpolation in log2 of the size); with no layout points the
//   in-order figures stand in (realloc_ns, free_ns; has_scattered false) and there is no
//   dependent-access figure (has_dependent false: the caller keeps its one-miss-at-a-time bound).
// Blocks across two lines (optional, `line_splits`; validate/line_split_bench.hpp measures them):
//   per request size r, the share of the blocks that a run of malloc(r) hands out whose bytes
//   [p, p + r) span two 64-byte lines: a read of a block's first and last words then reads two
//   lines. An allocator whose size classes are aligned to themselves (jemalloc, tcmalloc,
//   tbbmalloc: 32 B blocks at 0 and 32 mod 64) splits none of a 24-byte request; glibc serves it
//   16 bytes into a 32-byte chunk, so all its blocks sit at 16 and 48 mod 64 (half split) or at 0
//   and 32 (none), by where the heap's top happens to stand: the process's earlier allocations
//   decide, not the allocator alone. So the share is a range: low_share and high_share over the
//   phases (where a run of blocks starts within a line) at which the allocator was seen to hand
//   out blocks of r (the derivation in validate/line_split_bench.hpp); a model uses the
//   mid-point and says the range.
// When the file has no entry for an allocator, the defaults below are used and the lookup says so
// (is_default): a prediction resting on them must say it.
//   default malloc_ns = 20, free_ns = 15, remote_free_ns = 40 (guesses of the order glibc and
//   tcmalloc show for small objects on 2015-2024 cores; not measured on any machine);
//   default realloc_ns(s) = 40 + 0.1 x s (a malloc, a free, and a copy of s/2 bytes at 5 GB/s).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace numatwin::model {

// One measured point: `threads` threads allocating objects of `size_bytes` (a power of two).
struct AllocatorCostPoint {
  int threads = 1;
  std::int64_t size_bytes = 16;
  double malloc_ns = 0.0;
  double free_ns = 0.0;
  double realloc_ns = 0.0;      // growing an object from size_bytes / 2 to size_bytes
  double remote_free_ns = 0.0;  // freeing an object another thread allocated

  bool operator==(const AllocatorCostPoint&) const = default;
};

// One measured point of the layout figures (top of the file) at (threads, size_bytes).
struct AllocatorLayoutPoint {
  int threads = 1;
  std::int64_t size_bytes = 32;
  double scattered_realloc_ns = 0.0;
  double scattered_free_ns = 0.0;
  double dependent_write_ns = 0.0;
  double dependent_read_ns = 0.0;
  double shared_realloc_ns = 0.0;  // 0: not measured (a 1-thread row, or a file written before it)
  double locked_write_ns = 0.0;    // 0: not measured (a file written before it)
  double reuse_malloc_ns = 0.0;    // 0: not measured (a file written before it)
  double block_read_ns = 0.0;      // 0: not measured (a file written before it)

  bool operator==(const AllocatorLayoutPoint&) const = default;
};

// The share of malloc(request_bytes)'s blocks that span two 64-byte lines (top of the file).
struct LineSplitPoint {
  std::int64_t request_bytes = 24;
  double low_share = 0.0;   // the least over the phases seen, 0..1
  double high_share = 0.0;  // the most, low_share..1

  bool operator==(const LineSplitPoint&) const = default;
};

struct AllocatorCosts {
  std::string allocator;  // "glibc", "jemalloc", "tcmalloc", "tbbmalloc"
  std::vector<AllocatorCostPoint> points;
  std::vector<AllocatorLayoutPoint> layout;  // may be empty (measured before allocbench had them)
  std::vector<LineSplitPoint> line_splits;   // may be empty (measured before allocbench had them)
  double overhead_ratio = 1.0;  // resident / requested bytes at the peak
  std::string host;             // where it was measured
  std::string measured_at;      // when (UTC, ISO 8601)
  std::string source;           // how (command and parameters)

  bool operator==(const AllocatorCosts&) const = default;
};

// The costs at one (threads, bytes), and whether they are the defaults.
struct AllocatorCostAt {
  double malloc_ns = 0.0;
  double free_ns = 0.0;
  double realloc_ns = 0.0;
  double remote_free_ns = 0.0;
  bool is_default = true;
  // Layout figures: the in-order ones stand in when there are none (has_scattered false).
  double scattered_realloc_ns = 0.0;
  double scattered_free_ns = 0.0;
  bool has_scattered = false;
  double shared_realloc_ns = 0.0;  // = scattered_realloc_ns when not measured (has_shared false)
  bool has_shared = false;
  double locked_write_ns = 0.0;  // 0 when not measured
  double reuse_malloc_ns = 0.0;  // = malloc_ns when not measured (has_reuse false)
  bool has_reuse = false;
  double block_read_ns = 0.0;  // 0 when not measured (has_block_read false)
  bool has_block_read = false;
  double dependent_write_ns = 0.0;
  double dependent_read_ns = 0.0;
  bool has_dependent = false;
};

// The entry for `allocator` in `costs`, or nullptr.
const AllocatorCosts* find_allocator_costs(const std::vector<AllocatorCosts>& costs, std::string_view allocator);

// The lookup described at the top; `costs` nullptr or without points: the defaults.
// Throws std::invalid_argument for threads < 1 or bytes <= 0.
AllocatorCostAt allocator_cost_at(const AllocatorCosts* costs, int threads, double bytes);

// The measured line-split range at exactly request_bytes, or nullptr (not measured there).
const LineSplitPoint* line_split_at(const AllocatorCosts* costs, std::int64_t request_bytes);

// Throws std::invalid_argument naming the first bad figure (a negative time, a size that is not a
// power of two, two points (or two layout points) at the same (threads, size), an overhead ratio < 0,
// a line split with request_bytes < 1, shares outside 0 <= low <= high <= 1, or a repeated request size).
void check_allocator_costs(const AllocatorCosts& costs);

}  // namespace numatwin::model
