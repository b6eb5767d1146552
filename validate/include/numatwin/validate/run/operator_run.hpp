// The database operators of sim/plan/operator_plan.hpp run for real: COUNT and MEDIAN aggregation
// over a shared hash table, the hash join (non-partitioned, or radix-partitioned when
// spec.join_algorithm is kRadix), the index nested-loop join and the sort-merge join, its merge
// phase or all four phases (aggregation_kernels.hpp, hash_join_kernels.hpp, index_join_kernel.hpp,
// sort_merge_join_kernel.hpp; the sort-merge join's run: src/sort_merge_join_run.hpp).
//
// Datasets mirror the simulator's, each a PlacedDataset under spec.memory with the same kind:
//   count / median   input (partitioned, records tuples), hash table (shared, 2 G entries of 16
//                    bytes: half full), values (private, records x 8 bytes; median only)
//   hash join        R (partitioned, build_records), S (partitioned, records), hash table
//                    (shared, 2 |R| entries)
//   index join       S (partitioned), index (shared, 64-byte nodes over R's keys, prebuilt)
//   sort-merge join  fact runs (partitioned, records: S, each run sorted), dimension runs
//                    (partitioned, build_records: R range-partitioned and sorted), prebuilt; with
//                    all phases (spec.sort_merge_phases) S and R unsorted, and dimension chunks
//                    and pieces (partitioned), sorted and gathered in the timed run
//   radix join       R, S (partitioned), "R partitions" and "S partitions" (shared: the
//                    partitioned copies, |R| and |S| tuples); 2^radix_join_bits partitions
// Data (data_generator.hpp, seed = spec.seed): aggregation input and S draw keys from
// spec.data.keys (S with G = build_records, so every S key has its R partner); R's keys are a
// bijection of [0, build_records) (seed + 1), values uniform in [0, 2^31). Generation is the
// first touch; it and index building are untimed.
//
// Timed, per repetition (the table is cleared untimed before each): the whole operator; phases
// "aggregate" (COUNT), "count", "offsets", "scatter", "median" (MEDIAN), "build", "probe"
// (hash join), "probe" (index join), "step k" (tight) or "merge" (loose sort-merge join, merge
// phase only), "sort facts", "partition", "gather", "sort dimension", "merge" (all phases),
// "partition", "join" (radix join). Work = input tuples: records (aggregations, index join) or
// build_records + records (hash and sort-merge joins).
//
// Verification (options.verify, untimed, after the repetitions): against a direct-addressed
// reference computed in one thread (keys are dense integers): counts per key; per-key sorted
// values for MEDIAN; R's value (or rank) per key for the joins. The result digest
// (aggregation_kernels.hpp's table_digest, or the join checksum) is also compared across
// repetitions.
#pragma once

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

// Bytes a run allocates: datasets plus the verification reference (when options verify).
double operator_memory_bytes(const sim::WorkloadSpec& spec);

// spec.kind: kCountAggregation, kMedianAggregation, kHashJoin (spec.join_algorithm), kIndexJoin,
// kSortMergeJoin (spec.algorithm, spec.sync, spec.sort_merge_phases). Throws std::invalid_argument
// before any work for other kinds, tuple_bytes != 16, records or build_records < 1, groups < 1, bad
// key-distribution parameters, fewer records than threads^2 (sort-merge), a scheduled order
// without one producer order per thread (sort-merge), too little memory; std::runtime_error when
// verification fails.
RealRun run_operator_workload(const model::Topology& topology, const HostMap& host,
                              const sim::WorkloadSpec& spec, const RunOptions& options);

// The radix join's partition bits for `spec` on `topology`: sim::radix_partition_bits with the
// private cache (sim::private_cache_bytes) of the node of worker 0 and spec.costs.entry_bytes,
// the rule the simulator uses, so model and kernel cut the same partitions.
int radix_join_bits(const model::Topology& topology, const sim::WorkloadSpec& spec);

}  // namespace numatwin::validate
