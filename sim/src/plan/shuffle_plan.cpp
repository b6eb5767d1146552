#include "numatwin/sim/plan/shuffle_plan.hpp"

#include <string>

#include "numatwin/sim/schedule/shuffle_schedule.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>

namespace numatwin::sim {
namespace {

// A read of `bytes` from `from`: the consumer's work (cycles_per_byte) is phase "consume", the
// rest of the transfer's time `phase` ("read input" for a piece, "move state" for the state).
Transfer piece(model::NodeIndex from, double bytes, int step, double cycles_per_byte, Phase phase = Phase::kReadInput) {
  Transfer t;
  t.read_node = from;
  t.bytes = bytes;
  t.step = step;
  t.cycles_per_byte = cycles_per_byte;
  t.phase = phase;
  t.core_phase = Phase::kConsume;
  t.core_phase_share = 1.0;
  return t;
}

}  // namespace

Plan build_shuffle_plan(const model::Topology& topology, const WorkloadSpec& spec) {
  if (!is_shuffle_family(spec.kind)) {
    throw std::invalid_argument("workload " + workload_kind_name(spec.kind) + " is not a shuffle (use build_plan)");
  }
  check_workload(topology, spec);
  const std::vector<PlacedThread> placed = place_threads(topology, spec.threads, spec.placement);
  const int n = spec.threads;

  if (spec.algorithm == ShuffleAlgorithm::kScheduled) {
    ShuffleSchedule schedule;
    schedule.steps.assign(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 0));
    if (spec.producer_orders.size() != static_cast<std::size_t>(n)) {
      throw std::invalid_argument("--algorithm scheduled needs one producer order per thread (numatwin schedule designs them)");
    }
    for (int t = 0; t < n; ++t) {
      if (spec.producer_orders[t].size() != static_cast<std::size_t>(n)) {
        throw std::invalid_argument("thread " + std::to_string(t) + "'s producer order does not name every producer once");
      }
      for (int k = 0; k < n; ++k) schedule.steps[k][t] = spec.producer_orders[t][k];
    }
    check_schedule(schedule, n);
  }
  const ShuffleOrder order_of = shuffle_order(placed, spec.algorithm, spec.seed, spec.producer_orders);
  const std::vector<int>& outer = order_of.outer;

  const double piece_bytes = spec.total_bytes / (static_cast<double>(n) * n);
  Plan plan;
  plan.steps = n;
  plan.threads.resize(n);
  // Each thread's ops are built in `ops` (kept from thread to thread) and copied out at their
  // exact count: growing each thread's vector by doubling left up to twice the bytes the plan's
  // n^2 transfers need (1,152 ops of a tight shuffle in room for 2,048) and copied them as it grew.
  std::vector<Op> ops;
  for (int o = 0; o < n; ++o) {
    const int thread = outer[o];
    ThreadPlan& tp = plan.threads[thread];
    tp.core = placed[thread].core;
    ops.clear();
    const double cycles_per_byte = spec.cycles_per_element / spec.element_bytes;
    const std::vector<int>& order = order_of.producers[o];
    const model::NodeIndex home = placed[thread].node;
    model::NodeIndex here = home;
    for (int k = 0; k < n; ++k) {
      const model::NodeIndex source = placed[order[k]].node;
      switch (spec.kind) {
        case WorkloadKind::kShuffle:
          ops.emplace_back(piece(source, piece_bytes, k, cycles_per_byte));
          break;
        case WorkloadKind::kMigration:
          if (source != here) ops.emplace_back(Bind{source, spec.migration_overhead_seconds, Phase::kMigrate});
          here = source;
          ops.emplace_back(piece(source, piece_bytes, k, cycles_per_byte));
          if (spec.state_bytes > 0.0) ops.emplace_back(piece(home, spec.state_bytes, k, 0.0, Phase::kMoveState));
          break;
        case WorkloadKind::kMigrationAndCopy:
          if (source != here) {
            if (spec.state_bytes > 0.0) {
              Transfer copy = piece(here, spec.state_bytes, k, 0.0, Phase::kMoveState);
              copy.write_node = source;
              ops.emplace_back(std::move(copy));
            }
            ops.emplace_back(Bind{source, spec.migration_overhead_seconds, Phase::kMigrate});
            here = source;
          }
          ops.emplace_back(piece(source, piece_bytes, k, cycles_per_byte));
          break;
        default:
          break;
      }
      if (spec.sync == SyncMode::kTight) ops.emplace_back(Barrier{});
    }
    tp.ops.assign(std::make_move_iterator(ops.begin()), std::make_move_iterator(ops.end()));
  }
  return plan;
}

}  // namespace numatwin::sim
