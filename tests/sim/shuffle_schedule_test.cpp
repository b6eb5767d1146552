// Designed shuffle schedules (shuffle_schedule.hpp): the estimate worked by hand, the Latin
// square checked, and the design against the ring in the estimate and in the fluid model.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

// 2 nodes x 2 cores (one hardware thread each), memory 40 GB/s, one link of 10 GB/s each way,
// source snoop with `probe_bytes` per line.
model::Topology two_sockets(double probe_bytes) {
  model::GeneratorParams p;
  p.family = model::TopologyFamily::kFullyConnected;
  p.nodes = 2;
  p.cores_per_node = 2;
  p.threads_per_core = 1;
  p.memory_read_bandwidth_gbps = 40.0;
  p.link_bandwidth_gbps = 10.0;
  p.coherence.probe_bytes_per_line = probe_bytes;
  return model::generate_topology(p);
}

TEST(ShuffleScheduleTest, RingEstimateOnTwoSocketsWorkedByHand) {
  // 2 nodes x 2 cores, memory 40 GB/s, one link of 10 GB/s each way, pieces of 1 GB. Threads
  // t0, t1 on s0, t2, t3 on s1; outer ring t0 t1 t2 t3, inner ring t0 t2 t1 t3. Every ring
  // step has one thread of each socket reading the other: each link carries 1 GB (0.1 s),
  // each controller 2 GB (0.05 s): T_k = 0.1 s, four steps 0.4 s. The bound: each link carries
  // 4 GB over the run (0.4 s), each controller 8 GB (0.2 s): B = 0.4 s, met by the ring.
  const model::Topology t = two_sockets(0.0);
  const std::vector<PlacedThread> placed = place_threads(t, 4, ThreadPlacement{});
  const ScheduleDesign d = design_schedule(t, placed, 1e9);
  EXPECT_NEAR(d.ring_estimate_s, 0.4, 1e-12);
  EXPECT_NEAR(d.bound_s, 0.4, 1e-12);
  EXPECT_NEAR(d.design_estimate_s, 0.4, 1e-12);
  EXPECT_EQ(d.swaps_tried, 0);  // the ring meets the bound: nothing to search
  EXPECT_NO_THROW(check_schedule(d.schedule, 4));
}

TEST(ShuffleScheduleTest, TheEstimateCountsCoherenceProbes) {
  // As above, with source snoop and 32 probe bytes per 64-byte line: every read, local or not,
  // sends half its bytes in probes to the other socket. A ring step: the two s0 threads read 2 GB
  // (probes s0->s1: 1 GB) and one s1 thread reads 1 GB of s0's data (s0->s1: 1 GB): 2 GB on
  // the 10 GB/s link, T_k = 0.2 s; four steps 0.8 s. Over the run s0->s1 carries 8 GB: B = 0.8 s,
  // which the ring meets (the controllers: 8 GB / 40 GB/s = 0.2 s).
  const model::Topology t = two_sockets(32.0);
  ASSERT_EQ(t.performance.cache_line_bytes, 64);
  const std::vector<PlacedThread> placed = place_threads(t, 4, ThreadPlacement{});
  const ScheduleDesign d = design_schedule(t, placed, 1e9);
  EXPECT_NEAR(d.ring_estimate_s, 0.8, 1e-12);
  EXPECT_NEAR(d.bound_s, 0.8, 1e-12);
}

TEST(ShuffleScheduleTest, TheSearchKeepsTheEstimateExactUnderADirectory) {
  // The search sums each swap's change over the pairs' terms less what depends on the reader or
  // the home alone (shuffle_schedule.cpp, swap_terms); the designed schedule's estimate computed
  // afresh from the whole terms must be the same. xeon-e7-8880v2-8s: directory, home-dependent
  // probes on a ring with diagonals.
  const model::Topology t = machine("xeon-e7-8880v2-8s");
  const std::vector<PlacedThread> placed = place_threads(t, 120, ThreadPlacement{});
  const double piece = 12.8e9 / (120.0 * 120.0);
  const ScheduleDesign d = design_schedule(t, placed, piece);
  EXPECT_GT(d.swaps_kept, 0);
  EXPECT_LT(d.design_estimate_s, d.ring_estimate_s);
  EXPECT_NEAR(schedule_estimate_s(t, placed, piece, d.schedule), d.design_estimate_s, 1e-9 * d.design_estimate_s);
}

TEST(ShuffleScheduleTest, LatinSquareIsChecked) {
  ShuffleSchedule s;
  s.steps = {{0, 1}, {1, 0}};
  EXPECT_NO_THROW(check_schedule(s, 2));
  s.steps = {{0, 0}, {1, 1}};
  EXPECT_THROW(check_schedule(s, 2), std::invalid_argument);  // producer 0 read twice in step 0
  s.steps = {{0, 1}, {0, 1}};
  EXPECT_THROW(check_schedule(s, 2), std::invalid_argument);  // thread 0 reads producer 0 twice
  s.steps = {{0, 1}};
  EXPECT_THROW(check_schedule(s, 2), std::invalid_argument);  // a step missing
  s.steps = {{0, 2}, {1, 0}};
  EXPECT_THROW(check_schedule(s, 2), std::invalid_argument);  // no producer 2
}

