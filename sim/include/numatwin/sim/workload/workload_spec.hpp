// One description of a workload, interpreted by the simulator (sim/) and, later, executed by
// the real kernels (validate/). Sizes in bytes, rates in the units their names say.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/model/tlb.hpp"
#include "numatwin/sim/workload/key_distribution.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"

namespace numatwin::sim {

enum class WorkloadKind {
  kShuffle,           // every thread pulls its piece from every thread's buffer
  kMigration,         // the thread moves to the data instead; its state stays home
  kMigrationAndCopy,  // the thread moves and copies its state to the destination first
  // Operators (operator_plan.hpp):
  kMedianAggregation,       // W1: GROUP BY key MEDIAN(val), values kept per group, shared table
  kCountAggregation,        // W2: GROUP BY key COUNT(val), shared table
  kHashJoin,                // W3: non-partitioned: build a shared table on R, probe with S
  kIndexJoin,               // W4: index nested-loop join: S probes a prebuilt index on R
  kPartitionedAggregation,  // GROUP BY over key partitions: shuffle, migration or migration & copy
  kSortMergeJoin,           // P-MPSM: the merge phase only, or all four phases (SortMergePhases)
  kSubarray,                // an array database's range filter over a chunked dense array (Dominico et al.)
};

// How partitioned aggregation brings data and work together.
enum class PartitionStrategy { kShuffle, kMigration, kMigrationAndCopy };

// How the hash join (kHashJoin) joins R and S:
//  kNonPartitioned  one shared table on R, parallel probe (Memarzia et al.'s W3)
//  kRadix           radix-partition R and S into cache-sized partitions first (histogram and
//                   scatter passes), then build and probe a private, cache-resident table per
//                   partition (Balkesen et al., "Main-memory hash joins on multi-core CPUs")
enum class JoinAlgorithm { kNonPartitioned, kRadix };

// How an operator gets its memory for per-group or per-bucket data (issue 16): preallocated
// placed buffers (the default); per-group: MEDIAN keeps each group's values in an array grown
// through malloc/realloc as values arrive (Memarzia et al.'s holistic aggregation); per-bucket: the
// hash join's bucket overflow nodes come from malloc (Blanas et al.'s chained table).
enum class Allocation { kPreallocated, kPerGroup, kPerBucket };

struct DataSpec {
  double records = 1e8;         // aggregation input; probe side S of joins; fact table of sort-merge
  double build_records = 1.6e7;  // build side R of joins; dimension table of sort-merge
  int tuple_bytes = 16;         // 8-byte key + 8-byte value
  KeySpec keys;                 // groups and key distribution
  // subarray (operators/subarray.cpp): `records` cells of spec.element_bytes each, cut into
  // `chunks` chunks; every chunk is filtered by a chunk group of `threads_per_chunk` threads
  // together; `selectivity` is the share of cells inside the queried box.
  int chunks = 240;
  int threads_per_chunk = 2;
  double selectivity = 0.1;
};

// Costs of the operators' inner loops: model parameters the validator fits.
struct OperatorCosts {
  double scan_cycles_per_tuple = 2.0;
  // Core work per table access, one cost per kind of inner loop (their instructions differ):
  double hash_cycles_per_tuple = 20.0;   // COUNT / MEDIAN: hash, compare, update a shared entry
  double join_cycles_per_tuple = 20.0;   // hash and radix joins' build and probe
  double group_cycles_per_tuple = 20.0;  // partitioned aggregation: update a private entry
  double random_lines_in_flight = 4.0;     // independent misses a hash or probe loop keeps in flight
  double llc_hit_ns = 20.0;                 // a random access that hits the last-level cache
  double private_hit_ns = 5.0;              // ... that hits the core's own cache (L2 or L1)
  double llc_usable_share = 1.0;            // share of the LLC a random-access table keeps (0, 1]
  double merge_cycles_per_tuple = 10.0;
  double partition_cycles_per_tuple = 6.0;  // radix join's scatter: hash, cursor, line buffer (assumed)
  double partition_join_cycles_per_tuple = 10.0;  // radix join: build / probe of a partition's cached table
  double index_cycles_per_level = 8.0;  // index join: descend one level of the B+-tree
  double sort_cycles_per_comparison = 4.0;  // sort-merge join: one comparison of a run's sort
  // MEDIAN's selection per value: the kernel sorts a group of up to 32 values by insertion and
  // selects in a larger one (nth_element), both linear in the values for the groups it meets.
  double select_cycles_per_value = 16.0;
  double filter_cycles_per_cell = 2.0;      // subarray: test a cell against the range, keep it if inside
  int entry_bytes = 16;                     // hash table entry (key + payload); tables are half full
  // An atomic update of a shared table whose line another core modified last: the line moves
  // from that core's private cache (a "HitM" transfer), and the locked update cannot overlap it.
  // `validate run/suite` measure it (core-to-core ping-pong); 60 ns is an assumed default.
  double shared_line_transfer_ns = 60.0;
  // A locked read-modify-write (CAS, fetch_add) on a line the core holds: what the kernels pay per
  // update of a table several workers update (COUNT, MEDIAN, the hash join's build); one worker
  // updates with plain stores. ~18 cycles at 2.5 GHz is an assumed default (Agner Fog's
  // instruction tables list 18-20 cycles for LOCK XADD / CMPXCHG on recent Intel cores).
  double atomic_update_ns = 7.0;
  // The input stream of a loop that does other work per tuple keeps fewer lines in flight than a
  // plain streaming read: its loads wait behind the loop's own instructions. The share of the core's
  // miss buffers (miss_buffers_per_core) the stream keeps in flight, measured by the cost
  // microbenchmarks over a memory-sized input (cost_microbenchmarks.hpp); 1: all of them, as the
  // bandwidth microbenchmark's reads.
  double table_stream_share = 1.0;   // COUNT, MEDIAN, the joins, partitioned aggregation: the input
  double filter_stream_share = 1.0;  // subarray's range filter: the array
};

enum class ShuffleAlgorithm {
  kNaive,              // all threads walk the producers in the same order
  kRing,               // coordinated: two rings, every step reads every socket evenly
  kCoordinatedRandom,  // each thread a random permutation of the producers
  kScheduled,          // the spec's own order (producer_orders): a designed schedule (shuffle_schedule.hpp)
};

enum class SyncMode { kTight, kLoose };  // barrier after every step, or none

// Which phases of P-MPSM (Albutiu et al.) the sort-merge join runs (operators/sort_merge_join.cpp):
//  kMerge  phase 4 only, the runs prebuilt (the default, as before the whole join existed)
//  kAll    (1) sort the fact chunks locally, (2) range-partition the dimension chunks,
//          (3) gather and sort each worker's dimension run (a shuffle), (4) merge
enum class SortMergePhases { kMerge, kAll };

struct WorkloadSpec {
  WorkloadKind kind = WorkloadKind::kShuffle;
  ShuffleAlgorithm algorithm = ShuffleAlgorithm::kRing;
  SyncMode sync = SyncMode::kTight;
  int threads = 1;
  ThreadPlacement placement;
  double total_bytes = 0.0;        // everything shuffled: threads^2 pieces
  int element_bytes = 8;           // 64-bit integers in the study
  double cycles_per_element = 1.0;  // consumer work; the study computes a mean (one add per element)
  double state_bytes = 64.0;       // migration: the thread's working state
  double migration_overhead_seconds = 5e-6;  // migration: the OS re-binding a thread
  std::uint64_t seed = 1;          // coordinated random order
  // kScheduled: producer_orders[t] = the producers thread t visits, in order (a Latin square with
  // the other threads' orders; shuffle_schedule.hpp checks it).
  std::vector<std::vector<int>> producer_orders;
  // Operators:
  PartitionStrategy strategy = PartitionStrategy::kShuffle;  // kPartitionedAggregation
  JoinAlgorithm join_algorithm = JoinAlgorithm::kNonPartitioned;  // kHashJoin
  Allocation allocation = Allocation::kPreallocated;  // per-group: MEDIAN; per-bucket: hash join
  // The allocator the kernels' malloc/free run with and its costs on the machine (nullopt: the
  // model's defaults, model/allocator_costs.hpp); used only when allocation is not preallocated.
  std::string allocator = "glibc";
  std::optional<model::AllocatorCosts> allocator_costs;
  SortMergePhases sort_merge_phases = SortMergePhases::kMerge;     // kSortMergeJoin
  // Which buffers are on 2 MiB pages (model/tlb.hpp): on (all, as the kernels advise and the costs
  // were measured), off (none: 4 KiB pages), madvise (the placed datasets, not the allocator's
  // heap). The operators' random accesses add the translation that 4 KiB pages cost over 2 MiB.
  model::HugePages huge_pages = model::HugePages::kOn;
  DataSpec data;
  MemoryPolicy memory;
  OperatorCosts costs;
  // Operators: the address-space prefix (the datasets in allocation order) that automatic NUMA
  // balancing has scanned, whose one-worker pages are on their worker's node (numa_balancing.hpp);
  // 0: none (balancing off or not yet scanning). Set by simulate_numa_balancing.
  double numa_balanced_prefix_bytes = 0.0;
};

[[nodiscard]] bool is_shuffle_family(WorkloadKind kind);

// The algorithm variants of a workload, put side by side by compare, sweep and advise:
// shuffles: shuffle (naive, ring, coordinated random), migration and migration & copy (naive,
// ring), each tight and loose; partitioned aggregation: its three strategies x naive and ring;
// the sort-merge merge phase: naive and ring; the hash join: non-partitioned and radix; other
// operators: the spec itself.
std::vector<WorkloadSpec> algorithm_variants(const WorkloadSpec& base);

// The largest size numatwin counts: sizes (records, groups, bytes) are doubles, which hold every
// integer up to 2^53 exactly and beyond it skip some (2^53 + 1 == 2^53 as a double); byte
// counts leave as 64-bit integers (messages, the kernels' buffers), which 2^53 also fits.
// 2^53 bytes are 8 PiB, far more than any machine holds.
inline constexpr double kMaxCountable = 9007199254740992.0;  // 2^53

// Every size-like field (--records, --build-records, --groups, --bytes, --state-bytes) and the
// bytes they make with --tuple-bytes, --element-bytes and --entry-bytes is a finite number at
// most kMaxCountable; throws std::invalid_argument naming the option otherwise. Runs before any
// arithmetic on them (check_workload and the operators' planner call it first).
void check_sizes(const WorkloadSpec& spec);

// Checks the spec against the topology; throws std::invalid_argument with a message that names
// the field (e.g. "--bytes must be > 0"). Operators' data sizes are checked by their planner.
void check_workload(const model::Topology& topology, const WorkloadSpec& spec);
// The allocation fits the workload (per-group: median; per-bucket: non-partitioned hash join);
// throws std::invalid_argument naming --allocation.
void check_allocation(const WorkloadSpec& spec);

WorkloadKind parse_workload_kind(const std::string& text);
ShuffleAlgorithm parse_algorithm(const std::string& text);
SyncMode parse_sync(const std::string& text);
std::string workload_kind_name(WorkloadKind kind);
PartitionStrategy parse_strategy(const std::string& text);
std::string strategy_name(PartitionStrategy strategy);
JoinAlgorithm parse_join_algorithm(const std::string& text);
std::string join_algorithm_name(JoinAlgorithm algorithm);
Allocation parse_allocation(const std::string& text);  // preallocated, per-group, per-bucket
std::string allocation_name(Allocation allocation);
SortMergePhases parse_sort_merge_phases(const std::string& text);
std::string sort_merge_phases_name(SortMergePhases phases);
std::string algorithm_name(ShuffleAlgorithm algorithm);
std::string sync_name(SyncMode sync);

}  // namespace numatwin::sim
