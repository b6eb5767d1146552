// What the allocating kernels (validate/allocating_kernels.hpp) spend in malloc, realloc and free,
// from the allocator's measured costs (model/allocator_costs.hpp: the lookup at (threads, bytes)).
//
// MEDIAN per group. A group's values live in a block of b bytes: an 8-byte header and b / 8 - 1
// values; the first value mallocs 32 bytes, a full block is realloc'd to twice its bytes. A group
// of k >= 1 values therefore does 1 malloc(32), r(k) reallocs and 1 free of its last block:
//     r(k) = max(0, ceil(log2((k + 1) / 4)))        (32 x 2^r >= 8 (k + 1))
//     the j-th realloc grows 32 x 2^(j-1) to 32 x 2^j bytes and costs realloc_ns(T, 32 x 2^j).
// With N records over G groups:
//   uniform keys: a group's size is Poisson with mean lambda = N / G, so the expected totals are
//     G x sum_{k >= 1} P(k) x [malloc_ns(T, 32) + sum_{j=1..r(k)} realloc_ns(T, 32 x 2^j) + free(k)]
//     (the sum is cut where P(k) < 1e-12 of the mass remains);
//   other distributions: every group is taken to hold N / G values (rounded), an approximation
//     (skewed keys make a few large groups: fewer reallocs per value than this predicts).
//   free(k) = ((1 / T) free_ns + ((T - 1) / T) remote_free_ns)(T, 32 x 2^r(k)): a block is freed by
//   the worker whose slice of the table holds the group, and was last grown by whichever worker
//   appended the value that filled it: another worker with probability (T - 1) / T.
//
// Chained hash join per bucket. B = the power of two >= |R| / 2 buckets, one tuple inline each;
// R's keys hashed by a mixing hash fill a bucket with X ~ Poisson(lambda = |R| / B) tuples, of
// which max(0, X - 1) are overflow nodes (24 bytes: the 32-byte class):
//     M = B x E[max(0, X - 1)] = B x (lambda - 1 + e^-lambda)
// mallocs in the build (malloc_ns(T, 24) each) and as many frees at the end, remote with
// probability (T - 1) / T as above. A probe of a key that is in R visits, past the inline tuple,
// as many nodes as the key's position in its bucket's chain: on average over R's tuples
// E[X (X - 1) / 2] / E[X] = lambda / 2 nodes (Poisson: E[X (X - 1)] = lambda^2). The kernel
// prefetches a bucket's first node, so of these a share (lambda - 1 + e^-lambda) / lambda = M / |R|
// per probe (the key sits at position >= 1) are independent misses; the deeper ones, at
// positions p >= 2, are dependent (their address is the node before's): per probe
//     D = E[sum_{p=2..X-1} (p - 1)] / lambda = ((lambda^2 - 2 lambda + 2) / 2 - e^-lambda) / lambda
// (E[(X - 1)(X - 2)] = lambda^2 - 2 lambda + 2; X = 0 would contribute 1 to it, hence - e^-lambda).
//
// MEDIAN's appends: the kernel prefetches a group's block header, so a value whose slot lies in the
// header's line (index < 7: 8 (1 + i) < 64) costs no further miss; the others write a tail line
// whose address needs the header (a dependent access). The share of values at index >= 7 of
// their group: E[max(0, X - 7)] / lambda (Poisson), max(0, k - 7) / k for k = N / G otherwise.
//
// Where the allocator put the blocks and nodes (model/allocator_costs.hpp: the layout figures,
// when the allocator's entry has them):
//   - reallocs are taken in group order, not allocation order, on cold blocks, and MEDIAN's table
//     is shared by its T workers, so (T - 1) / T of them grow a block another worker allocated:
//     each costs shared_realloc_ns(T, 32 x 2^j) (measured with that mix; at T = 1, or when not
//     measured, scattered_realloc_ns) instead of realloc_ns;
//   - the chained join's node mallocs cost reuse_malloc_ns(T, 24): a build runs after the
//     previous join freed its nodes in bucket order (the kernel's repetitions, a stream of
//     queries), and takes them back as the allocator kept them (malloc_ns when not measured);
//     MEDIAN's first blocks keep malloc_ns (its frees are of grown blocks, another size class);
//   - frees are taken in table or bucket order: each costs free(k) above plus
//     max(0, scattered_free_ns - free_ns) at its size;
//   - a dependent tail write that misses the LLC costs the measured dependent_write_ns (the core
//     overlaps it with the next tuples' work) instead of a miss with one line in flight, its page's
//     translation included: tail_write_cost is its mean over a group of k = round(N / G) values,
//     sum_{i=7..k-1} dependent_write_ns(T, 32 x 2^r(i + 1)) / (k - 7) (the value at index i lies
//     in the block grown to hold i + 1 values); with T >= 2 workers the kernel locks the group's
//     slot per append, so each such miss adds locked_write_ns at its size too (the next lock waits
//     for it; measured by the layout bench, 0 when not measured);
//   - a deeper chain node that misses costs dependent_read_ns(T, 24) (node_read_cost);
//   - MEDIAN's selection reads each group's last block whole before it reaches the next group's
//     (nth_element's compares mispredict about half the time, so the core does not run ahead
//     into the next block): per group whose block misses the LLC, block_read_ns(T, 32 x 2^r(k))
//     (block_read_cost: its expectation over the group sizes as for the allocator's calls, or at
//     k = round(N / G) for other distributions), added to the selection's compute rather than
//     overlapped with it. The bench reads the block's whole size class, the kernel its 8 (k + 1)
//     bytes (13 of a 1 KiB block's 16 lines at k = 100). Checked by a loop outside the tree
//     (session 33, docs/allocators.md): nth_element over scattered 1 KiB blocks took 1,370 ns a
//     block against 1,015 ns over blocks in the core's cache, +355 ns, and the chained whole-block
//     read alone 336 ns; at 256 B +215 ns against 231 ns. When the entry lacks the figure the plan
//     keeps the first line as one dependent miss and streams the rest behind the compute.
//
// What a dependent miss costs by the independent work around it (model/dependent_miss.hpp, the
// topology's /dependent_misses; issue 16, docs/chained-probe.md), when the topology has the grid;
// it replaces the layout figure (and the one-at-a-time bound) for both dependent accesses:
//   - a deeper chain node that misses costs miss_ns(k, w) with the probe's own k and w:
//       k = 1 / q, q = the share of probes that visit a deeper node (the key at position p >= 2 of
//           its bucket; a probed key is a random R tuple, so its bucket is size-biased):
//           q = E[max(0, X - 2)] / lambda = (lambda - 2 + 2 e^-lambda + lambda e^-lambda) / lambda
//           (lambda = 1.907 for |R| = 2e6 over 2^20 buckets: q = 0.2555, k = 3.91; the deeper
//           nodes per probe D = 0.394); the q first deeper nodes of a probe cost miss_ns(k, w);
//       the D - q nodes behind another in the same probe (0.145 per probe at lambda = 1.907) cost
//           the grid's second_miss_ns(k, w) at the same k and w when the grid has it (a miss whose
//           address comes from a miss, measured so; grid_miss), miss_ns(k, w) otherwise.
//           Charging them one at a time (a full dependent miss with its page walk each) was tried
//           on 2026-11-27 and predicted the join 24-52 % too slow: the core overlaps that serial
//           miss with the next probes' work (docs/allocators.md);
//       w = the probe's independent work in the grid's own unit, counted from the code: the grid's
//           work unit is one splitmix64 finaliser, and validate's chained_probe computes three per
//           probe (bucket_of for its own key and for its two prefetches, d and d / 2 probes
//           ahead): w = kChainedProbeFinalisers = 3. The rest of a probe (a streamed tuple, a
//           prefetched line, a compare) is what the grid's item does at w = 0 (docs/chained-probe.md,
//           session 32). Until session 31, w was the preallocated join's core time per probe
//           ((scan + join cycles) / f, 1.76 ns = 1.46 units on the 2026-11-27 17:47 calibration):
//           a time, where the grid's window argument counts work in flight;
//   - the finalisers' own time: the operator costs' join cycles come from the preallocated loop,
//     which hashes each key once with a multiply (Fibonacci hashing); the chained loops hash with
//     the finaliser, three times per probe and twice per build tuple (its own bucket and its
//     prefetch's), so the plan adds (3 - 1) x work_unit_ns per probe and (2 - 1) x work_unit_ns
//     per build tuple of core time (the loop's own hash stands for the preallocated loop's one);
//   - MEDIAN's tails, writes, do not read the grid (the layout bench's write figures below).
//
// Nodes across two lines (session 31; docs/chained-probe.md): when the allocator's entry has its
// measured line-split range at the node's request size (24 B; model/allocator_costs.hpp) and the
// grid has its split figures, a share s = (low_share + high_share) / 2 of the nodes span two
// 64-byte lines (glibc's nodes at 48 mod 64 have key and value on one line and the link on the
// next). Per probe, each of these adds per LLC miss, at the probe's w:
//   s f1 x split_head_ns(1 / (s f1), w)   a first node's second line: the prefetch brought only
//                                        the first (f1 = M / |R| first-node visits per probe);
//                                        the link load is issued whether or not the key matches
//   + s D x split_miss_ns(k, w)            a deeper node's second line, fetched beside its first
//   + s q x (second_miss_ns - miss_ns)(k, w)  the first deeper node behind a split first node:
//                                        its address comes from the unprefetched line, a miss
//                                        behind a miss (only when the grid has the second miss)
// (k = 1 / q as above). The range low..high is said with the prediction: glibc's share is 0 or
// 1/2 by where its heap's top stands when the nodes are allocated, which the model cannot know.
#pragma once

