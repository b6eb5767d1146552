// One plan shared by an interval's samples (sim/uncertainty/sample_plan.hpp) and its use in
// prediction_uncertainty (sim/uncertainty/prediction_interval.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <variant>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/uncertainty/sample_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology shipped(const char* name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (std::string(name) + ".json"));
}

// The merge phase of the sort-merge join, 8 workers on the 4-socket Xeon (2 per socket), on the
// machine's costs.
WorkloadSpec sort_merge(const model::Topology& t) {
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kSortMergeJoin;
  spec.threads = 8;
  spec.data.records = 1e7;
  spec.data.build_records = 1.6e6;
  spec.costs = operator_costs_of(machine_cost_basis(t));
  return spec;
}

// Every field of the two plans equal, except cycles_per_byte, which must agree to `relative`.
void expect_same_plan(const Plan& a, const Plan& b, double relative) {
  ASSERT_EQ(a.steps, b.steps);
  ASSERT_EQ(a.threads.size(), b.threads.size());
  for (std::size_t t = 0; t < a.threads.size(); ++t) {
    ASSERT_EQ(a.threads[t].core, b.threads[t].core);
    ASSERT_EQ(a.threads[t].ops.size(), b.threads[t].ops.size());
    for (std::size_t o = 0; o < a.threads[t].ops.size(); ++o) {
      const auto* x = std::get_if<Transfer>(&a.threads[t].ops[o]);
      const auto* y = std::get_if<Transfer>(&b.threads[t].ops[o]);
      if (x == nullptr || y == nullptr) {
        EXPECT_TRUE(a.threads[t].ops[o] == b.threads[t].ops[o]) << "thread " << t << " op " << o;
        continue;
      }
      EXPECT_NEAR(x->cycles_per_byte, y->cycles_per_byte, relative * y->cycles_per_byte) << "thread " << t << " op " << o;
      Transfer same = *x;
      same.cycles_per_byte = y->cycles_per_byte;
      EXPECT_TRUE(same == *y) << "thread " << t << " op " << o;
    }
  }
}

TEST(SamplePlanTest, MergeCostScalesOnlyTheMergeScansAndMatchesFreshPlansForRandomDraws) {
  const model::Topology t = shipped("xeon-e7-4880v2-4s");
  const WorkloadSpec spec = sort_merge(t);
  const Plan base = build_plan(t, spec);
  const std::optional<SamplePlan> shared = rate_only_sample_plan(t, spec, base, "merge_cycles_per_tuple", 0.5, 50.0);
  ASSERT_TRUE(shared.has_value());
  // n x n merge steps, each one fact scan carrying the merge's cycles: 64 scaled transfers (the
  // dimension-run scans carry scan_cycles_per_tuple and stay).
  EXPECT_EQ(shared->scaled.size(), 64U);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> log_value(std::log(0.5), std::log(50.0));
  Plan reused = shared->plan;
  for (int draw = 0; draw < 8; ++draw) {
    const double value = std::exp(log_value(rng));
    WorkloadSpec at = spec;
    at.costs.merge_cycles_per_tuple = value;
    const Plan fresh = build_plan(t, at);
    shared->apply(reused, value);  // the same plan, rewritten draw after draw
    expect_same_plan(reused, fresh, 1e-15);
    const double fresh_s = Simulation(t).run(fresh).time_s;
    const double reused_s = Simulation(t).run(reused).time_s;
    EXPECT_NEAR(reused_s, fresh_s, 1e-9 * fresh_s) << "merge cycles " << value;
  }
}

TEST(SamplePlanTest, ACostThatChangesThePlansStructureOrIsNotAFactorIsRebuilt) {
  const model::Topology t = shipped("xeon-e7-4880v2-4s");
  WorkloadSpec spec = sort_merge(t);
  spec.sort_merge_phases = SortMergePhases::kAll;
  const Plan all = build_plan(t, spec);
  // The usable LLC sets the sorts' memory passes: byte counts change, not only rates.
  EXPECT_FALSE(rate_only_sample_plan(t, spec, all, "llc_usable_share", 0.3, 0.9).has_value());
  // The sort's comparisons are a factor of the sorts' core work: shared.
  EXPECT_TRUE(rate_only_sample_plan(t, spec, all, "sort_cycles_per_comparison", 1.0, 10.0).has_value());
  // A cost the plan does not read (a hash join's) gives nothing to scale.
  EXPECT_FALSE(rate_only_sample_plan(t, spec, all, "join_cycles_per_tuple", 1.0, 40.0).has_value());
  // COUNT's scan carries scan + hash cycles: the hash cost is an addend of its core work, not a
  // factor, so the scan's cycles_per_byte is not proportional to it.
  WorkloadSpec count;
  count.kind = WorkloadKind::kCountAggregation;
  count.threads = 8;
  count.data.records = 1e7;
  count.costs = spec.costs;
  EXPECT_FALSE(rate_only_sample_plan(t, count, build_plan(t, count), "hash_cycles_per_tuple", 5.0, 60.0).has_value());
}

TEST(SamplePlanTest, TheIntervalOfASharedPlanIsTheIntervalOfPlansBuiltPerSample) {
  // The machine on default costs (its derived in-core costs dropped), so that one cost is drawn.
  model::Topology t = shipped("xeon-e7-4880v2-4s");
  t.operator_costs.clear();
  const WorkloadSpec spec = sort_merge(t);
  const CostBasis basis = machine_cost_basis(t);
  const auto rate = [](const WorkloadSpec&, const SimulationResult& r) { return 1.0 / r.time_s; };
  const PredictionUncertainty u = prediction_uncertainty(t, spec, basis, 16, rate);
  // The machine's one drawn cost for this join (the shared path is taken only for one).
  ASSERT_EQ(u.uncertain, std::vector<std::string>{"merge_cycles_per_tuple"});
  std::vector<double> times;
  for (const WorkloadSpec& s : cost_samples(spec, basis, u.uncertain, IntervalOptions{16, 1})) {
    times.push_back(Simulation(t).run(build_plan(t, s)).time_s);
  }
  const Interval built = interval_of(times);
  EXPECT_NEAR(u.time_s.median, built.median, 1e-9 * built.median);
  EXPECT_NEAR(u.time_s.low, built.low, 1e-9 * built.low);
  EXPECT_NEAR(u.time_s.high, built.high, 1e-9 * built.high);
  EXPECT_LT(u.time_s.low, u.time_s.high);  // the draws do move the time
}

}  // namespace
}  // namespace numatwin::sim
