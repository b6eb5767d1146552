// Cost basis and prediction intervals (sim/workload/cost_basis.hpp, sim/uncertainty/prediction_interval.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology shipped(const char* name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (std::string(name) + ".json"));
}

TEST(PredictionIntervalTest, QuantilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> sorted = {1, 2, 3, 4, 5};
  // Position p x (n - 1): 0.5 -> 2 (the value 3); 0.05 -> 0.2 (1 + 0.2 x (2 - 1) = 1.2);
  // 0.95 -> 3.8 (4 + 0.8 x (5 - 4) = 4.8).
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.5), 3.0);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.05), 1.2);
  EXPECT_DOUBLE_EQ(quantile(sorted, 0.95), 4.8);
  const Interval i = interval_of({5, 1, 4, 2, 3});  // unsorted input
  EXPECT_DOUBLE_EQ(i.median, 3.0);
  EXPECT_DOUBLE_EQ(i.low, 1.2);
  EXPECT_DOUBLE_EQ(i.high, 4.8);
}

TEST(PredictionIntervalTest, LatinHypercubePutsOneDrawInEveryStratum) {
  // A cost ranging over [1, e^64]: its log-range [0, 64) is cut into 64 strata of width 1, so
  // floor(ln(draw)) must take every value 0 .. 63 exactly once.
  CostBasis basis;
  basis.costs.push_back(BasisCost{"llc_hit_ns", model::CostValue{10.0, 1.0, std::exp(64.0), model::CostOrigin::kMeasured, "t"}});
  basis.costs.push_back(BasisCost{"hash_cycles_per_tuple", model::CostValue{5.0, 1.0, std::exp(64.0), model::CostOrigin::kMeasured, "t"}});
  WorkloadSpec spec;
  spec.costs.scan_cycles_per_tuple = 3.0;
  const std::vector<WorkloadSpec> samples = cost_samples(spec, basis, {"llc_hit_ns", "hash_cycles_per_tuple"});
  ASSERT_EQ(samples.size(), 64u);
  std::set<int> llc;
  std::set<int> hash;
  for (const WorkloadSpec& s : samples) {
    llc.insert(static_cast<int>(std::floor(std::log(s.costs.llc_hit_ns))));
    hash.insert(static_cast<int>(std::floor(std::log(s.costs.hash_cycles_per_tuple))));
    EXPECT_EQ(s.costs.scan_cycles_per_tuple, 3.0);  // not drawn: as in the spec
  }
  EXPECT_EQ(llc.size(), 64u);
  EXPECT_EQ(*llc.begin(), 0);
  EXPECT_EQ(*llc.rbegin(), 63);
  EXPECT_EQ(hash.size(), 64u);
  // Independent permutations: the two costs are not drawn in the same stratum order.
  int same = 0;
  for (const WorkloadSpec& s : samples) {
    same += std::floor(std::log(s.costs.llc_hit_ns)) == std::floor(std::log(s.costs.hash_cycles_per_tuple)) ? 1 : 0;
  }
  EXPECT_LT(same, 64);
  EXPECT_THROW(cost_samples(spec, basis, {"llc_hit_ns"}, IntervalOptions{1, 1}), std::invalid_argument);
}

TEST(PredictionIntervalTest, GivenAndPointCostsAreNotDrawn) {
  CostBasis basis;
  basis.costs.push_back(BasisCost{"llc_hit_ns", model::CostValue{10, 10, 10, model::CostOrigin::kMeasured, "t"}});
  basis.costs.push_back(BasisCost{"hash_cycles_per_tuple", model::CostValue{5, 5, 5, model::CostOrigin::kDefault, "cli"}, true});
  basis.costs.push_back(BasisCost{"scan_cycles_per_tuple", model::CostValue{2, 1, 8, model::CostOrigin::kDefault, "d"}});
  EXPECT_EQ(uncertain_costs(basis, {"llc_hit_ns", "hash_cycles_per_tuple", "scan_cycles_per_tuple"}),
            std::vector<std::string>{"scan_cycles_per_tuple"});
}

