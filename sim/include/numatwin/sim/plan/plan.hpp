// A traffic plan: what each thread does, in order. The simulator interprets plans; workload
// builders (shuffle_plan.hpp, ...) turn a WorkloadSpec into one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::sim {

// What an op's time counts as in the per-phase breakdown (SimulationResult::phases): what the
// thread is doing, as the shuffling study breaks an operator down (reading partitions, updating
// the table, moving state). Every thread is in exactly one phase at every instant, so the
// phases' thread-seconds add up to threads x run time (kFinished: done, waiting for the rest).
enum class Phase : std::uint8_t {
  kOther,        // an op nobody labelled
  kReadInput,    // streaming reads of the input (pieces, partitions, chunks, runs)
  kConsume,      // a shuffle consumer's work on what it read
  kUpdateTable,  // updates of a hash table (aggregation, a join's build): core work and misses
  kProbeTable,   // lookups in a table or index (a join's probe)
  kPartition,    // radix scatter into partitions
  kSortMerge,    // sorting or merging (MEDIAN's groups, the sort-merge join's merge)
  kWriteOutput,  // streaming writes of results
  kMoveState,    // a thread's state following it: copies, cold misses after a move, remote state
  kMigrate,      // re-binding a thread to another core (the OS's overhead)
  kBarrierWait,  // waiting at a barrier for the other threads
  kSort,         // sorting a run in memory (the sort-merge join's fact runs and dimension runs)
  kGather,       // copying the pieces of a worker's range from every producer into its run
  kFinished,     // the thread is done; the run goes on
};
constexpr int kPhaseCount = 14;
static_assert(static_cast<int>(Phase::kFinished) + 1 == kPhaseCount, "kPhaseCount counts every Phase");

constexpr std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::kOther: return "other";
    case Phase::kReadInput: return "read input";
    case Phase::kConsume: return "consume";
    case Phase::kUpdateTable: return "update table";
    case Phase::kProbeTable: return "probe table";
    case Phase::kPartition: return "partition";
    case Phase::kSortMerge: return "sort/merge";
    case Phase::kWriteOutput: return "write output";
    case Phase::kMoveState: return "move state";
    case Phase::kMigrate: return "migrate";
    case Phase::kBarrierWait: return "barrier wait";
    case Phase::kSort: return "sort";
    case Phase::kGather: return "gather";
    case Phase::kFinished: return "finished";
  }
  return "other";
}

