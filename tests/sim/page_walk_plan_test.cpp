// The page setting in the operators' plans (model/tlb.hpp, OperatorBuilder::page_walks): the
// time 4 KiB pages add, worked by hand with the model's default TLB figures (L1 64 / 32 entries,
// STLB 1536 / 1536, stlb_hit_ns 3, walk 30 ns on 4 KiB pages, 2 walkers), checked as the
// difference between predictions with huge pages off and on (the same plan otherwise: the walks
// are Computes of their own on one thread, so the difference is their time alone).
#include <gtest/gtest.h>

#include "numatwin/model/generators.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "sim_test_machines.hpp"

namespace numatwin::sim {
namespace {

using test_machines::one_node_two_cores;
using test_machines::predicted_s;

WorkloadSpec join(model::HugePages pages, Allocation allocation = Allocation::kPreallocated) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kHashJoin;
  s.threads = 1;
  s.allocation = allocation;
  s.data.build_records = 1e6;
  s.data.records = 4e6;
  s.huge_pages = pages;
  return s;
}

TEST(PageWalkPlanTest, HugePagesOffAddsTheWalksOfEveryTableAccess) {
  const model::Topology t = one_node_two_cores();
  ASSERT_FALSE(t.tlb.has_value());
  // The table: 2 x 1e6 entries of 16 B = 32e6 B. 4 KiB pages: m1 = 1 - 262144 / 32e6 = 0.991808,
  // m2 = 1 - 6291456 / 32e6 = 0.803392; 2 MiB pages: inside the L1's 64 MiB, nothing. With
  // random_lines_in_flight = 4 the overlap is O = 1 + (2 - 1) x 3 / 15 = 1.2, so per access
  // ((0.991808 - 0.803392) x 3 + 0.803392 x 30) / 1.2 = (0.565248 + 24.10176) / 1.2 = 20.55584 ns;
  // 1e6 build + 4e6 probe accesses: 5e6 x 20.55584 ns = 0.1027792 s.
  const double off = predicted_s(t, join(model::HugePages::kOff));
  const double on = predicted_s(t, join(model::HugePages::kOn));
  EXPECT_NEAR(off - on, 0.1027792, 1e-7);
}

TEST(PageWalkPlanTest, TheDefaultAndMadviseLeaveThePreallocatedJoinAsItWas) {
  const model::Topology t = one_node_two_cores();
  EXPECT_EQ(WorkloadSpec{}.huge_pages, model::HugePages::kOn);
  const double on = predicted_s(t, join(model::HugePages::kOn));
  // The preallocated join has only placed (advised) datasets: madvise gives them 2 MiB pages.
  EXPECT_EQ(predicted_s(t, join(model::HugePages::kMadvise)), on);
}

TEST(PageWalkPlanTest, MadviseChargesTheChainedJoinsNodesOnly) {
  const model::Topology t = one_node_two_cores();
  const double on = predicted_s(t, join(model::HugePages::kOn, Allocation::kPerBucket));
  const double madvise = predicted_s(t, join(model::HugePages::kMadvise, Allocation::kPerBucket));
  const double off = predicted_s(t, join(model::HugePages::kOff, Allocation::kPerBucket));
  // The overflow nodes are the allocator's heap: 4 KiB pages under madvise; the buckets stay on
  // 2 MiB pages, which off moves to 4 KiB too.
  EXPECT_GT(madvise, on);
  EXPECT_GT(off, madvise);
}

TEST(PageWalkPlanTest, ATopologysTlbFiguresReplaceTheDefaults) {
  model::Topology t = one_node_two_cores();
  const double defaults = predicted_s(t, join(model::HugePages::kOff)) - predicted_s(t, join(model::HugePages::kOn));
  model::TlbSpec tlb;
  tlb.stlb_entries_4k = 16384;  // 64 MiB of reach: the 32e6-byte table fits; only L1 misses remain
  tlb.source = "test";
  t.tlb = tlb;
  // Per access (0.991808 x 3) / 1.2 = 2.47952 ns; 5e6 accesses: 0.0123976 s.
  const double given = predicted_s(t, join(model::HugePages::kOff)) - predicted_s(t, join(model::HugePages::kOn));
  EXPECT_NEAR(given, 0.0123976, 1e-7);
  EXPECT_LT(given, defaults);
}

}  // namespace
}  // namespace numatwin::sim
