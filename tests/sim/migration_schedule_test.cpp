// A migration's order (migration_schedule.hpp): the bound and the ring's time worked by hand on a
// two-socket toy, and the ring's gap on a shipped machine.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"

namespace numatwin::sim {
namespace {

// 2 nodes x 2 cores (one hardware thread each), memory 40 GB/s, one link of 10 GB/s each way, no
// coherence probes, 1000 miss buffers per core (a thread alone could read 64 kB / 140 ns, far
// above the controller: the controllers and the link decide every rate).
model::Topology two_sockets() {
  model::GeneratorParams p;
  p.nodes = 2;
  p.cores_per_node = 2;
  p.threads_per_core = 1;
  p.memory_read_bandwidth_gbps = 40.0;
  p.link_bandwidth_gbps = 10.0;
  p.miss_buffers_per_core = 1000;
  p.coherence.probe_bytes_per_line = 0.0;
  return model::generate_topology(p);
}

// 4 threads migrating over 16 pieces of 1 GB, no consumer work.
WorkloadSpec migration(double state_bytes, double overhead_s) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kMigration;
  s.threads = 4;
  s.total_bytes = 16e9;
  s.cycles_per_element = 0.0;
  s.state_bytes = state_bytes;
  s.migration_overhead_seconds = overhead_s;
  return s;
}

TEST(MigrationScheduleTest, RingMeetsTheBoundWhenStateAndBindingAreFree) {
  // Threads t0, t1 on s0, t2, t3 on s1. Every step has two threads on each node reading 1 GB
  // there: 2 GB / 40 GB/s = 0.05 s, four steps D = 0.2 s. R: each controller serves 8 GB over
  // the run, 0.2 s. The ring takes D: gap 0.
  const model::Topology t = two_sockets();
  const MigrationBound b = migration_bound(t, migration(0.0, 0.0));
  EXPECT_NEAR(b.data_s, 0.2, 1e-9);
  EXPECT_NEAR(b.resource_s, 0.2, 1e-9);
  EXPECT_NEAR(b.bound_s, 0.2, 1e-9);
  EXPECT_NEAR(b.ring_tight_s, 0.2, 1e-9);
  EXPECT_NEAR(b.tight_gap(), 0.0, 1e-8);
}

TEST(MigrationScheduleTest, RebindingIsTheRingsGapWorkedByHand) {
  // Re-binding costs 1 ms. Outer ring t0 t1 t2 t3, inner ring t0 t2 t1 t3: thread at outer o
  // reads inner[(o + k) mod 4] at step k. Nodes visited: t0 s0 s1 s0 s1 (3 binds), t1 s1 s0 s1
  // s0 (4), t2 s0 s1 s0 s1 (4, home s1), t3 s1 s0 s1 s0 (3). Step 0: t1 and t2 bind while t0 and
  // t3 read alone at 40 GB/s; the controllers never idle: 2 GB / 40 GB/s = 0.05 s. Steps 1-3:
  // every thread binds (1 ms), then 0.05 s: 0.051 s. Ring: 0.05 + 3 x 0.051 = 0.203 s; the
  // bound is D = R = 0.2 s: gap 1.5 %, above the 1 % under which numatwin runs the ring.
  const model::Topology t = two_sockets();
  const MigrationBound b = migration_bound(t, migration(0.0, 1e-3));
  EXPECT_NEAR(b.bound_s, 0.2, 1e-9);
  EXPECT_NEAR(b.ring_tight_s, 0.203, 1e-9);
  EXPECT_NEAR(b.tight_gap(), 0.015, 1e-7);
  EXPECT_GT(b.tight_gap(), kMigrationRingGap);
  EXPECT_EQ(b.ring_binds, 4);
  EXPECT_EQ(b.fewest_binds, 1);
}

TEST(MigrationScheduleTest, TheBlockedOrderReBindsOnceWorkedByHand) {
  // The blocked order on the toy: t0 reads t0 t1 (home s0, block 0) then t2 t3 (s1, block 1);
  // t1 reads t1 t0 then t3 t2; t2 reads t2 t3 then t0 t1; t3 reads t3 t2 then t1 t0. Every
  // thread re-binds once, all at step 2. Steps 0, 1, 3: 0.05 s; step 2: 1 ms + 0.05 s. Total
  // 0.201 s, 0.5 % above the bound 0.2 s, against the ring's 0.203 s: the design is kept.
  const model::Topology t = two_sockets();
  const WorkloadSpec spec = migration(0.0, 1e-3);
  const std::vector<std::vector<int>> orders = blocked_producer_orders(t, spec);
  const std::vector<std::vector<int>> expected = {{0, 1, 2, 3}, {1, 0, 3, 2}, {2, 3, 0, 1}, {3, 2, 1, 0}};
  EXPECT_EQ(orders, expected);
  const MigrationBound b = migration_bound(t, spec);
  ASSERT_TRUE(b.has_design);
  EXPECT_NEAR(b.designed_tight_s, 0.201, 1e-9);
  EXPECT_TRUE(b.designed_kept());
  EXPECT_NEAR(b.chosen_gap(), 0.005, 1e-7);
  EXPECT_EQ(scheduled_migration_orders(t, spec, b), expected);
}

TEST(MigrationScheduleTest, TheBlockedOrderIsALatinSquareOnAnEightSocketMachine) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "nehalem-ex-8s.json");
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kMigration;
  spec.threads = 64;
  spec.total_bytes = 12.8e9;
  const std::vector<std::vector<int>> orders = blocked_producer_orders(t, spec);
  ASSERT_EQ(orders.size(), 64U);
  ShuffleSchedule schedule;
  schedule.steps.assign(64, std::vector<int>(64, 0));
  for (int thread = 0; thread < 64; ++thread) {
    for (int k = 0; k < 64; ++k) schedule.steps[k][thread] = orders[thread][k];
  }
  EXPECT_NO_THROW(check_schedule(schedule, 64));
}