#include <optional>
#include <string>

#include "numatwin/model/dependent_miss.hpp"

#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// r(k) above; k >= 1.
int group_reallocs(double values);

struct AllocationSeconds {
  double allocate_s = 0.0;  // malloc and realloc, all workers together
  double free_s = 0.0;      // free, all workers together
  double allocations = 0.0; // malloc + realloc calls
  double frees = 0.0;
  double bytes_held = 0.0;  // requested bytes of the blocks or nodes at the end (their classes)
  bool rests_on_defaults = true;
};

AllocationSeconds per_group_allocation(const WorkloadSpec& spec, int workers);
double share_beyond_header_line(const WorkloadSpec& spec);

double chained_bucket_count(double build_records);
double expected_overflow_nodes(double build_records);  // M above
double dependent_node_visits(double build_records);    // D above
AllocationSeconds per_bucket_allocation(const WorkloadSpec& spec, int workers);
double probes_with_deeper_nodes(double build_records);  // q above

// Splitmix64 finalisers (the grid's work unit) that validate's chained loops compute per probe
// and per build tuple (ChainedTable::bucket_of: the item's own bucket and its prefetches').
inline constexpr double kChainedProbeFinalisers = 3.0;
inline constexpr double kChainedBuildFinalisers = 2.0;

// miss_ns(k, w) and second_miss_ns(k, w) from the grid at w = work_units (k taken >= 1, w >= 0);
// nullopt without a grid, `second` nullopt when the grid did not measure it.
struct GridMiss {
  double first_ns = 0.0;
  std::optional<double> second_ns;
};
std::optional<GridMiss> grid_miss(const std::optional<model::DependentMissGrid>& grid, double items_per_miss, double work_units);

// The split-node term above; nullopt when the allocator's entry has no line split at 24 B or the
// grid lacks the split figures.
struct SplitNodes {
  double low_share = 0.0;
  double high_share = 0.0;
  double share = 0.0;         // s, the mid-point
  double ns_per_probe = 0.0;  // per LLC-missing node visit's worth: multiply by (1 - h) per probe
};
std::optional<SplitNodes> split_node_cost(const WorkloadSpec& spec, const std::optional<model::DependentMissGrid>& grid,
                                          double build_records, double work_units);

// A dependent access's cost per LLC miss from the allocator's layout figures; measured false:
// the allocator's entry has none (the plans keep one miss at a time and its page walk).
struct DependentCost {
  bool measured = false;
  double ns = 0.0;
};
DependentCost tail_write_cost(const WorkloadSpec& spec, int workers);
DependentCost node_read_cost(const WorkloadSpec& spec, int workers);
// ns per group whose block misses the LLC (above); measured false without block_read_ns.
DependentCost block_read_cost(const WorkloadSpec& spec, int workers);

}  // namespace numatwin::sim