TEST(ShuffleScheduleTest, FullyConnectedKeepsTheRing) {
  const model::Topology t = machine("nehalem-ex-4s");
  const std::vector<PlacedThread> placed = place_threads(t, 32, ThreadPlacement{});
  const ScheduleDesign d = design_schedule(t, placed, 12.8e9 / 1024.0);
  EXPECT_NEAR(d.design_estimate_s, d.ring_estimate_s, 1e-12);
  EXPECT_NEAR(d.ring_estimate_s, d.bound_s, 1e-9 * d.bound_s);
}

TEST(ShuffleScheduleTest, TwistedLadderDesignBeatsTheRingInTheEstimateAndTheFluidModel) {
  const model::Topology t = machine("opteron-8220-8s-twisted-ladder");
  const std::vector<PlacedThread> placed = place_threads(t, 16, ThreadPlacement{});
  const double piece = 12.8e9 / 256.0;
  const ScheduleDesign d = design_schedule(t, placed, piece);
  EXPECT_NO_THROW(check_schedule(d.schedule, 16));
  EXPECT_LT(d.design_estimate_s, d.ring_estimate_s);
  EXPECT_GE(d.design_estimate_s, d.bound_s * (1.0 - 1e-12));
  EXPECT_NEAR(schedule_estimate_s(t, placed, piece, d.schedule), d.design_estimate_s, 1e-9 * d.design_estimate_s);
  WorkloadSpec spec;
  spec.threads = 16;
  spec.total_bytes = 12.8e9;
  spec.algorithm = ShuffleAlgorithm::kRing;
  Simulation simulation(t);
  const double ring_s = simulation.run(build_shuffle_plan(t, spec)).time_s;
  spec.algorithm = ShuffleAlgorithm::kScheduled;
  spec.producer_orders = d.schedule.producer_orders();
  const double designed_s = simulation.run(build_shuffle_plan(t, spec)).time_s;
  EXPECT_LT(designed_s, ring_s);
}

// The loose form of a designed order: every thread reads the producers in its own designed order
// (the schedule's column), the same reads as tight, without the step barriers. Four threads, one
// per socket (sparse), and a Latin square written by hand: thread t's k-th transfer must read the
// node of producer orders[t][k], tagged step k; tight adds a barrier after each step, loose none.
TEST(ShuffleScheduleTest, LooseFollowsEachThreadsDesignedOrderWithoutBarriers) {
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec spec;
  spec.threads = 4;
  spec.total_bytes = 1.6e7;
  spec.placement = parse_placement("sparse");  // one thread per socket: thread p on s<p>
  spec.algorithm = ShuffleAlgorithm::kScheduled;
  // Thread t reads producers in this order (a Latin square: steps are permutations).
  spec.producer_orders = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
  const std::vector<PlacedThread> placed = place_threads(t, 4, spec.placement);
  for (const SyncMode sync : {SyncMode::kTight, SyncMode::kLoose}) {
    spec.sync = sync;
    const Plan plan = build_shuffle_plan(t, spec);
    for (int thread = 0; thread < 4; ++thread) {
      std::vector<model::NodeIndex> reads;
      int barriers = 0;
      for (const Op& op : plan.threads[static_cast<std::size_t>(thread)].ops) {
        if (const auto* tr = std::get_if<Transfer>(&op)) {
          EXPECT_EQ(tr->step, static_cast<int>(reads.size()));
          reads.push_back(tr->read_node);
        }
        if (std::holds_alternative<Barrier>(op)) ++barriers;
      }
      std::vector<model::NodeIndex> expected;
      for (const int producer : spec.producer_orders[static_cast<std::size_t>(thread)]) expected.push_back(placed[static_cast<std::size_t>(producer)].node);
      EXPECT_EQ(reads, expected) << "thread " << thread << ", " << sync_name(sync);
      EXPECT_EQ(barriers, sync == SyncMode::kTight ? 4 : 0) << "thread " << thread;
    }
  }
}

TEST(ShuffleScheduleTest, ScheduledOrderNeedsAValidSchedule) {
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec spec;
  spec.threads = 4;
  spec.total_bytes = 1.6e7;
  spec.algorithm = ShuffleAlgorithm::kScheduled;
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  spec.producer_orders = {{0, 1, 2, 3}, {0, 1, 2, 3}, {2, 3, 0, 1}, {3, 2, 1, 0}};  // 0 and 1 collide
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  spec.producer_orders = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
  EXPECT_NO_THROW(build_shuffle_plan(t, spec));
}

}  // namespace
}  // namespace numatwin::sim
