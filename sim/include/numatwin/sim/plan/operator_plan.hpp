// Traffic plans of database operators (Memarzia et al., Li et al. section 4, Albutiu et al.'s
// P-MPSM sort-merge join), under memory and thread placement policies.
//
// Two kinds of memory traffic, modelled differently:
//  - scans are streams: bandwidth-bound, the core's miss buffers full (prefetchers);
//  - hash-table and index accesses are random: one cache line per miss, at most
//    `random_lines_in_flight` independent misses in flight, so latency-bound; a share h of the
//    accesses hits in the node's last-level cache (key_distribution.hpp, with the LLC's usable
//    share llc_usable_share of its bytes and a group's footprint: 2 x entry_bytes in a half-full
//    table, the kernel's table bytes per group for partitioned aggregation) and costs llc_hit_ns
//    instead, of which a share h_private (the same formula with the core's private cache) hits
//    the core's own cache and costs private_hit_ns. Updates are read-modify-write: the line is
//    read for ownership and written back.
// Overlap within a loop: the core's work per tuple (scan and hash cycles, the cache hits'
// latency over random_lines_in_flight, shared-line transfers) runs while the prefetchers stream
// the input, so it caps the scan's rate: a batch's scan takes max(bytes / bandwidth, core work).
// The accesses that miss the LLC follow as their own latency-bound transfer. (A cache-resident
// table thus costs max(stream, work) per tuple, not their sum.)
// Atomic updates of a SHARED table by k workers (COUNT, MEDIAN's group tails, the hash join's
// build) also pay, per update, s x shared_line_transfer_ns without overlap, where
// s = (k - 1) / k x h_private: the line was modified last by another worker and is still in that
// worker's private cache (h_private: the key distribution's hit ratio for a cache of the private
// cache's size). Few groups and many threads make s approach (k - 1) / k.
//
// Updates of a table that several workers update are locked read-modify-writes (the kernels use
// plain stores with one worker): each pays atomic_update_ns on the core, overlapped with the
// misses its loop prefetched ahead (a locked instruction drains the pipeline, the prefetched
// lines stay in flight): the misses' transfer takes max(its own time, updates x atomic_update_ns).
//
// Each phase is cut into kBatches alternating scan and random transfers, so that scans and table
// accesses of different threads overlap in time as they do in the real loop.
//
// Datasets and their kind (memory_policy.hpp decides the pages):
//   count / median   input (partitioned), shared hash table, median's values (private: written by
//                    every worker); MEDIAN as the kernel runs it: count, offsets, scatter, select
//                    (operators/aggregation.cpp)
//   hash-join        R and S (partitioned), shared hash table on R; radix: R and S (partitioned),
//                    their partitioned copies "R partitions" and "S partitions" (shared)
//   index-join       S (partitioned), shared index on R (a B+-tree of 64-byte nodes, fan-out 8)
//   partitioned      input pieces (like the shuffle), one private table per worker of
//   aggregation      G / threads groups; strategy shuffle / migration / migration & copy (the
//                    table against the caches where the thread runs, cold misses after a
//                    move, the copy: operators/partitioned_aggregation.cpp)
// Phases (plan.hpp): scans are "read input" and carry the table's core work ("update table" or
// "probe table") as the share of their cycles it is; the LLC misses are the table's phase;
// the radix scatter is "partition", MEDIAN's sort and the merge "sort/merge".
//   sort-merge-join  fact runs and dimension runs (partitioned), with all four phases also the
//                    dimension chunks and pieces (partitioned); the merge (and the gather) in the
//                    shuffle's order; local sorts are "sort", the gather "gather"
//                    (operators/sort_merge_join.cpp)
//   subarray         a chunked dense array and its result, each chunk group's share loaded by
//                    its members (partitioned with per-worker shares; operators/subarray.cpp)
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// What the builder decided, for reports: where threads run and where each dataset lives.
struct PlanReport {
  std::vector<PlacedThread> threads;
  std::vector<DataPlacement> datasets;
  std::vector<std::string> notes;  // e.g. cache hit ratios used
};

constexpr int kBatches = 4;

// Threads a workload treats alike: the threads of one group are interchangeable, and so are two
// groups with the same size and signature. The subarray filter's chunk groups (signature: the
// chunks the group filters); every other workload: one group of all threads.
struct ThreadGroup {
  std::vector<int> threads;
  double signature = 0.0;
};
std::vector<ThreadGroup> interchangeable_threads(const WorkloadSpec& spec);

// The radix join's partition bits: the fewest (at most kMaxRadixBits) that make one partition's
// table (2 entries of `entry_bytes` per build tuple: half full) fit in half of the core's private
// cache of `cache_bytes` (Balkesen et al.: partitions sized to the cache; half leaves room
// for the partition's input and the probe stream). The real kernel (validate/) uses the same rule
// with the topology's private cache.
constexpr int kMaxRadixBits = 14;
int radix_partition_bits(double build_records, double cache_bytes, int entry_bytes);
// The largest cache a core of `node` has to itself (shared by one core), 0 when none is listed.
double private_cache_bytes(const model::Node& node);

// The index join's B+-tree (64-byte nodes of 8 keys; level l has at most 8^l nodes): its depth
// for `build_records` keys, and how many of its levels, from the root down, fit a core's private
// cache of `private_bytes` and an LLC share of `llc_bytes` with the levels above them (their
// cumulative size, sum over k <= l of 8^k x 64 bytes). in_private <= in_llc <= depth.
struct IndexLevels {
  int depth = 1;
  int in_private = 0;
  int in_llc = 0;
};
int index_depth(double build_records);
IndexLevels index_levels(int depth, double private_bytes, double llc_bytes);

// Throws std::invalid_argument for bad specs (sizes, a policy naming a node without memory, data
// that cannot fit).
Plan build_operator_plan(const model::Topology& topology, const WorkloadSpec& spec, PlanReport* report = nullptr);

// Any workload: shuffles (shuffle_plan.hpp) and operators.
Plan build_plan(const model::Topology& topology, const WorkloadSpec& spec, PlanReport* report = nullptr);

}  // namespace numatwin::sim