// The pages a transfer reads or writes, spread over nodes (model::NodeShare, fractions adding up to
// 1), shared and immutable: copying one copies a reference, not the shares. A plan of n x n merge
// scans reads n runs, so its transfers can share n spreads (or one, when the runs are spread
// alike) instead of carrying n^2 copies: fewer allocations to build, copy and free a plan, and
// the simulator and the bandwidth model read a few spreads that stay in cache. Built implicitly
// from a vector (one allocation for the shared block; the vector's shares are moved in); empty
// holds nothing. Equal when the shares are equal (the same block is equal without a look).
class SharedSpread {
 public:
  SharedSpread() = default;
  SharedSpread(std::vector<model::NodeShare> shares)  // NOLINT(google-explicit-constructor): as the vector it replaced
      : shares_(shares.empty() ? nullptr : std::make_shared<const std::vector<model::NodeShare>>(std::move(shares))) {}
  [[nodiscard]] bool empty() const { return shares_ == nullptr; }
  [[nodiscard]] std::size_t size() const { return shares_ ? shares_->size() : 0; }
  [[nodiscard]] const model::NodeShare* begin() const { return shares_ ? shares_->data() : nullptr; }
  [[nodiscard]] const model::NodeShare* end() const { return shares_ ? shares_->data() + shares_->size() : nullptr; }
  [[nodiscard]] const model::NodeShare& front() const { return *begin(); }
  [[nodiscard]] const model::NodeShare& operator[](std::size_t i) const { return begin()[i]; }
  [[nodiscard]] std::span<const model::NodeShare> span() const { return {begin(), size()}; }
  // A copy of the shares (for code that edits them).
  operator std::vector<model::NodeShare>() const { return {begin(), end()}; }  // NOLINT(google-explicit-constructor)
  friend bool operator==(const SharedSpread& a, const SharedSpread& b) {
    return a.shares_ == b.shares_ || std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  std::shared_ptr<const std::vector<model::NodeShare>> shares_;
};

// Stream `bytes` of payload: read from `read_node`'s memory and/or write to `write_node`'s (a copy
// when both are set), or from/to pages spread over several nodes. `step` tags the transfer for
// per-step statistics (-1: none). Random accesses keep at most `lines_in_flight` misses in flight
// (0: streaming, the core's miss buffers); `cycles_per_byte` is the core work per payload byte
// (consumer work, hashing, cache hits), overlapped with the memory traffic: it caps the rate.
// Phases: the transfer's time counts as `phase`, except the core's work on another phase that
// it carries as its rate cap (a table loop's scan carries the table work): a share
// `core_phase_share` of cycles_per_byte belongs to `core_phase`. The simulator splits each
// interval dt by what limits the stream: the core works u dt (u = rate / core-bound rate <= 1),
// split between the two phases in proportion to their cycles; the rest, (1 - u) dt, is the
// memory's and counts as `phase`. Of the core's work, a share cache_share() is waiting on cache
// hits (a table's LLC and private-cache hits, lines handed over by other cores) rather than
// executing: reported as the phase's cache time (it belongs to core_phase when the transfer
// carries one, since a scan's own work has no cache hits).
// The small fields first and together: 80 bytes without padding holes (88 in the order of the
// text above), which a plan of n^2 transfers multiplies; the cache share fills the two bytes
// after the phases, as a fixed-point fraction of 65535 (it only divides reported time).
struct Transfer {
  static constexpr double kCacheShareUnit = 65535.0;
  model::NodeIndex read_node = -1;
  model::NodeIndex write_node = -1;
  int step = -1;
  Phase phase = Phase::kOther;
  Phase core_phase = Phase::kOther;
  std::uint16_t cache_share_units = 0;
  [[nodiscard]] double cache_share() const { return cache_share_units / kCacheShareUnit; }
  void set_cache_share(double share) {
    cache_share_units = static_cast<std::uint16_t>(std::lround(std::clamp(share, 0.0, 1.0) * kCacheShareUnit));
  }
  double bytes = 0.0;
  double lines_in_flight = 0.0;
  double cycles_per_byte = 0.0;
  double core_phase_share = 0.0;  // 0..1
  SharedSpread read_spread;
  SharedSpread write_spread;
  friend bool operator==(const Transfer&, const Transfer&) = default;
};
static_assert(sizeof(Transfer) <= 80, "Transfer keeps its fields packed");

// Busy the thread's core for this long without memory traffic. For reports, a share
// `cache_share` of it waits on cache hits and a share `memory_share` on misses timed by their
// measured latency (dependent misses, one in flight); cache_share + memory_share <= 1.
struct Compute {
  double seconds = 0.0;
  Phase phase = Phase::kOther;
  double cache_share = 0.0;
  double memory_share = 0.0;
  friend bool operator==(const Compute&, const Compute&) = default;
};

// Re-bind the thread to a core of `node` (the simulator picks the core with the fewest threads,
// lowest index on ties), paying `overhead_seconds` for the move.
struct Bind {
  model::NodeIndex node = 0;
  double overhead_seconds = 0.0;
  Phase phase = Phase::kMigrate;
  friend bool operator==(const Bind&, const Bind&) = default;
};

// Wait until every thread that has not finished reaches a barrier (phase kBarrierWait).
// `ends_stage` non-empty: the barrier ends a named stage of the run (the sort-merge join's
// phases); the simulator records when it released (SimulationResult::stages). A string literal:
// the plan does not own it.
struct Barrier {
  std::string_view ends_stage{};
  friend bool operator==(const Barrier&, const Barrier&) = default;
};

using Op = std::variant<Transfer, Compute, Bind, Barrier>;

struct ThreadPlan {
  int core = 0;  // global core the thread starts on
  std::vector<Op> ops;
  friend bool operator==(const ThreadPlan&, const ThreadPlan&) = default;
};

struct Plan {
  std::vector<ThreadPlan> threads;
  int steps = 0;  // number of distinct step tags (0..steps-1)
  // The stage from the last barrier that ends a stage to the run's end (empty: none named;
  // a string literal, as Barrier::ends_stage).
  std::string_view final_stage{};
  // Equal plans simulate alike (Simulation::run reads nothing else of a workload).
  friend bool operator==(const Plan&, const Plan&) = default;
};

}  // namespace numatwin::sim
