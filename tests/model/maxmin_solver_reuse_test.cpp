// A MaxMinSolver reused across problems keeps its transposed incidence while the flows stay the
// same (maxmin_solver.hpp: prepared_terms_); these tests hold it to a fresh solver's answers.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "numatwin/model/maxmin_solver.hpp"

namespace numatwin::model {
namespace {

TEST(MaxMinSolverReuseTest, NewRateBoundsOnTheSameFlowsGiveAFreshSolversSolutionBitForBit) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> capacity(1.0, 100.0);
  std::uniform_real_distribution<double> coefficient(0.1, 3.0);
  std::uniform_real_distribution<double> bound(0.5, 60.0);
  std::uniform_int_distribution<int> pick(0, 7);
  MaxMinProblem problem;
  for (int r = 0; r < 8; ++r) problem.add_resource(capacity(rng));
  for (int f = 0; f < 20; ++f) {
    std::vector<ResourceUse> uses;
    for (int k = 0; k < 3; ++k) uses.push_back(ResourceUse{pick(rng), coefficient(rng)});
    problem.add_flow(uses, MaxMinProblem::kUnbounded, 1.0 + f % 3);
  }
  MaxMinSolver reused;
  std::vector<std::vector<double>> bound_sets;
  for (int round = 0; round < 6; ++round) {
    std::vector<double> bounds;
    for (int f = 0; f < problem.flow_count(); ++f) bounds.push_back(round == 0 ? MaxMinProblem::kUnbounded : bound(rng));
    bound_sets.push_back(bounds);
  }
  bound_sets.push_back(bound_sets[1]);  // back to an earlier set
  for (const std::vector<double>& bounds : bound_sets) {
    for (int f = 0; f < problem.flow_count(); ++f) problem.set_rate_bound(f, bounds[static_cast<std::size_t>(f)]);
    const MaxMinSolution fresh = solve_max_min(problem);
    const MaxMinSolution& again = reused.solve(problem);
    EXPECT_EQ(again.rates, fresh.rates);  // bitwise
    EXPECT_EQ(again.bottlenecks, fresh.bottlenecks);
    EXPECT_EQ(again.loads, fresh.loads);
    EXPECT_EQ(again.utilisations, fresh.utilisations);
  }
}

TEST(MaxMinSolverReuseTest, ChangedFlowsAreTransposedAgain) {
  // One link of 10: two flows with coefficient 1 get 5 each. Then flow 0 uses the link three
  // times over: equal rates x with 3x + x = 10, x = 2.5 (a stale incidence would still say 5).
  MaxMinSolver solver;
  MaxMinProblem problem;
  problem.add_resource(10.0);
  problem.add_flow({ResourceUse{0, 1.0}});
  problem.add_flow({ResourceUse{0, 1.0}});
  EXPECT_EQ(solver.solve(problem).rates, (std::vector<double>{5.0, 5.0}));
  problem.clear_flows();
  problem.add_flow({ResourceUse{0, 3.0}});
  problem.add_flow({ResourceUse{0, 1.0}});
  EXPECT_EQ(solver.solve(problem).rates, (std::vector<double>{2.5, 2.5}));
  // Weights 1 and 3 on the link of 10: rates w x with x + 3x = 10, x = 2.5: 2.5 and 7.5.
  problem.clear_flows();
  problem.add_flow({ResourceUse{0, 1.0}}, MaxMinProblem::kUnbounded, 1.0);
  problem.add_flow({ResourceUse{0, 1.0}}, MaxMinProblem::kUnbounded, 3.0);
  problem.add_resource(1.0);  // an unused resource: the count changes too
  EXPECT_EQ(solver.solve(MaxMinProblem(problem)).rates, (std::vector<double>{2.5, 7.5}));
  problem.set_weight(1, 1.0);  // the same terms, a new weight: 5 and 5
  EXPECT_EQ(solver.solve(problem).rates, (std::vector<double>{5.0, 5.0}));
  // A third flow on the link: 10 / 3 each.
  problem.add_flow({ResourceUse{0, 1.0}});
  const std::vector<double> thirds = solver.solve(problem).rates;
  ASSERT_EQ(thirds.size(), 3U);
  for (double rate : thirds) EXPECT_DOUBLE_EQ(rate, 10.0 / 3.0);
}


TEST(MaxMinSolverReuseTest, WhatTheCallerSaysOfTheFlowsChangesNoBit) {
  // The bandwidth model's pattern: new flows (kNew), then rounds with new rate bounds only
  // (kSameAsLast); every answer equals a fresh solver's bit for bit. A kCompare after kNew
  // transposes again (no copy was kept), and kSameAsLast on other counts transposes too.
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<double> capacity(1.0, 100.0);
  std::uniform_real_distribution<double> coefficient(0.1, 3.0);
  std::uniform_real_distribution<double> bound(0.5, 60.0);
  std::uniform_int_distribution<int> pick(0, 9);
  MaxMinProblem problem;
  for (int r = 0; r < 10; ++r) problem.add_resource(capacity(rng));
  MaxMinSolver solver;
  const auto expect_fresh = [&](MaxMinFlows flows) {
    const MaxMinSolution fresh = solve_max_min(problem);
    const MaxMinSolution& got = solver.solve(problem, flows);
    EXPECT_EQ(got.rates, fresh.rates);  // bitwise
    EXPECT_EQ(got.bottlenecks, fresh.bottlenecks);
    EXPECT_EQ(got.loads, fresh.loads);
    EXPECT_EQ(got.utilisations, fresh.utilisations);
  };
  for (int event = 0; event < 5; ++event) {
    problem.clear_flows();
    for (int f = 0; f < 12 + event; ++f) {
      std::vector<ResourceUse> uses;
      for (int k = 0; k < 4; ++k) uses.push_back(ResourceUse{pick(rng), coefficient(rng)});
      problem.add_flow(uses, MaxMinProblem::kUnbounded, 1.0 + f % 4);
    }
    expect_fresh(MaxMinFlows::kNew);
    for (int round = 0; round < 3; ++round) {
      for (int f = 0; f < problem.flow_count(); ++f) problem.set_rate_bound(f, bound(rng));
      expect_fresh(MaxMinFlows::kSameAsLast);
    }
    expect_fresh(MaxMinFlows::kCompare);
  }
  // kSameAsLast with a flow more than last time: the counts differ, so it is transposed again.
  problem.add_flow({ResourceUse{0, 1.0}});
  expect_fresh(MaxMinFlows::kSameAsLast);
}

}  // namespace
}  // namespace numatwin::model
