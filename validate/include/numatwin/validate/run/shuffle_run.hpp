// The shuffle family (shuffle, migration, migration & copy) and partitioned aggregation run for
// real, doing the work the simulator plans for the same spec (sim/plan/shuffle_plan.hpp,
// sim/plan/operator_plan.hpp) with the same orders (sim::shuffle_order).
//
// Shuffle: N workers, each producer p's buffer (first touch by p, so on p's node) holds N pieces
// of total_bytes / N^2 bytes (64-bit integers); consumer c pulls piece c of every producer in
// its order and sums it. Tight: a barrier after every step (phases "step k"); loose: none.
// The steps run through libnumatwin-shuffle (shuffle/runner.hpp), the library programs use to
// run a designed schedule, so what is measured is its code: its pinned threads (on the team's
// CPUs), its barriers and its consumer callback, which sums the piece (and moves first when
// migrating). The team generates the data (first touch) and records the pages. Partitioned
// aggregation's steps run through it too, its unequal pieces (key partitions) given by offsets.
// Migration: the steps run through the library's migration runner (Runner::run_migration):
// before a step the consumer re-pins itself to the producer's node when it is on another one
// (least busy core of that node, as the simulator binds) and sums there; its state (state_bytes,
// it also carries the running sum) stays on its home node and is read and updated every step.
// Migration & copy: the state is copied to the destination node before each move. Workers
// re-pin home after the timed part.
//
// Partitioned aggregation: spec.data.records 16-byte (key, value) tuples in a partitioned
// dataset under spec.memory; worker w's chunk is split at generation (untimed) into N key
// partitions; worker c aggregates partition c of every worker, in its shuffle order, into its
// private table of G / N groups (COUNT and SUM; shuffle and migration keep it at home under
// spec.memory, migration & copy copies it to each node it moves to).
//
// Timed: from a barrier that starts every worker to the last worker's last step. Verified: per
// consumer against sums computed at generation (and the total), per table against a reference
// built from the input on small inputs (<= 2^20 records), else count and sum invariants.
#pragma once

#include <cstdint>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

// Largest aggregation input checked against a full reference.
inline constexpr double kReferenceRecords = 1048576.0;

// For each thread (index into `threads`), the producers it visits, step by step: the
// simulator's sim::shuffle_order indexed by thread instead of outer-ring position (for
// kScheduled, `orders`: the spec's producer_orders, one per thread).
std::vector<std::vector<int>> consumer_visits(const std::vector<sim::PlacedThread>& threads, sim::ShuffleAlgorithm algorithm,
                                              std::uint64_t seed, const std::vector<std::vector<int>>& orders = {});

// Bytes a run of a shuffle-family or partitioned-aggregation spec allocates.
double shuffle_memory_bytes(const sim::WorkloadSpec& spec);

// Throws std::invalid_argument for other kinds and for specs the kernels cannot run (before any
// work), std::runtime_error when verification fails.
RealRun run_shuffle_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                             const RunOptions& options);

}  // namespace numatwin::validate
