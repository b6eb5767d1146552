// Operator costs from microbenchmarks (`validate measure`, `validate suite`): single-purpose
// loops on one pinned core, each the real kernels' own inner loop (the same functions:
// aggregation_kernels, hash_join_kernels, the radix join's steps, shuffle_kernels,
// sort_merge_join_kernel) on data sized for one level of the memory hierarchy, and the
// derivation of every sim::OperatorCosts value (plus the shuffle consumer's cycles per element)
// from their times. The kernel-level cost fit (validation_suite.hpp) starts from these values.
//
// ── What each cost means in the model (sim/plan/operator_plan.hpp) ───────────────────────────────
// A table loop costs, per tuple, core work w = scan + c + h x hit_ns / L (+ atomic_update_ns when
// several workers update the table, + s x shared_line_transfer_ns), where c is the loop's cycles
// per access, h the share of accesses hitting a cache (hit_ns = private_hit_ns or llc_hit_ns)
// and L = random_lines_in_flight; the scan's stream runs under w (max(stream, w)), and the LLC
// misses follow as a transfer with L lines in flight. So on cache-resident input and a table in
// the core's own cache (h_private = 1, no miss, one worker) the model's time per tuple is
//     t = (scan + c) / f + private_hit_ns / L          (f: the core's clock, cycles per ns)
// and c follows from the measured t by inverting that line. Every derivation below is such an
// inversion: the model, run on the microbenchmark's own loop, predicts its measured time.
//
// ── Fresh input: every loop whose branches depend on its data (the table loops, the joins'
//    build and probe, the selection, the merge, COUNT by two workers) gets new keys or values
//    each pass, generated untimed. Repeating one small input lets the branch predictor learn it
//    (aggregate_piece over one 16384-tuple input: 2.1 ns a tuple by the 30th pass, 6.9 ns on
//    fresh data, on this project's build VM), and the kernels never see an input twice.
//
// ── Timings: ns per unit, the median over 5 repetitions (~30 ms each) of each repetition's
//    median pass (a pass the core spent partly on another process is an outlier, not a share
//    of a mean: the timings hold on a busy machine); the loop, the data ──────────────────────
//   chase_private   dependent loads, random cyclic permutation of lines (Sattolo), footprint
//                   half the private cache; ns per load
//   chase_llc       the same, footprint max(4 x private cache, LLC / 4) (inside the LLC)
//   chase_memory    the same, footprint max(4 x LLC, 256 MiB) (quick: 4 x LLC): memory latency
//   walk_private, walk_K, walk_memory
//                   dependent loads of independently drawn random lines (each line a hash of the
//                   previous load's value and the step: the independent references that the
//                   model's hit ratio assumes; a cyclic chase is not that, LRU never hits a cycle
//                   longer than the cache) over half the private cache, over F = LLC x 2^k,
//                   k = -4..1 (those >= 2 x private cache; K: F in KiB) and over chase_memory's
//                   footprint: how much of the LLC a random working set keeps. These run in
//                   interleaved rounds (each round one repetition of every footprint, the median
//                   over the rounds; rounds: 5, or more until they span llc_window_s, 3 s and
//                   1 s at quick), so that every footprint sees the same neighbours: on a VM
//                   sharing its host's LLC, one after the other at --quick (~15 ms each) the
//                   walks over 4 MiB took 90.3, 20.6 and 14.1 ns in three runs within 30 s
//                   (2026-11-27) and the usable share fitted 0.068-0.196
//   random_memory   the hash join's probe loop (hash_join_probe) over an empty table filling the
//                   chase_memory buffer, fresh keys each pass: one independent random line per
//                   tuple, kPrefetchDistance of them prefetched ahead; ns per tuple
//   empty_probe     the same probe loop over an empty table of a quarter of the private cache:
//                   random_memory's core work (every probe ends at its first slot in both)
//   histogram       the radix join's histogram loop (2^8 partitions), input in the private
//                   cache: ns per tuple
//   count_plain     COUNT (count_aggregate, one worker: plain stores), 512 groups (a 16 KiB
//                   table: L1), input in the private cache; count_atomic: the same with the
//                   locked updates that several workers use
//   count_llc       COUNT (plain) into a table of LLC / 8 bytes (in the LLC, beyond the private
//                   cache), fresh keys each pass (generated untimed): ns per tuple
//   index_probe     the index join's probe (index_join_probe) of a B+-tree of LLC / 8 bytes, fresh
//                   keys each pass, all found: ns per tuple
//   join_build      hash join build (hash_join_build, one worker), 512 keys (16 KiB table)
//   join_probe      hash join probe (hash_join_probe) of that table, every key found
//   group_update    partitioned aggregation's aggregate_piece, 362 groups in 1024 slots (16 KiB
//                   table): its linear probe branches on every slot it reads, so the time grows
//                   with the table's load; table_slots makes a kernel's table 1/4 to 1/2 full
//                   and this one is at their geometric middle, 2^-1.5 = 35 % (fresh keys, on
//                   this project's build VM, 2026-11-26: 7.59 ns a tuple with 512 groups, 50 %
//                   full, 6.77 ns with 362; the suite's partitioned aggregation runs at 38 %)
//   radix_scatter   the radix join's scatter (2^8 partitions, write-combining buffers,
//                   streaming stores), input in the private cache: ns per tuple
//   partition_build build of one partition's private table, |R_p| = private / 2 / (2 x 16 B)
//                   (the largest partition radix_partition_bits allows), ns per build tuple
//   partition_probe probe of that table with |R_p| tuples, every key found
//   sort_16, sort_256  MEDIAN's median_select over groups of 16 and 256 values (8192 values):
//                   ns per value
//   sort_tuples     the sort-merge join's sort (sort_by_key: std::sort by key) of a run of m
//                   fresh tuples, m = a quarter of the private cache / 16 B: ns per tuple
//   merge           the sort-merge join's merge (merge_join), 8192 facts and 2048 dimension
//                   tuples (keys: dimensions the even numbers, facts uniform), ns per fact
//   consumer_sum    the shuffle consumer (sum_elements), 16384 elements: ns per element
//   count_private   COUNT (plain) into a table of a quarter of the private cache (beyond L1),
//                   fresh input in cache; count_stream: the same loop and table, its input
//                   streamed from the memory-sized buffer, 8 MiB a pass (cost_stream_microbenchmarks.cpp)
//   filter          subarray's filter (subarray_filter, 10 % selected) over a quarter of the
//                   private cache of cells in cache; filter_stream: the same over the buffer
//   count_contended COUNT with locked updates by two workers (the first two usable CPUs) into one
//                   512-group table, each on its own input: ns per tuple, the mean of the two
//   shared_line     core-to-core handover (core_to_core.hpp's ping-pong) between the same CPUs;
//                   ns per handover (reported beside the derivation, not used: see below)
//
// ── Derivation (f = the topology node's frequency_ghz: the VM has no cycle counter, so cycles
//    are ns x f, not counted) ────────────────────────────────────────────────────────────────
//   llc_usable_share u           the share of the LLC that a random working set keeps. The model
//                                  gives a walk over F bytes the private share hp = min(1, P / F) and
//                                  the LLC share h = min(1, u x LLC / F) >= hp, so its time is
//                                    w(F) = hp x walk_private + (h - hp) x w_llc + (1 - h) x w_mem
//                                  (each a load plus the hash's fixed work); w_mem follows from
//                                  walk_memory's own equation, and u and w_llc (in [walk_private,
//                                  walk_memory]) minimise the squared log errors over the sweep
//                                  (a grid of 97 x 97, refined on the cell around its best); the range: every u whose best error is
//                                  within twice the minimum (+ 1e-4). On a machine whose LLC is
//                                  shared with other tenants (a cloud VM) this is what is left to
//                                  the loops. Without walks (an older report) u is not derived. u
//                                  enters the derivations below: h of random_memory is
//                                  u x LLC / buffer, and count_llc's table (uniform keys, LLC / 8
//                                  bytes of 32-byte groups) has h = min(1, 8u)
//   private_hit_ns               = chase_private
//   llc_hit_ns                   = private_hit_ns + L x (count_llc - count_plain) / (h - hp)
//                                  (inverting the model's line for count_llc's table, which the
//                                  model gives an LLC share h = 1 and a private-cache share hp:
//                                  count_llc - count_plain = (hp p + (h - hp) llc - p) / L; the
//                                  LLC hit as the loop pays it, its prefetches overlapping. When
//                                  h - hp < 0.05 (no LLC hit to see): chase_llc, the latency)
//   random_lines_in_flight L     = (h x chase_llc + (1 - h) x chase_memory) / (random_memory - empty_probe)
//                                  the probe loop over a memory-sized table costs, in the model,
//                                  its core work (empty_probe: the same loop on an empty table in
//                                  the private cache; older reports: join_probe) plus
//                                  its misses' latency over L; h = LLC / buffer is the share of
//                                  random lines the LLC still holds (memory-level parallelism)
//   scan_cycles_per_tuple        = f x histogram
//   hash_cycles_per_tuple        = f x count_plain - scan - f x private_hit_ns / L
//   atomic_update_ns             = count_atomic - count_plain        (the locked update's extra)
//   join_cycles_per_tuple        = f x (join_build + join_probe) / 2 - scan - f x private_hit_ns / L
//   index_cycles_per_level       = (f x index_probe - scan - f x (p x private_hit_ns + (c - p) x
//                                  llc_hit_ns + (d - c) x miss) / L) / d: the index join's loop
//                                  inverted as the model charges it (sim/plan/operator_plan.hpp:
//                                  index_levels: of its d levels, p fit the private cache, c the
//                                  usable LLC); until 2026-11-29 the index join used the hash
//                                  join's cost spread over its levels and paid llc_hit_ns on
//                                  every cached level
//   group_cycles_per_tuple       = f x group_update - scan - f x private_hit_ns / L
//   partition_cycles_per_tuple   = f x radix_scatter                 (the model's scatter has no
//                                                                    scan term: the histogram is)
//   partition_join_cycles_per_tuple = f x (partition_build + partition_probe) / 2 - scan
//                                     - f x private_hit_ns / L
//   select_cycles_per_value      = geometric mean of f x sort_16 and f x sort_256 (MEDIAN's
//                                  selection is linear in the values: insertion sort up to 32,
//                                  nth_element above; the range covers both sizes)
//   sort_cycles_per_comparison   = f x sort_tuples / log2 m (the model charges a run of m tuples
//                                  m log2 m of these; not derived from a saved report without
//                                  sort_tuples)
//   merge_cycles_per_tuple       = (f x merge x 8192 - 2048 x scan) / 8192 (the model charges
//                                  the dimension run scan cycles and each fact this)
//   cycles_per_element           = f x consumer_sum
//   shared_line_transfer_ns      = (count_contended - count_atomic) / s, s = (k - 1) / k x h_private
//                                  = 1/2 (two workers, a table in their private caches): the
//                                  model's extra per update whose line the other core modified.
//                                  Not the ping-pong's handover: the kernels prefetch their lines
//                                  for writing kPrefetchDistance tuples ahead, so a transfer
//                                  overlaps the loop much as a miss does, while the ping-pong
//                                  waits for each one (its handover is a few times larger).
//   filter_cycles_per_cell       = f x filter (the whole loop per cell on fresh cells in cache: the
//                                  range test, the store into the claim block, the claims)
//   table_stream_share s         = chase_memory x 16 B / (64 B x count_stream x M)   (M: the
//                                  topology's miss_buffers_per_core) when count_stream >
//                                  count_private, else 1. The model's time for count_stream's loop
//                                  is max(its core work, 16 B / (M s x 64 B / latency)), its core
//                                  work being count_private's (the same loop, input cached), so
//                                  Little's law inverted gives s; the latency is the idle one
//                                  (chase_memory: the loop's own load is a small share of the
//                                  controller's). On this project's build VM (2026-11-26): COUNT
//                                  1.56 ns a tuple over a cached input, 2.21 from memory (7.2
//                                  GB/s): 18.6 lines in flight, 0.19 of the calibrated M = 99
//   filter_stream_share          = chase_memory x 8 B / (64 B x filter_stream x M), the same way
//                                  (1.51 ns a cell on fresh cells in cache, 1.60 from memory
//                                  there: 12.9 lines, 0.13 of M = 99)
//                                  Without M (`validate measure --costs-only` on a skeleton whose
//                                  miss buffers are unknown) the shares are not derived.
// Build and probe weigh equally in the joins' single cost (the model gives both one cost).
// Ranges: each timing's min..max over the repetitions, carried through the formula by interval
// arithmetic (a difference takes the low end of one and the high end of the other), then widened
// to at least +-5 % of the value. A derived cycle count below kMinimumCycles (the loop is no
// faster than the scan it contains, within noise) is raised to it, and the derivation says so.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::model {
class JsonReader;
}