TEST(MigrationScheduleTest, NoBlockedOrderForUnequalNodes) {
  // 3 threads: two on s0, one on s1. The ring runs.
  const model::Topology t = two_sockets();
  WorkloadSpec spec = migration(0.0, 1e-3);
  spec.threads = 3;
  spec.total_bytes = 9e9;
  EXPECT_TRUE(blocked_producer_orders(t, spec).empty());
  const MigrationBound b = migration_bound(t, spec, false);
  EXPECT_FALSE(b.has_design);
  EXPECT_FALSE(b.designed_kept());
  EXPECT_EQ(scheduled_migration_orders(t, spec, b), ring_producer_orders(t, spec));
}

TEST(MigrationScheduleTest, StateReadsBoundTheRunThroughTheLink) {
  // A 1 GB state read from home every step. In every ring step one thread of each socket is on
  // the other one (see above). Per step: the pieces 0.05 s as before; then the state reads, one
  // local and one over the link per controller: the remote one at 10 GB/s (the link), 0.1 s.
  // Ring: 4 x 0.15 = 0.6 s. R: controller s0 serves 8 GB of pieces and 8 GB of state (t0 and t1,
  // four steps), 0.4 s; link s0 -> s1 carries t0's and t1's state on their two steps away,
  // 4 GB / 10 GB/s = 0.4 s. D = 0.2 s, so B = R = 0.4 s: no order goes below it.
  const model::Topology t = two_sockets();
  const MigrationBound b = migration_bound(t, migration(1e9, 0.0));
  EXPECT_NEAR(b.data_s, 0.2, 1e-9);
  EXPECT_NEAR(b.resource_s, 0.4, 1e-9);
  EXPECT_NEAR(b.bound_s, 0.4, 1e-9);
  EXPECT_NEAR(b.ring_tight_s, 0.6, 1e-9);
}

TEST(MigrationScheduleTest, TheRingIsWithinOnePercentOnTheTwistedLadder) {
  // issue 18: ring and "scheduled" migration took the same 0.8251 s here; the bound says no
  // order can do more than 1 % better at the defaults (64 B state, 5 us re-binding).
  const model::Topology t =
      model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "opteron-8220-8s-twisted-ladder.json");
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kMigration;
  spec.threads = 16;
  spec.total_bytes = 12.8e9;
  const MigrationBound b = migration_bound(t, spec, false);
  EXPECT_GE(b.ring_tight_s, b.bound_s * (1.0 - 1e-9));
  EXPECT_LT(b.tight_gap(), kMigrationRingGap);
}

TEST(MigrationScheduleTest, RejectsAShuffle) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kShuffle;
  spec.threads = 4;
  EXPECT_THROW(migration_bound(two_sockets(), spec), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