TEST(PredictionIntervalTest, DependenciesAreTheCostsThatChangeThePrediction) {
  // A made-up predictor: time = 2 x hash + scan cycles; nothing else matters.
  WorkloadSpec spec;
  const auto predict = [](const WorkloadSpec& s) { return 2.0 * s.costs.hash_cycles_per_tuple + s.costs.scan_cycles_per_tuple; };
  EXPECT_EQ(costs_depended_on(spec, predict), (std::vector<std::string>{"scan_cycles_per_tuple", "hash_cycles_per_tuple"}));
}

TEST(PredictionIntervalTest, MachineBasisTakesTheFilesCostsAndDefaultsForTheRest) {
  model::Topology t = shipped("xeon-e7-4880v2-4s");
  t.operator_costs.push_back(model::NamedCost{"llc_hit_ns", model::CostValue{15, 12, 18, model::CostOrigin::kTransferred, "x"}});
  const CostBasis basis = machine_cost_basis(t);
  EXPECT_EQ(basis.costs.size(), model::operator_cost_table().size());
  EXPECT_EQ(basis.at("llc_hit_ns").cost.origin, model::CostOrigin::kTransferred);
  // The file's own: its in-core costs derived from its Ivy Bridge core (issue 38); the rest defaults.
  EXPECT_EQ(basis.at("scan_cycles_per_tuple").cost.origin, model::CostOrigin::kDerived);
  EXPECT_EQ(basis.at("private_hit_ns").cost.origin, model::CostOrigin::kDefault);
  const OperatorCosts costs = operator_costs_of(basis);
  EXPECT_EQ(costs.llc_hit_ns, 15.0);
  EXPECT_EQ(costs.scan_cycles_per_tuple, model::cost_or_default(t.operator_costs, "scan_cycles_per_tuple").value);
  EXPECT_EQ(costs.private_hit_ns, 5.0);  // the table's default
  EXPECT_EQ(cost_basis_summary(basis, {"llc_hit_ns", "scan_cycles_per_tuple", "private_hit_ns"}),
            "costs: 1 transferred, 1 derived (from the core's microarchitecture: an analyser's loop cycles, not measured), 1 default "
            "(private_hit_ns: calibrated nowhere)");
}

TEST(PredictionIntervalTest, CountRestsOnItsLoopCostsAndItsIntervalBracketsTheMedian) {
  // COUNT on a 4-socket machine: the sort, merge and partition costs belong to other operators
  // and must not be among the costs it rests on; the hash loop's cost must be.
  const model::Topology t = shipped("xeon-e7-4880v2-4s");
  WorkloadSpec spec;
  spec.kind = WorkloadKind::kCountAggregation;
  spec.threads = 15;
  spec.data.records = 1e7;
  const CostBasis basis = machine_cost_basis(t);
  spec.costs = operator_costs_of(basis);
  const auto time_of = [&](const WorkloadSpec& s) { return Simulation(t).run(build_operator_plan(t, s)).time_s; };
  const std::vector<std::string> depends = costs_depended_on(spec, time_of);
  const std::set<std::string> names(depends.begin(), depends.end());
  EXPECT_TRUE(names.contains("hash_cycles_per_tuple"));
  EXPECT_FALSE(names.contains("sort_cycles_per_comparison"));
  EXPECT_FALSE(names.contains("merge_cycles_per_tuple"));
  EXPECT_FALSE(names.contains("partition_cycles_per_tuple"));
  std::vector<double> times;
  for (const WorkloadSpec& s : cost_samples(spec, basis, uncertain_costs(basis, depends), IntervalOptions{16, 1})) {
    times.push_back(time_of(s));
  }
  const Interval i = interval_of(times);
  EXPECT_LT(i.low, i.median);
  EXPECT_LT(i.median, i.high);
}

}  // namespace
}  // namespace numatwin::sim
