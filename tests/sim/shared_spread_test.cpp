// Spreads shared between a plan's transfers (sim/plan/plan.hpp: SharedSpread), and the sort-merge
// join's plan, whose n x n merge scans share their runs' spreads: each scan must read exactly the
// spread that its run's placement gives when worked out afresh.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/plan/plan.hpp"

namespace numatwin::sim {
namespace {

using Shares = std::vector<model::NodeShare>;

TEST(SharedSpreadTest, HoldsTheSharesItWasBuiltFrom) {
  const Shares shares{{0, 0.25}, {2, 0.75}};
  const SharedSpread spread(shares);
  ASSERT_EQ(spread.size(), 2U);
  EXPECT_EQ(spread[0].node, 0);
  EXPECT_EQ(spread[1].fraction, 0.75);
  EXPECT_EQ(static_cast<Shares>(spread), shares);
  EXPECT_EQ(spread.span().size(), 2U);
  EXPECT_EQ(spread.span().data(), spread.begin());
}

TEST(SharedSpreadTest, CopiesShareOneBlockAndEqualityComparesShares) {
  const SharedSpread a(Shares{{1, 0.5}, {3, 0.5}});
  const SharedSpread copy = a;  // NOLINT(performance-unnecessary-copy-initialization): the copy is the point
  EXPECT_EQ(copy.begin(), a.begin());  // the same block, not a copy of the shares
  const SharedSpread same(Shares{{1, 0.5}, {3, 0.5}});
  EXPECT_NE(same.begin(), a.begin());
  EXPECT_TRUE(same == a);  // equal shares in another block
  EXPECT_FALSE(SharedSpread(Shares{{1, 0.5}, {2, 0.5}}) == a);
  EXPECT_FALSE(SharedSpread(Shares{{1, 0.5}, {3, 0.25}, {0, 0.25}}) == a);
}

TEST(SharedSpreadTest, EmptyHoldsNothing) {
  const SharedSpread none;
  const SharedSpread from_empty(Shares{});
  EXPECT_TRUE(none.empty());
  EXPECT_TRUE(from_empty.empty());
  EXPECT_EQ(none.size(), 0U);
  EXPECT_EQ(none.begin(), none.end());
  EXPECT_TRUE(none == from_empty);
  EXPECT_FALSE(none == SharedSpread(Shares{{0, 1.0}}));
}

model::Topology shipped(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

const DataPlacement& dataset(const PlanReport& report, const std::string& name) {
  for (const DataPlacement& d : report.datasets)
    if (d.name == name) return d;
  throw std::logic_error("no dataset " + name);
}

// The merge's scans of worker w: the fact scans (carrying the merge's core work) and the
// dimension-run scans, in plan order.
struct MergeScans {
  std::vector<const Transfer*> facts;
  std::vector<const Transfer*> dims;
};
MergeScans merge_scans(const ThreadPlan& tp) {
  MergeScans out;
  for (const Op& op : tp.ops) {
    const auto* tr = std::get_if<Transfer>(&op);
    if (tr == nullptr || tr->step < 0) continue;
    (tr->core_phase == Phase::kSortMerge ? out.facts : out.dims).push_back(tr);
  }
  return out;
}

// Each merge scan reads what the placement of its run gives afresh: worker w's dimension run at
// every step, and every producer's fact run once (as a multiset of spreads: the order is the
// shuffle's). Scans of alike runs share one block, so the plan holds at most as many blocks as
// distinct spreads.
void expect_shared_spreads_are_the_runs(const model::Topology& t, const WorkloadSpec& spec) {
  PlanReport report;
  const Plan plan = build_plan(t, spec, &report);
  const int n = static_cast<int>(plan.threads.size());
  ASSERT_EQ(n, spec.threads);
  const DataPlacement& facts = dataset(report, "fact runs");
  const DataPlacement& dims = dataset(report, "dimension runs");
  std::multiset<std::vector<std::pair<int, double>>> expected_facts;
  std::set<std::vector<std::pair<int, double>>> distinct;
  const auto key = [](const Shares& s) {
    std::vector<std::pair<int, double>> k;
    for (const model::NodeShare& x : s) k.emplace_back(x.node, x.fraction);
    return k;
  };
  for (int p = 0; p < n; ++p) {
    expected_facts.insert(key(facts.chunk(p, n)));
    distinct.insert(key(facts.chunk(p, n)));
    distinct.insert(key(dims.chunk(p, n)));
  }
  std::set<const model::NodeShare*> blocks;
  for (int w = 0; w < n; ++w) {
    const MergeScans scans = merge_scans(plan.threads[static_cast<std::size_t>(w)]);
    ASSERT_EQ(static_cast<int>(scans.facts.size()), n) << "worker " << w;
    ASSERT_EQ(static_cast<int>(scans.dims.size()), n) << "worker " << w;
    std::multiset<std::vector<std::pair<int, double>>> read;
    for (const Transfer* tr : scans.facts) {
      read.insert(key(tr->read_spread));
      blocks.insert(tr->read_spread.begin());
    }
    EXPECT_EQ(read, expected_facts) << "worker " << w;
    for (const Transfer* tr : scans.dims) {
      EXPECT_EQ(key(tr->read_spread), key(dims.chunk(w, n))) << "worker " << w;
      blocks.insert(tr->read_spread.begin());
    }
  }
  EXPECT_LE(blocks.size(), distinct.size());
}

WorkloadSpec sort_merge(const model::Topology& t, int threads) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kSortMergeJoin;
  spec.threads = threads;
  spec.data.records = 1e7;
  spec.data.build_records = 1.6e6;
  spec.costs = operator_costs_of(machine_cost_basis(t));
  return spec;
}

TEST(SharedSpreadTest, SortMergeJoinScansReadTheirRunsUnderWeightedInterleave) {
  const model::Topology t = shipped("xeon-max-9462-2s");
  WorkloadSpec spec = sort_merge(t, 12);
  spec.placement.kind = PlacementKind::kSparse;
  spec.memory.kind = MemoryPolicyKind::kWeightedInterleave;
  spec.memory.global = InterleaveWeights{{0, 1, 2, 3}, {1, 1, 4, 4}};
  expect_shared_spreads_are_the_runs(t, spec);
}

TEST(SharedSpreadTest, SortMergeJoinScansReadTheirRunsUnderFirstTouch) {
  // Sparse: the workers on both sockets, so the runs are spread two ways.
  const model::Topology t = shipped("xeon-max-9462-2s");
  WorkloadSpec spec = sort_merge(t, 12);
  spec.placement.kind = PlacementKind::kSparse;
  expect_shared_spreads_are_the_runs(t, spec);
}

}  // namespace
}  // namespace numatwin::sim