namespace numatwin::validate {

// One microbenchmark's result: ns per unit, median and extremes over the repetitions.
struct CostTiming {
  std::string name;
  double median_ns = 0.0;
  double low_ns = 0.0;
  double high_ns = 0.0;
  std::string unit;  // "load", "tuple", ...
  std::string loop;  // what ran, on what data
};

struct CostTimings {
  std::vector<CostTiming> timings;
  int cpu = -1;                // where the single-core loops ran
  double memory_llc_share = 0.0;  // h of random_memory: LLC bytes / its buffer's bytes
  // count_llc's table as the model sees it (key_distribution.hpp's cache_hit_ratio with the
  // private cache and the LLC): the shares of its accesses that hit each.
  double llc_table_private_share = 0.0;
  double llc_table_llc_share = 0.0;
  int index_levels = 0;  // index_probe's index: the model's depth (levels of 8^i 64-byte nodes)
  double sort_run_tuples = 0.0;  // sort_tuples' run (0: a saved report from before it)
  // The caches the loops were sized by (0: a saved report from before the LLC sweep).
  double private_cache_bytes = 0.0;
  double llc_bytes = 0.0;
  double memory_bytes = 0.0;  // walk_memory's buffer
  std::vector<std::string> notes;
  // The timing called `name`; throws std::invalid_argument naming it when missing.
  [[nodiscard]] const CostTiming& at(const std::string& name) const;
  [[nodiscard]] bool has(const std::string& name) const;
};

// A derived cost: value and range (low <= value <= high), unit and the one-line derivation with
// the numbers that went in. `name` is the OperatorCosts field (or "cycles_per_element").
struct DerivedCost {
  std::string name;
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
  std::string unit;
  std::string derivation;
};

inline constexpr double kMinimumCycles = 0.5;
inline constexpr double kMinimumRelativeRange = 0.05;

struct CostBenchmarkOptions {
  bool quick = false;            // short timings (~3 ms): checks the mechanics in about a second
  int repetitions = 5;           // timed repetitions after a warm-up; the median is used
  double seconds_per_timing = 0.0;  // one repetition; 0: 0.03 s (quick: 0.003 s)
  double llc_window_s = -1.0;    // the LLC sweep's rounds span at least this; < 0: 3 s (quick: 1 s)
  double private_cache_bytes = 512.0 * 1024;  // the core's own (largest private) cache
  double llc_bytes = 32.0 * 1024 * 1024;      // the node's last-level cache
  std::vector<int> cpus;         // usable CPUs: the loops run on the first, the ping-pong uses two
  const std::atomic<bool>* stop = nullptr;  // set: finish the current timing, skip the rest
  std::function<void(int done, int total, const std::string& label)> progress;
};

// Options for the first node of `topology` with cores: its largest private cache
// (sim::private_cache_bytes) and one instance of its last-level cache; the loops on cpus[0].
CostBenchmarkOptions cost_benchmark_options(const model::Topology& topology, std::vector<int> cpus, bool quick);
// That node's frequency_ghz: what converts the timings to cycles.
double cost_frequency_ghz(const model::Topology& topology);

// Runs every microbenchmark and checks each loop's result (throws std::runtime_error naming the
// loop when one is wrong). Throws std::invalid_argument for no CPUs or caches of 0 bytes.
CostTimings run_cost_microbenchmarks(const CostBenchmarkOptions& options);

// That node's miss_buffers_per_core: what the stream shares are shares of.
double cost_miss_buffers(const model::Topology& topology);

// The derivation above. Throws std::invalid_argument for a missing timing or f <= 0.
// A timing that is missing only for the shared line (one CPU) leaves that cost out; so do the
// stream loops' (a report from before them) and `miss_buffers_per_core` <= 0 the stream shares.
std::vector<DerivedCost> derive_operator_costs(const CostTimings& timings, double frequency_ghz,
                                               double miss_buffers_per_core = 0.0);

// Sets the fields of `costs` and `cycles_per_element` named by `derived`.
void apply_derived_costs(const std::vector<DerivedCost>& derived, sim::OperatorCosts& costs, double& cycles_per_element);

// The report section "operator_costs" (validate measure and suite): frequency and where it came
// from, the cycle counter's state, the timings and the derived costs.
nlohmann::ordered_json operator_costs_json(const CostTimings& timings, const std::vector<DerivedCost>& derived,
                                           double frequency_ghz, const std::string& frequency_source);
// The timings of such a section (its costs are derived again, with the caller's frequency).
// Throws model::InputError naming the file and field.
CostTimings cost_timings_from_json(const model::JsonReader& section);

// Whether `perf stat -e cycles` counts cycles here: "counted" or "not measured: ..." (a VM
// without a PMU says <not supported>).
std::string cycle_counter_state();

}  // namespace numatwin::validate
