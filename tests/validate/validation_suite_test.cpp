#include "numatwin/validate/suite/validation_suite.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <sstream>

#include "numatwin/model/generators.hpp"
#include "numatwin/validate/suite/validation_report.hpp"

namespace numatwin::validate {
namespace {

model::Topology one_node() {
  model::GeneratorParams params;
  params.nodes = 1;
  params.cores_per_node = 2;
  params.threads_per_core = 1;
  params.memory_per_node_bytes = 24LL * 1024 * 1024 * 1024;
  return model::generate_topology(params);
}

KernelComparison comparison(sim::WorkloadKind kind, int threads, double measured_s) {
  KernelComparison c;
  c.spec.kind = kind;
  c.spec.threads = threads;
  c.spec.total_bytes = 1e9;
  c.spec.data.records = 1e7;
  c.id = sim::workload_kind_name(kind) + "-" + std::to_string(threads);
  c.measured.seconds = measured_s;
  c.measured.work = 1e7;
  c.measured.work_unit = "tuples";
  c.measured.verified = true;
  c.allocator = "glibc";
  c.predicted.seconds = measured_s;
  return c;
}

// A stand-in model, worked by hand: a shuffle takes cycles_per_element x 0.1 s, COUNT takes
// hash_cycles_per_tuple x 0.01 s; the 2-thread runs take the same (no contention modelled).
Prediction toy_model(const model::Topology&, const sim::WorkloadSpec& spec) {
  Prediction p;
  p.seconds = sim::is_shuffle_family(spec.kind) ? spec.cycles_per_element * 0.1 : spec.costs.hash_cycles_per_tuple * 0.01;
  return p;
}

TEST(ValidationSuiteTest, CostFitRecoversTheCostsThatExplainTheTrainingRuns) {
  // Measured: shuffle 0.3 s (cycles_per_element 3), COUNT 0.5 s (hash cycles 50). Defaults:
  // cycles_per_element 1, hash cycles 20, so the errors before are -66.7 % and -60 %.
  std::vector<KernelComparison> runs{comparison(sim::WorkloadKind::kShuffle, 1, 0.3),
                                     comparison(sim::WorkloadKind::kCountAggregation, 1, 0.5),
                                     comparison(sim::WorkloadKind::kCountAggregation, 2, 0.55)};
  const CostFit fit = fit_kernel_costs(one_node(), runs, {true, true, false}, toy_model);
  EXPECT_EQ(fit.training_runs, 2);
  EXPECT_EQ(fit.held_out_runs, 1);
  EXPECT_NEAR(fit.errors_before[0], 0.1 / 0.3 - 1.0, 1e-12);
  EXPECT_NEAR(fit.errors_before[1], 0.2 / 0.5 - 1.0, 1e-12);
  EXPECT_NEAR(fit.after.cycles_per_element, 3.0, 0.003);
  EXPECT_NEAR(fit.after.operators.hash_cycles_per_tuple, 50.0, 0.05);
  EXPECT_NEAR(fit.errors_after[0], 0.0, 1e-3);
  EXPECT_NEAR(fit.errors_after[1], 0.0, 1e-3);
  // The held-out run is predicted at 0.5 s against 0.55 s measured.
  EXPECT_NEAR(fit.errors_after[2], 0.5 / 0.55 - 1.0, 1e-3);
  // Costs no training run depends on are kept and said so.
  EXPECT_DOUBLE_EQ(fit.after.operators.llc_hit_ns, fit.before.operators.llc_hit_ns);
  bool noted = false;
  for (const std::string& note : fit.notes) noted = noted || note.find("llc_hit_ns") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(ValidationSuiteTest, CostFitFollowsTheMajorityNotAnOutlier) {
  // Three COUNT runs of 0.5, 0.5 and 5 s under the toy model (0.01 s per hash cycle): least
  // absolute log deviations put the hash cycles at 50 (the two agreeing runs exact); a least
  // squares fit would settle at 0.01 x exp(mean log) = 108 and miss all three. The smoothed
  // objective sum sqrt(l^2 + d^2) - d (d = 0.02) settles where the two agreeing runs' slopes
  // 2 l / sqrt(l^2 + d^2) balance the outlier's 1: l = d / sqrt(3) = 0.01155, so the hash cycles
  // are 50 exp(0.01155) = 50.58 and the median error exp(0.01155) - 1 = 1.16 %.
  const std::vector<KernelComparison> with_outlier{comparison(sim::WorkloadKind::kCountAggregation, 1, 0.5),
                                                   comparison(sim::WorkloadKind::kCountAggregation, 2, 0.5),
                                                   comparison(sim::WorkloadKind::kCountAggregation, 2, 5.0)};
  const CostFit fit = fit_kernel_costs(one_node(), with_outlier, {true, true, true}, toy_model);
  EXPECT_NEAR(fit.after.operators.hash_cycles_per_tuple, 50.0 * std::exp(0.02 / std::sqrt(3.0)), 0.05);
  EXPECT_NEAR(median_abs(fit.errors_after), std::exp(0.02 / std::sqrt(3.0)) - 1.0, 1e-3);
}

TEST(ValidationSuiteTest, CostFitNeedsTrainingRuns) {
  std::vector<KernelComparison> runs{comparison(sim::WorkloadKind::kShuffle, 1, 0.3)};
  EXPECT_THROW(fit_kernel_costs(one_node(), runs, {false}, toy_model), std::invalid_argument);
  EXPECT_THROW(fit_kernel_costs(one_node(), runs, {true, false}, toy_model), std::invalid_argument);
  EXPECT_THROW(fit_kernel_costs(one_node(), {}, {}, toy_model), std::invalid_argument);
}

TEST(ValidationSuiteTest, SuiteCoversEveryKernelAtOneAndTThreadsWithUniqueIds) {
  const model::Topology t = one_node();
  SuiteOptions options;
  options.threads = 2;
  options.scale = 1.0 / 16;
  const std::vector<sim::WorkloadSpec> suite = standard_suite(t, options);
  std::set<sim::WorkloadKind> kinds;
  std::set<std::string> ids;
  std::set<int> threads;
  for (const sim::WorkloadSpec& spec : suite) {
    kinds.insert(spec.kind);
    ids.insert(comparison_id(t, spec));
    threads.insert(spec.threads);
    EXPECT_NO_THROW(sim::check_workload(t, spec)) << comparison_id(t, spec);
  }
  EXPECT_EQ(ids.size(), suite.size()) << "ids must be unique";
  for (sim::WorkloadKind k : {sim::WorkloadKind::kShuffle, sim::WorkloadKind::kMigration, sim::WorkloadKind::kMigrationAndCopy,
                              sim::WorkloadKind::kPartitionedAggregation, sim::WorkloadKind::kCountAggregation,
                              sim::WorkloadKind::kMedianAggregation, sim::WorkloadKind::kHashJoin, sim::WorkloadKind::kIndexJoin,
                              sim::WorkloadKind::kSubarray})
    EXPECT_TRUE(kinds.count(k)) << sim::workload_kind_name(k);
  EXPECT_EQ(threads, (std::set<int>{1, 2}));
  // The OS default (unpinned, loader first touch) is in, for the advice check.
  bool os_default = false;
  for (const sim::WorkloadSpec& spec : suite)
    os_default = os_default || (spec.placement.kind == sim::PlacementKind::kNone && spec.memory.init == sim::InitThreads::kLoader);
  EXPECT_TRUE(os_default);
  // The radix join follows the hash join at 1 and T threads, on the same data, with its own id.
  std::set<int> radix_threads;
  for (std::size_t i = 0; i < suite.size(); ++i) {
    if (suite[i].join_algorithm != sim::JoinAlgorithm::kRadix) continue;
    radix_threads.insert(suite[i].threads);
    ASSERT_GT(i, 0u);
    const sim::WorkloadSpec& before = suite[i - 1];
    EXPECT_EQ(suite[i].kind, sim::WorkloadKind::kHashJoin);
    EXPECT_EQ(before.kind, sim::WorkloadKind::kHashJoin);
    EXPECT_EQ(before.join_algorithm, sim::JoinAlgorithm::kNonPartitioned);
    EXPECT_EQ(before.threads, suite[i].threads);
    EXPECT_EQ(before.data.records, suite[i].data.records);
    EXPECT_EQ(before.data.build_records, suite[i].data.build_records);
    EXPECT_NE(comparison_id(t, before), comparison_id(t, suite[i]));
  }
  EXPECT_EQ(radix_threads, (std::set<int>{1, 2}));
  // The designed shuffle order runs at 1 and T threads, each thread's order a permutation of the
  // producers and each step one piece per producer (a Latin square: check_schedule).
  std::set<int> designed_threads;
  for (const sim::WorkloadSpec& spec : suite) {
    if (spec.algorithm != sim::ShuffleAlgorithm::kScheduled) continue;
    designed_threads.insert(spec.threads);
    EXPECT_EQ(spec.kind, sim::WorkloadKind::kShuffle);
    sim::ShuffleSchedule schedule;
    schedule.steps.assign(static_cast<std::size_t>(spec.threads), std::vector<int>(static_cast<std::size_t>(spec.threads)));
    ASSERT_EQ(spec.producer_orders.size(), static_cast<std::size_t>(spec.threads));
    for (int c = 0; c < spec.threads; ++c) {
      for (int k = 0; k < spec.threads; ++k) schedule.steps[k][c] = spec.producer_orders[c][k];
    }
    EXPECT_NO_THROW(sim::check_schedule(schedule, spec.threads));
  }
  EXPECT_EQ(designed_threads, (std::set<int>{1, 2}));
  for (const sim::WorkloadSpec& spec : switch_subset(suite, 2))
    EXPECT_EQ(spec.join_algorithm, sim::JoinAlgorithm::kNonPartitioned) << comparison_id(t, spec);
}

TEST(ValidationSuiteTest, RadixJoinIdNamesItsAlgorithmAndTheNonPartitionedIdIsUnchanged) {
  sim::WorkloadSpec spec;
  spec.kind = sim::WorkloadKind::kHashJoin;
  spec.threads = 1;
  spec.placement.kind = sim::PlacementKind::kDense;
  spec.memory.kind = sim::MemoryPolicyKind::kFirstTouch;
  spec.data.keys = sim::parse_key_distribution("uniform", 2e6);
  EXPECT_EQ(comparison_id(one_node(), spec), "hash-join-uniform-2000000g-1t-dense-first-touch");
  spec.join_algorithm = sim::JoinAlgorithm::kRadix;
  EXPECT_EQ(comparison_id(one_node(), spec), "hash-join-radix-uniform-2000000g-1t-dense-first-touch");
}

TEST(ValidationSuiteTest, CrossValidationPredictsEachFoldWithCostsFittedWithoutIt) {
  // Runs: 0 shuffle 0.3 s, 1 COUNT 0.55 s, 2 COUNT 0.5 s; folds of 2: {0, 2} and {1}.
  // Fold 0 is predicted with costs fitted on run 1 alone: hash cycles 55, so run 2 is predicted
  // 0.55 s (+10 %), and the shuffle, which nothing in that training set constrains, keeps
  // cycles_per_element 1 (0.1 / 0.3 - 1). Fold 1 is fitted on runs 0 and 2: hash cycles 50, so
  // run 1 is predicted 0.5 s (0.5 / 0.55 - 1).
  const std::vector<KernelComparison> runs{comparison(sim::WorkloadKind::kShuffle, 1, 0.3),
                                           comparison(sim::WorkloadKind::kCountAggregation, 2, 0.55),
                                           comparison(sim::WorkloadKind::kCountAggregation, 1, 0.5)};
  const std::vector<double> cv = cross_validated_errors(one_node(), runs, 2, toy_model);
  ASSERT_EQ(cv.size(), 3u);
  EXPECT_NEAR(cv[0], 0.1 / 0.3 - 1.0, 1e-6);
  EXPECT_NEAR(cv[1], 0.5 / 0.55 - 1.0, 2e-3);
  EXPECT_NEAR(cv[2], 0.55 / 0.5 - 1.0, 2e-3);
  EXPECT_THROW(cross_validated_errors(one_node(), runs, 1, toy_model), std::invalid_argument);
}

TEST(ValidationSuiteTest, MedianAbsIsTheMiddleOfTheMagnitudes) {
  EXPECT_DOUBLE_EQ(median_abs({}), 0.0);
  EXPECT_DOUBLE_EQ(median_abs({-0.3, 0.1, 0.2}), 0.2);
  EXPECT_DOUBLE_EQ(median_abs({-0.4, 0.1, 0.2, -0.05}), 0.15);
}

TEST(ValidationReportTest, JsonHasTheGuisShapeAndCsvOneRowPerKernel) {
  ValidationReport report;
  report.machine = "this-machine";
  report.kernels = {comparison(sim::WorkloadKind::kShuffle, 1, 0.3), comparison(sim::WorkloadKind::kCountAggregation, 2, 0.5)};
  report.kernels[0].predicted.seconds = 0.25;
  report.cost_fit = fit_kernel_costs(one_node(), report.kernels, {true, false}, toy_model);
  report.cross_validated = {0.01, -0.02};
  const nlohmann::ordered_json j = to_json(one_node(), report);
  EXPECT_EQ(j["format"], "numatwin-validation-report");
  EXPECT_EQ(j["format_version"], 1);
  ASSERT_EQ(j["kernels"].size(), 2u);
  const auto& k0 = j["kernels"][0];
  for (const char* key : {"id", "workload", "algorithm", "sync", "threads", "predicted_gbps", "measured_gbps", "details"})
    EXPECT_TRUE(k0.contains(key)) << key;
  // 1e9 bytes shuffled: 0.3 s measured is 3.333 GB/s; 0.25 s predicted is 4 GB/s.
  EXPECT_NEAR(k0["measured_gbps"].get<double>(), 1e9 / 0.3 / 1e9, 1e-12);
  EXPECT_NEAR(k0["predicted_gbps"].get<double>(), 4.0, 1e-12);
  EXPECT_NEAR(k0["details"]["error"].get<double>(), 0.25 / 0.3 - 1.0, 1e-12);
  EXPECT_TRUE(k0["details"].contains("error_after_fit"));
  // The GUI's after-fit column: the rate predicted after the fit, from the time predicted after it.
  EXPECT_NEAR(k0["details"]["predicted_gbps_after_fit"].get<double>(),
              1.0 / (0.3 * (1.0 + report.cost_fit->errors_after[0])), 1e-9);
  EXPECT_FALSE(j["kernels"][1].contains("algorithm")) << "COUNT has no shuffle algorithm";
  EXPECT_DOUBLE_EQ(j["summary"]["median_abs_error_cross_validated"].get<double>(), 0.015);
  EXPECT_DOUBLE_EQ(j["kernels"][1]["details"]["error_cross_validated"].get<double>(), -0.02);
  EXPECT_EQ(j["cost_fit"]["training_runs"], 1);
  const std::string csv = to_csv(report);
  std::istringstream lines(csv);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, 3);
  EXPECT_EQ(csv.rfind("id,workload,", 0), 0u);
}

TEST(ValidationReportTest, CostMovesSayHowFarTheFitMovedEachMeasuredCost) {
  ValidationReport report;
  report.machine = "this-machine";
  report.kernels = {comparison(sim::WorkloadKind::kCountAggregation, 1, 0.5)};
  CostFit fit;
  fit.before.operators.hash_cycles_per_tuple = 2.0;
  fit.after.operators.hash_cycles_per_tuple = 3.0;
  fit.errors_before = {0.0};
  fit.errors_after = {0.0};
  report.cost_fit = fit;
  report.derived_costs = {DerivedCost{"hash_cycles_per_tuple", 2.0, 1.8, 2.2, "cycles", "by hand"}};
  report.before_costs_source = "the cost microbenchmarks (test)";
  const std::vector<CostMove> moves = cost_moves(report);
  ASSERT_EQ(moves.size(), cost_parameters().size());
  for (const CostMove& m : moves) {
    if (m.name == "hash_cycles_per_tuple") {
      EXPECT_TRUE(m.measured);
      EXPECT_DOUBLE_EQ(m.factor(), 1.5);  // 3 / 2
      EXPECT_DOUBLE_EQ(m.low, 1.8);
    } else {
      EXPECT_FALSE(m.measured) << m.name;  // not among the derived costs: a default
    }
  }
  const nlohmann::ordered_json j = to_json(one_node(), report);
  EXPECT_EQ(j["summary"]["costs_before_fit"], "the cost microbenchmarks (test)");
  EXPECT_EQ(j["cost_fit"]["before_source"], "the cost microbenchmarks (test)");
  bool found = false;
  for (const auto& m : j["cost_fit"]["moves"]) {
    if (m["name"] != "hash_cycles_per_tuple") continue;
    found = true;
    EXPECT_DOUBLE_EQ(m["factor"].get<double>(), 1.5);
    EXPECT_DOUBLE_EQ(m["measured_high"].get<double>(), 2.2);
  }
  EXPECT_TRUE(found);
}

TEST(ValidationReportTest, HashJoinsNameTheirJoinAlgorithm) {
  ValidationReport report;
  report.machine = "this-machine";
  report.kernels = {comparison(sim::WorkloadKind::kHashJoin, 1, 0.5), comparison(sim::WorkloadKind::kHashJoin, 1, 0.4)};
  report.kernels[1].spec.join_algorithm = sim::JoinAlgorithm::kRadix;
  const nlohmann::ordered_json j = to_json(one_node(), report);
  EXPECT_EQ(j["kernels"][0]["algorithm"], "non-partitioned");
  EXPECT_EQ(j["kernels"][1]["algorithm"], "radix");
  EXPECT_FALSE(j["kernels"][1].contains("sync"));
  const std::string csv = to_csv(report);
  EXPECT_NE(csv.find(",hash-join,non-partitioned,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",hash-join,radix,"), std::string::npos) << csv;
}

}  // namespace
}  // namespace numatwin::validate
