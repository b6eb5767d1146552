// MaxMinSolver: cases worked by hand, input validation, property tests on seeded random
// systems (capacity, bottleneck condition, max-min optimality), and an independent exact oracle.
#include "numatwin/model/maxmin_solver.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace numatwin::model {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kRelTol = 1e-12;  // hand-worked cases: exact up to a few ulps

void expect_near_rel(double actual, double expected, double rel, const std::string& what) {
  EXPECT_NEAR(actual, expected, rel * std::max(1.0, std::abs(expected))) << what;
}

// ── Hand-worked cases ───────────────────────────────────────────────────────────────────────

TEST(MaxMinSolverTest, TwoFlowsOnOneLinkShareEqually) {
  // One link of capacity 10, two flows. Level t: load 2t reaches 10 at t = 5; both freeze at 5.
  MaxMinProblem problem;
  const int link = problem.add_resource(10.0);
  problem.add_flow({{link, 1.0}});
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  ASSERT_EQ(solution.rates.size(), 2U);
  EXPECT_DOUBLE_EQ(solution.rates[0], 5.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 5.0);
  EXPECT_EQ(solution.bottlenecks[0], link);
  EXPECT_EQ(solution.bottlenecks[1], link);
  EXPECT_DOUBLE_EQ(solution.loads[0], 10.0);
  EXPECT_DOUBLE_EQ(solution.utilisations[0], 1.0);
  EXPECT_EQ(solution.saturated[0], 1);
}

TEST(MaxMinSolverTest, ParkingLotWithEqualLinksGivesEveryoneHalf) {
  // Links L0, L1, L2 of capacity 1. The long flow crosses all three; short flow s_i crosses L_i.
  // Each link carries 2 flows, so all three links fill at t = 1/2 together: every flow gets 1/2
  // (the long flow is not penalised for its length: plain max-min, unlike TCP-like models).
  MaxMinProblem problem;
  const int l0 = problem.add_resource(1.0);
  const int l1 = problem.add_resource(1.0);
  const int l2 = problem.add_resource(1.0);
  const int long_flow = problem.add_flow({{l0, 1.0}, {l1, 1.0}, {l2, 1.0}});
  problem.add_flow({{l0, 1.0}});
  problem.add_flow({{l1, 1.0}});
  problem.add_flow({{l2, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  for (int f = 0; f < 4; ++f) EXPECT_DOUBLE_EQ(solution.rates[f], 0.5) << "flow " << f;
  // Ties are broken by resource index: L0 pops first and freezes the long flow.
  EXPECT_EQ(solution.bottlenecks[long_flow], l0);
  for (int r = 0; r < 3; ++r) EXPECT_EQ(solution.saturated[r], 1);
}

TEST(MaxMinSolverTest, ParkingLotWithGrowingCapacities) {
  // Same shape, capacities (1, 2, 3). t_L0 = 1/2 < t_L1 = 1 < t_L2 = 3/2: L0 fills first and
  // freezes the long flow and s0 at 1/2. Then L1 has 2 - 1/2 = 3/2 left for s1 alone, and L2 has
  // 3 - 1/2 = 5/2 left for s2 alone.
  MaxMinProblem problem;
  const int l0 = problem.add_resource(1.0);
  const int l1 = problem.add_resource(2.0);
  const int l2 = problem.add_resource(3.0);
  problem.add_flow({{l0, 1.0}, {l1, 1.0}, {l2, 1.0}});
  problem.add_flow({{l0, 1.0}});
  problem.add_flow({{l1, 1.0}});
  problem.add_flow({{l2, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 0.5);
  EXPECT_DOUBLE_EQ(solution.rates[1], 0.5);
  EXPECT_DOUBLE_EQ(solution.rates[2], 1.5);
  EXPECT_DOUBLE_EQ(solution.rates[3], 2.5);
  EXPECT_EQ(solution.bottlenecks[0], l0);
  EXPECT_EQ(solution.bottlenecks[2], l1);
  EXPECT_EQ(solution.bottlenecks[3], l2);
}

TEST(MaxMinSolverTest, SecondBottleneckGetsWhatTheFirstLeaves) {
  // A (capacity 1) carries f0, f1; B (capacity 10) carries f1, f2.
  // t_A = 1/2, t_B = 10/2 = 5: A fills first, f0 = f1 = 1/2. B then has 10 - 1/2 = 9.5 for f2
  // alone, so f2 = 9.5 (not the 5 an equal split of B would give).
  MaxMinProblem problem;
  const int a = problem.add_resource(1.0);
  const int b = problem.add_resource(10.0);
  problem.add_flow({{a, 1.0}});
  problem.add_flow({{a, 1.0}, {b, 1.0}});
  problem.add_flow({{b, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 0.5);
  EXPECT_DOUBLE_EQ(solution.rates[1], 0.5);
  EXPECT_DOUBLE_EQ(solution.rates[2], 9.5);
  EXPECT_EQ(solution.bottlenecks[2], b);
  EXPECT_DOUBLE_EQ(solution.loads[b], 10.0);
}

TEST(MaxMinSolverTest, BoundedFlowLeavesCapacityToOthers) {
  // Link of capacity 10, three flows, f0 bounded at 1. Bound event at t = 1 comes before the
  // link's t = 10/3: f0 = 1. The link then has 9 left for 2 flows: t = 1 + (10 - 3)/2 = 4.5.
  MaxMinProblem problem;
  const int link = problem.add_resource(10.0);
  problem.add_flow({{link, 1.0}}, 1.0);
  problem.add_flow({{link, 1.0}});
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 1.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 4.5);
  EXPECT_DOUBLE_EQ(solution.rates[2], 4.5);
  EXPECT_EQ(solution.bottlenecks[0], MaxMinSolution::kRateBound);
  EXPECT_EQ(solution.bottlenecks[1], link);
}

TEST(MaxMinSolverTest, LooseBoundDoesNotBind) {
  // Link of capacity 10, two flows, f0 bounded at 7 > the fair share 5: both get 5.
  MaxMinProblem problem;
  const int link = problem.add_resource(10.0);
  problem.add_flow({{link, 1.0}}, 7.0);
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 5.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 5.0);
  EXPECT_EQ(solution.bottlenecks[0], link);
}

TEST(MaxMinSolverTest, CoefficientTwoCountsTwice) {
  // Link of capacity 6; f0 consumes 2x its rate (a write miss: line read + line write), f1 1x.
  // Both at level t: 2t + t = 6 -> t = 2. Rates are equal (fairness is on rates), load is 6.
  MaxMinProblem problem;
  const int link = problem.add_resource(6.0);
  problem.add_flow({{link, 2.0}});
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 2.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 2.0);
  EXPECT_DOUBLE_EQ(solution.loads[link], 6.0);
}

TEST(MaxMinSolverTest, RepeatedTermsAddUp) {
  // Same as CoefficientTwoCountsTwice with f0's coefficient 2 written as two terms of 1.
  MaxMinProblem problem;
  const int link = problem.add_resource(6.0);
  problem.add_flow({{link, 1.0}, {link, 1.0}});
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 2.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 2.0);
  EXPECT_DOUBLE_EQ(solution.loads[link], 6.0);
}

TEST(MaxMinSolverTest, ProbeFractionOnAnotherLink) {
  // f0 reads over link A (capacity 4) and its coherence probes put 1/4 of its rate on link B
  // (capacity 1). f1 uses B only. Events: t_A = 4/1 = 4, t_B = 1/(1/4 + 1) = 0.8.
  // B fills first: f0 = f1 = 0.8 (B's load 0.2 + 0.8 = 1). A keeps 3.2 unused: f0 is held back
  // by its probes, which is the point of modelling them.
  MaxMinProblem problem;
  const int a = problem.add_resource(4.0);
  const int b = problem.add_resource(1.0);
  problem.add_flow({{a, 1.0}, {b, 0.25}});
  problem.add_flow({{b, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 0.8);
  EXPECT_DOUBLE_EQ(solution.rates[1], 0.8);
  EXPECT_EQ(solution.bottlenecks[0], b);
  EXPECT_DOUBLE_EQ(solution.loads[a], 0.8);
  EXPECT_DOUBLE_EQ(solution.utilisations[a], 0.2);
  EXPECT_EQ(solution.saturated[a], 0);
  EXPECT_DOUBLE_EQ(solution.loads[b], 1.0);
}

TEST(MaxMinSolverTest, WeightsScaleTheShares) {
  // Link of capacity 9, weights 1 and 2: x = (t, 2t), 3t = 9 -> t = 3: rates 3 and 6.
  MaxMinProblem problem;
  const int link = problem.add_resource(9.0);
  problem.add_flow({{link, 1.0}}, MaxMinProblem::kUnbounded, 1.0);
  problem.add_flow({{link, 1.0}}, MaxMinProblem::kUnbounded, 2.0);
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 3.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 6.0);
}

TEST(MaxMinSolverTest, WeightedBoundUsesNormalisedLevel) {
  // Link of capacity 12; f0 weight 2 bounded at 2, f1 weight 1. f0's bound event is at
  // t = 2/2 = 1, before the link's t = 12/3 = 4: f0 = 2. Then f1 alone: 12 - 2 = 10.
  MaxMinProblem problem;
  const int link = problem.add_resource(12.0);
  problem.add_flow({{link, 1.0}}, 2.0, 2.0);
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 2.0);
  EXPECT_DOUBLE_EQ(solution.rates[1], 10.0);
  EXPECT_EQ(solution.bottlenecks[0], MaxMinSolution::kRateBound);
}

// ── Degenerate inputs ───────────────────────────────────────────────────────────────────────

TEST(MaxMinSolverTest, EmptyProblemGivesEmptySolution) {
  MaxMinProblem problem;
  MaxMinSolver solver;
  const MaxMinSolution& solution = solver.solve(problem);
  EXPECT_TRUE(solution.rates.empty());
  EXPECT_TRUE(solution.bottlenecks.empty());
  EXPECT_TRUE(solution.loads.empty());
}

TEST(MaxMinSolverTest, ResourcesWithoutFlowsAreIdle) {
  MaxMinProblem problem;
  problem.add_resource(3.0);
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_TRUE(solution.rates.empty());
  EXPECT_DOUBLE_EQ(solution.loads[0], 0.0);
  EXPECT_DOUBLE_EQ(solution.utilisations[0], 0.0);
  EXPECT_EQ(solution.saturated[0], 0);
}

TEST(MaxMinSolverTest, FlowWithoutResourcesIsUnboundedOrAtItsBound) {
  // No term and no bound: nothing limits the flow, reported as +infinity with kNoBottleneck.
  // No term but a bound: the bound. Neither affects the flow that shares the link.
  MaxMinProblem problem;
  const int link = problem.add_resource(2.0);
  problem.add_flow(std::span<const ResourceUse>{});
  problem.add_flow(std::span<const ResourceUse>{}, 3.0);
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_EQ(solution.rates[0], kInf);
  EXPECT_EQ(solution.bottlenecks[0], MaxMinSolution::kNoBottleneck);
  EXPECT_DOUBLE_EQ(solution.rates[1], 3.0);
  EXPECT_EQ(solution.bottlenecks[1], MaxMinSolution::kRateBound);
  EXPECT_DOUBLE_EQ(solution.rates[2], 2.0);
  EXPECT_DOUBLE_EQ(solution.loads[link], 2.0);
}

TEST(MaxMinSolverTest, ZeroCapacityResourceStopsItsFlowsOnly) {
  // R0 has capacity 0, R1 capacity 4. f0 crosses both: t_R0 = 0 freezes it at 0. f1 on R1 alone
  // then gets all of R1: 4.
  MaxMinProblem problem;
  const int dead = problem.add_resource(0.0);
  const int live = problem.add_resource(4.0);
  problem.add_flow({{dead, 1.0}, {live, 1.0}});
  problem.add_flow({{live, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_EQ(solution.rates[0], 0.0);
  EXPECT_EQ(solution.bottlenecks[0], dead);
  EXPECT_DOUBLE_EQ(solution.rates[1], 4.0);
  EXPECT_EQ(solution.saturated[dead], 1);
  EXPECT_DOUBLE_EQ(solution.utilisations[dead], 0.0);
}

TEST(MaxMinSolverTest, ZeroBoundGivesZeroRate) {
  MaxMinProblem problem;
  const int link = problem.add_resource(4.0);
  problem.add_flow({{link, 1.0}}, 0.0);
  problem.add_flow({{link, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_EQ(solution.rates[0], 0.0);
  EXPECT_EQ(solution.bottlenecks[0], MaxMinSolution::kRateBound);
  EXPECT_DOUBLE_EQ(solution.rates[1], 4.0);
}

TEST(MaxMinSolverTest, TiedResourcesSaturateTogether) {
  // Two disjoint links of capacity 2 with two flows each plus a flow over both: each link carries
  // 3 flows and fills at t = 2/3. Whichever link pops first freezes the shared flow; the other
  // then has 2 - 2/3 = 4/3 for its 2 remaining flows -> t = 2/3 again. All flows get 2/3.
  MaxMinProblem problem;
  const int a = problem.add_resource(2.0);
  const int b = problem.add_resource(2.0);
  problem.add_flow({{a, 1.0}, {b, 1.0}});
  problem.add_flow({{a, 1.0}});
  problem.add_flow({{a, 1.0}});
  problem.add_flow({{b, 1.0}});
  problem.add_flow({{b, 1.0}});
  const MaxMinSolution solution = solve_max_min(problem);
  for (int f = 0; f < 5; ++f) expect_near_rel(solution.rates[f], 2.0 / 3.0, kRelTol, "tie");
  EXPECT_EQ(solution.saturated[a], 1);
  EXPECT_EQ(solution.saturated[b], 1);
}

TEST(MaxMinSolverTest, ExtremeWeightsKeepSmallSlopesAccurate) {
  // Link of capacity 1e6 + 1 shared by a weight-1e6 flow bounded at 1e6 and a weight-1e-6 flow.
  // The bound event (t = 1) freezes the heavy flow at 1e6; S drops from 1e6 + 1e-6 to 1e-6, which
  // plain subtraction gets with ~1e-4 relative error; the solver sums S afresh instead.
  // Then the light flow alone takes 1e6 + 1 - 1e6 = 1.
  MaxMinProblem problem;
  const int link = problem.add_resource(1e6 + 1.0);
  problem.add_flow({{link, 1.0}}, 1e6, 1e6);
  problem.add_flow({{link, 1.0}}, MaxMinProblem::kUnbounded, 1e-6);
  const MaxMinSolution solution = solve_max_min(problem);
  EXPECT_DOUBLE_EQ(solution.rates[0], 1e6);
  expect_near_rel(solution.rates[1], 1.0, 1e-9, "light flow");
}

TEST(MaxMinSolverTest, SolverIsReusableAcrossProblems) {
  MaxMinProblem big;
  const int link = big.add_resource(10.0);
  for (int i = 0; i < 5; ++i) big.add_flow({{link, 1.0}});
  MaxMinProblem small;
  small.add_resource(1.0);
  small.add_flow({{0, 1.0}});

  MaxMinSolver solver;
  const std::vector<double> first = solver.solve(big).rates;
  EXPECT_EQ(solver.solve(small).rates, std::vector<double>{1.0});
  EXPECT_EQ(solver.solve(big).rates, first);
  EXPECT_EQ(solver.solution().rates, first);

  // clear_flows() keeps the resources; refilling gives the same answer as a fresh problem.
  big.clear_flows();
  EXPECT_EQ(big.resource_count(), 1);
  EXPECT_EQ(big.flow_count(), 0);
  big.add_flow({{link, 1.0}});
  EXPECT_EQ(solver.solve(big).rates, std::vector<double>{10.0});
  big.clear();
  EXPECT_EQ(big.resource_count(), 0);
  EXPECT_TRUE(solver.solve(big).rates.empty());
}

TEST(MaxMinSolverTest, SettersChangeTheProblem) {
  MaxMinProblem problem;
  const int link = problem.add_resource(10.0);
  const int f0 = problem.add_flow({{link, 1.0}});
  problem.add_flow({{link, 1.0}});
  problem.set_capacity(link, 4.0);
  problem.set_weight(f0, 3.0);  // 3t + t = 4 -> t = 1: rates 3, 1
  MaxMinSolver solver;
  EXPECT_EQ(solver.solve(problem).rates, (std::vector<double>{3.0, 1.0}));
  problem.set_rate_bound(f0, 2.0);  // f0 at 2, f1 gets the remaining 2
  EXPECT_EQ(solver.solve(problem).rates, (std::vector<double>{2.0, 2.0}));
  EXPECT_EQ(problem.rate_bound(f0), 2.0);
  EXPECT_EQ(problem.weight(f0), 3.0);
  EXPECT_EQ(problem.capacity(link), 4.0);
  ASSERT_EQ(problem.uses(f0).size(), 1U);
  EXPECT_EQ(problem.uses(f0)[0], (ResourceUse{link, 1.0}));
}

TEST(MaxMinSolverTest, AddFlowCanCopyAnExistingFlow) {
  // uses() returns a view into the problem; adding it back must not read freed memory when the
  // term storage grows. Two identical flows on a link of 8, plus the copy: 8/3 each.
  MaxMinProblem problem;
  const int link = problem.add_resource(8.0);
  const int first = problem.add_flow({{link, 1.0}});
  for (int i = 0; i < 2; ++i) problem.add_flow(problem.uses(first));
  ASSERT_EQ(problem.term_count(), 3);
  for (int f = 0; f < 3; ++f) EXPECT_EQ(problem.uses(f)[0], (ResourceUse{link, 1.0}));
  const MaxMinSolution solution = solve_max_min(problem);
  for (int f = 0; f < 3; ++f) expect_near_rel(solution.rates[f], 8.0 / 3.0, kRelTol, "copy");
}

// ── Validation ──────────────────────────────────────────────────────────────────────────────

// Runs `action`, expects std::invalid_argument whose message contains `needle`.
template <typename Action>
void expect_invalid(Action action, const std::string& needle) {
  try {
    action();
    ADD_FAILURE() << "no exception; expected one mentioning '" << needle << "'";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(needle), std::string::npos) << error.what();
  }
}

TEST(MaxMinSolverTest, RejectsBadCapacities) {
  MaxMinProblem problem;
  expect_invalid([&] { problem.add_resource(-1.0); }, "capacity must be finite and >= 0");
  expect_invalid([&] { problem.add_resource(kInf); }, "capacity");
  expect_invalid([&] { problem.add_resource(std::nan("")); }, "capacity");
  EXPECT_EQ(problem.resource_count(), 0);
  problem.add_resource(1.0);
  expect_invalid([&] { problem.set_capacity(0, -2.0); }, "resource 0");
  expect_invalid([&] { problem.set_capacity(1, 2.0); }, "resource index 1 out of range [0, 1)");
  expect_invalid([&] { (void)problem.capacity(-1); }, "out of range");
}

TEST(MaxMinSolverTest, RejectsBadFlows) {
  MaxMinProblem problem;
  problem.add_resource(1.0);
  problem.add_resource(1.0);
  expect_invalid(
      [&] {
        problem.add_flow({{0, 1.0}, {2, 1.0}});
      },
      "flow 0, term 1: resource index 2 out of range [0, 2)");
  expect_invalid([&] { problem.add_flow({{-1, 1.0}}); }, "resource index -1");
  expect_invalid([&] { problem.add_flow({{1, 0.0}}); }, "coefficient must be finite and > 0");
  expect_invalid([&] { problem.add_flow({{1, -0.5}}); }, "coefficient");
  expect_invalid([&] { problem.add_flow({{1, kInf}}); }, "coefficient");
  expect_invalid([&] { problem.add_flow({{0, 1.0}}, -1.0); }, "rate bound must be >= 0");
  expect_invalid([&] { problem.add_flow({{0, 1.0}}, std::nan("")); }, "rate bound");
  expect_invalid([&] { problem.add_flow({{0, 1.0}}, 1.0, 0.0); }, "weight must be finite and > 0");
  expect_invalid([&] { problem.add_flow({{0, 1.0}}, 1.0, kInf); }, "weight");
  // Rejected flows leave no trace.
  EXPECT_EQ(problem.flow_count(), 0);
  EXPECT_EQ(problem.term_count(), 0);
  problem.add_flow({{0, 1.0}});
  expect_invalid([&] { problem.set_rate_bound(1, 1.0); }, "flow index 1 out of range [0, 1)");
  expect_invalid([&] { problem.set_rate_bound(0, -3.0); }, "flow 0");
  expect_invalid([&] { problem.set_weight(0, -3.0); }, "weight");
  expect_invalid([&] { (void)problem.uses(5); }, "out of range");
}

// ── Property tests on random systems ───────────────────────────────────────────────────────

struct RandomSystemShape {
  int resources;
  int flows;
  int max_terms;
  bool coefficients;  // random coefficients (else all 1)
  bool weights;       // random weights (else all 1)
  double bound_probability;
  double zero_capacity_probability;
};

MaxMinProblem random_problem(std::mt19937_64& rng, const RandomSystemShape& shape) {
  std::uniform_real_distribution<double> capacity(0.5, 20.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> resource(0, shape.resources - 1);
  std::uniform_int_distribution<int> terms(1, shape.max_terms);
  std::uniform_real_distribution<double> coefficient(0.05, 3.0);
  std::uniform_real_distribution<double> weight(0.25, 4.0);
  std::uniform_real_distribution<double> bound(0.01, 5.0);
  MaxMinProblem problem;
  for (int r = 0; r < shape.resources; ++r) {
    problem.add_resource(unit(rng) < shape.zero_capacity_probability ? 0.0 : capacity(rng));
  }
  std::vector<ResourceUse> uses;
  for (int f = 0; f < shape.flows; ++f) {
    uses.clear();
    const int count = terms(rng);
    for (int k = 0; k < count; ++k) {
      uses.push_back({resource(rng), shape.coefficients ? coefficient(rng) : 1.0});
    }
    const double b = unit(rng) < shape.bound_probability ? bound(rng) : MaxMinProblem::kUnbounded;
    problem.add_flow(uses, b, shape.weights ? weight(rng) : 1.0);
  }
  return problem;
}

// Checks feasibility and the bottleneck characterisation of the header, from the problem and the
// rates alone (the solver's loads and bottlenecks are checked against it, not trusted).
void check_max_min_properties(const MaxMinProblem& problem, const MaxMinSolution& solution,
                              const std::string& label) {
  constexpr double kTol = 1e-9;
  const int resources = problem.resource_count();
  const int flows = problem.flow_count();
  ASSERT_EQ(static_cast<int>(solution.rates.size()), flows) << label;
  ASSERT_EQ(static_cast<int>(solution.loads.size()), resources) << label;

  // Loads and largest normalised rate per resource, recomputed here.
  std::vector<double> load(resources, 0.0);
  std::vector<double> scale(resources, 0.0);  // sum of |terms| to judge rounding
  std::vector<double> max_level(resources, 0.0);
  for (int f = 0; f < flows; ++f) {
    const double x = solution.rates[f];
    ASSERT_TRUE(x >= 0.0) << label << " flow " << f << " rate " << x;
    ASSERT_LE(x, problem.rate_bound(f) * (1 + kTol)) << label << " flow " << f;
    if (problem.uses(f).empty()) continue;
    ASSERT_TRUE(std::isfinite(x)) << label << " flow " << f;
    for (const ResourceUse& use : problem.uses(f)) {
      load[use.resource] += use.coefficient * x;
      max_level[use.resource] = std::max(max_level[use.resource], x / problem.weight(f));
    }
  }
  for (int r = 0; r < resources; ++r) {
    // (1) no capacity exceeded.
    EXPECT_LE(load[r], problem.capacity(r) * (1 + kTol) + 1e-300) << label << " resource " << r;
    EXPECT_NEAR(solution.loads[r], load[r], kTol * std::max(1.0, load[r])) << label;
    scale[r] = std::max(problem.capacity(r), load[r]);
  }
  auto saturated = [&](int r) { return load[r] >= problem.capacity(r) * (1 - kTol); };
  auto is_bottleneck_for = [&](int r, int f) {
    return saturated(r) && solution.rates[f] / problem.weight(f) >= max_level[r] * (1 - kTol);
  };

  for (int f = 0; f < flows; ++f) {
    const double x = solution.rates[f];
    const double b = problem.rate_bound(f);
    const bool at_bound = std::abs(x - b) <= kTol * std::max(1.0, b);
    bool has_bottleneck = false;
    for (const ResourceUse& use : problem.uses(f))
      has_bottleneck |= is_bottleneck_for(use.resource, f);
    if (problem.uses(f).empty() && std::isinf(b)) {
      EXPECT_EQ(x, kInf) << label << " flow " << f;
      EXPECT_EQ(solution.bottlenecks[f], MaxMinSolution::kNoBottleneck) << label;
      continue;
    }
    // (2) every flow is at its bound or has a saturated resource where it is (one of) the largest.
    EXPECT_TRUE(at_bound || has_bottleneck) << label << " flow " << f << " rate " << x;
    // (3) the bottleneck the solver reports satisfies that very condition.
    const int reported = solution.bottlenecks[f];
    if (reported == MaxMinSolution::kRateBound) {
      EXPECT_TRUE(at_bound) << label << " flow " << f;
    } else {
      ASSERT_GE(reported, 0) << label << " flow " << f;
      const auto uses = problem.uses(f);
      EXPECT_TRUE(std::any_of(uses.begin(), uses.end(),
                              [&](const ResourceUse& u) { return u.resource == reported; }))
          << label << " flow " << f;
      EXPECT_TRUE(is_bottleneck_for(reported, f)) << label << " flow " << f << " at " << reported;
      EXPECT_EQ(solution.saturated[reported], 1) << label;
    }
  }
}

TEST(MaxMinSolverTest, RandomSystemsSatisfyTheBottleneckCharacterisation) {
  const RandomSystemShape shapes[] = {
      {1, 3, 1, false, false, 0.0, 0.0},    {4, 10, 3, false, false, 0.3, 0.0},
      {10, 50, 4, true, false, 0.3, 0.1},   {30, 200, 5, true, true, 0.3, 0.05},
      {100, 1000, 6, true, true, 0.2, 0.0}, {5, 400, 3, false, true, 0.5, 0.0},
      {300, 100, 2, true, true, 0.0, 0.0},
  };
  MaxMinSolver solver;  // one solver for every system: buffer reuse is part of what is tested
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    for (const RandomSystemShape& shape : shapes) {
      std::mt19937_64 rng(seed * 7919 + static_cast<std::uint64_t>(shape.flows));
      const MaxMinProblem problem = random_problem(rng, shape);
      const std::string label = "seed " + std::to_string(seed) +
                                " R=" + std::to_string(shape.resources) +
                                " F=" + std::to_string(shape.flows);
      check_max_min_properties(problem, solver.solve(problem), label);
      if (testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(MaxMinSolverTest, RaisingAnyFlowWouldLowerAPoorerOne) {
  // Max-min optimality by construction, not by the characterisation: for every flow f below its
  // bound, raise it by delta and try to make room by lowering only richer flows (x_g/w_g larger
  // than f's, which the definition allows) on the resources where f now overflows. The result
  // must stay infeasible: raising f has to cost some flow that is not richer than f.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    std::mt19937_64 rng(seed);
    const MaxMinProblem problem = random_problem(rng, {20, 120, 4, true, true, 0.3, 0.0});
    const MaxMinSolution solution = solve_max_min(problem);
    const int flows = problem.flow_count();
    auto level = [&](const std::vector<double>& y, int g) { return y[g] / problem.weight(g); };
    auto loads_of = [&](const std::vector<double>& y) {
      std::vector<double> load(problem.resource_count(), 0.0);
      for (int g = 0; g < flows; ++g) {
        for (const ResourceUse& u : problem.uses(g)) load[u.resource] += u.coefficient * y[g];
      }
      return load;
    };
    for (int f = 0; f < flows; ++f) {
      const double x = solution.rates[f];
      if (x >= problem.rate_bound(f) * (1 - 1e-12)) continue;
      std::vector<double> y = solution.rates;
      y[f] += 1e-6 * std::max(1.0, x);
      const std::vector<double> load = loads_of(y);
      for (const ResourceUse& use : problem.uses(f)) {
        const int r = use.resource;
        const double overflow = load[r] - problem.capacity(r);
        if (overflow <= 0) continue;
        // Richer flows on r give up the overflow in proportion to their load on r, but never
        // more than keeps them richer than f.
        double richer_load = 0.0;
        for (int g = 0; g < flows; ++g) {
          if (g == f || level(solution.rates, g) <= level(y, f) * (1 + 1e-9)) continue;
          for (const ResourceUse& u : problem.uses(g)) {
            if (u.resource == r) richer_load += u.coefficient * y[g];
          }
        }
        if (richer_load <= 0) continue;
        const double keep = std::max(0.0, 1.0 - overflow / richer_load);
        for (int g = 0; g < flows; ++g) {
          if (g == f || level(solution.rates, g) <= level(y, f) * (1 + 1e-9)) continue;
          const auto uses = problem.uses(g);
          if (std::any_of(uses.begin(), uses.end(),
                          [&](const ResourceUse& u) { return u.resource == r; })) {
            y[g] = std::max(y[g] * keep, problem.weight(g) * level(y, f) * (1 + 1e-9));
          }
        }
      }
      const std::vector<double> repaired = loads_of(y);
      bool feasible = true;
      for (int r = 0; r < problem.resource_count(); ++r) {
        feasible &= repaired[r] <= problem.capacity(r) * (1 + 1e-12);
      }
      EXPECT_FALSE(feasible) << "seed " << seed << ": flow " << f
                             << " could be raised at the expense of richer flows only";
    }
  }
}

// ── Independent oracle: exact rational water-filling ────────────────────────────────────────
//
// Why independent: it shares no code and no numerics with the solver. It works in exact rational
// arithmetic (so ties are detected exactly, not by rounding order), keeps no incremental state
// (every round recomputes every resource's remaining capacity and demand from the set of fixed
// flows), has no heap, no versions, no transposed incidence, and freezes all tied events of a
// round at once instead of one resource at a time. Cost O(rounds * terms): fine for small systems.

__extension__ using Int128 = __int128;

Int128 gcd128(Int128 a, Int128 b) {
  if (a < 0) a = -a;
  if (b < 0) b = -b;
  while (b != 0) {
    const Int128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

struct Rational {
  Int128 num = 0;
  Int128 den = 1;

  static Rational make(Int128 n, Int128 d) {
    if (d < 0) {
      n = -n;
      d = -d;
    }
    const Int128 g = gcd128(n, d);
    return g > 1 ? Rational{n / g, d / g} : Rational{n, d};
  }
  static Int128 mul(Int128 a, Int128 b) {
    Int128 out = 0;
    if (__builtin_mul_overflow(a, b, &out)) throw std::overflow_error("oracle overflow");
    return out;
  }
  static Int128 add(Int128 a, Int128 b) {
    Int128 out = 0;
    if (__builtin_add_overflow(a, b, &out)) throw std::overflow_error("oracle overflow");
    return out;
  }
  friend Rational operator+(Rational a, Rational b) {
    return make(add(mul(a.num, b.den), mul(b.num, a.den)), mul(a.den, b.den));
  }
  friend Rational operator-(Rational a, Rational b) { return a + Rational{-b.num, b.den}; }
  friend Rational operator*(Rational a, Rational b) {
    return make(mul(a.num, b.num), mul(a.den, b.den));
  }
  friend Rational operator/(Rational a, Rational b) {
    return make(mul(a.num, b.den), mul(a.den, b.num));
  }
  friend bool operator<(Rational a, Rational b) { return mul(a.num, b.den) < mul(b.num, a.den); }
  friend bool operator==(Rational a, Rational b) { return a.num == b.num && a.den == b.den; }
  [[nodiscard]] double to_double() const {
    return static_cast<double>(num) / static_cast<double>(den);
  }
};

struct ExactTerm {
  int resource;
  Rational coefficient;
};
struct ExactFlow {
  std::vector<ExactTerm> terms;
  bool bounded = false;
  Rational bound;
  Rational weight{1, 1};
};
struct ExactSystem {
  std::vector<Rational> capacities;
  std::vector<ExactFlow> flows;
};

// Returns the max-min rates; unbounded flows without terms are reported as +infinity.
std::vector<double> exact_max_min(const ExactSystem& system) {
  const std::size_t n = system.flows.size();
  std::vector<bool> fixed(n, false);
  std::vector<Rational> rate(n);
  std::vector<double> out(n, 0.0);
  for (std::size_t f = 0; f < n; ++f) {
    if (system.flows[f].terms.empty() && !system.flows[f].bounded) {
      fixed[f] = true;
      out[f] = kInf;
    }
  }
  while (std::find(fixed.begin(), fixed.end(), false) != fixed.end()) {
    // Every candidate level of this round, from scratch.
    std::vector<bool> has_level(system.capacities.size(), false);
    std::vector<Rational> resource_level(system.capacities.size());
    for (std::size_t r = 0; r < system.capacities.size(); ++r) {
      Rational remaining = system.capacities[r];
      Rational demand;
      for (std::size_t f = 0; f < n; ++f) {
        for (const ExactTerm& term : system.flows[f].terms) {
          if (term.resource != static_cast<int>(r)) continue;
          if (fixed[f]) {
            remaining = remaining - term.coefficient * rate[f];
          } else {
            demand = demand + term.coefficient * system.flows[f].weight;
          }
        }
      }
      if (demand.num > 0) {
        has_level[r] = true;
        resource_level[r] = remaining / demand;
      }
    }
    bool any = false;
    Rational level;
    auto consider = [&](Rational candidate) {
      if (!any || candidate < level) level = candidate;
      any = true;
    };
    for (std::size_t r = 0; r < system.capacities.size(); ++r) {
      if (has_level[r]) consider(resource_level[r]);
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (!fixed[f] && system.flows[f].bounded)
        consider(system.flows[f].bound / system.flows[f].weight);
    }
    // Fix every flow whose bound or one of whose resources is reached at exactly this level.
    std::vector<bool> fix_now(n, false);
    for (std::size_t f = 0; f < n; ++f) {
      if (fixed[f]) continue;
      const ExactFlow& flow = system.flows[f];
      if (flow.bounded && flow.bound / flow.weight == level) fix_now[f] = true;
      for (const ExactTerm& term : flow.terms) {
        if (has_level[term.resource] && resource_level[term.resource] == level) fix_now[f] = true;
      }
    }
    for (std::size_t f = 0; f < n; ++f) {
      if (!fix_now[f]) continue;
      fixed[f] = true;
      rate[f] = system.flows[f].weight * level;
      out[f] = rate[f].to_double();
    }
  }
  return out;
}

TEST(MaxMinSolverTest, AgreesWithExactRationalOracle) {
  // Small systems with rational data that doubles represent exactly (halves and integers), so
  // both sides see the same problem; zero capacities, bounds, weights, coefficients, repeated
  // terms and term-less flows included. Many exact ties arise by construction.
  const int kHalfCoefficients[] = {1, 2, 2, 2, 3, 4, 6};  // coefficient = value / 2
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> resources_dist(1, 5);
    std::uniform_int_distribution<int> flows_dist(1, 8);
    std::uniform_int_distribution<int> capacity_dist(0, 12);
    std::uniform_int_distribution<int> terms_dist(0, 3);
    std::uniform_int_distribution<int> coefficient_dist(0, 6);
    std::uniform_int_distribution<int> weight_dist(1, 3);
    std::uniform_int_distribution<int> bound_dist(0, 16);  // bound = value / 2
    std::uniform_int_distribution<int> coin(0, 2);
    const int resources = resources_dist(rng);
    const int flows = flows_dist(rng);
    std::uniform_int_distribution<int> resource_dist(0, resources - 1);

    ExactSystem exact;
    MaxMinProblem problem;
    for (int r = 0; r < resources; ++r) {
      const int c = capacity_dist(rng) == 0 ? 0 : capacity_dist(rng) + 1;
      exact.capacities.push_back({c, 1});
      problem.add_resource(c);
    }
    for (int f = 0; f < flows; ++f) {
      ExactFlow flow;
      std::vector<ResourceUse> uses;
      const int terms = terms_dist(rng) + (coin(rng) == 0 ? 0 : 1);
      for (int k = 0; k < terms; ++k) {
        const int r = resource_dist(rng);
        const int half = kHalfCoefficients[coefficient_dist(rng)];
        flow.terms.push_back({r, Rational::make(half, 2)});
        uses.push_back({r, half / 2.0});
      }
      const int w = weight_dist(rng);
      flow.weight = {w, 1};
      double bound = MaxMinProblem::kUnbounded;
      if (coin(rng) == 0) {
        const int half = bound_dist(rng);
        flow.bounded = true;
        flow.bound = Rational::make(half, 2);
        bound = half / 2.0;
      }
      exact.flows.push_back(flow);
      problem.add_flow(uses, bound, w);
    }
    const std::vector<double> expected = exact_max_min(exact);
    const MaxMinSolution solution = solve_max_min(problem);
    for (int f = 0; f < flows; ++f) {
      if (std::isinf(expected[f])) {
        EXPECT_EQ(solution.rates[f], kInf) << "seed " << seed << " flow " << f;
      } else {
        EXPECT_NEAR(solution.rates[f], expected[f], 1e-9 * std::max(1.0, expected[f]))
            << "seed " << seed << " flow " << f;
      }
    }
    check_max_min_properties(problem, solution, "oracle seed " + std::to_string(seed));
    ++compared;
  }
  EXPECT_EQ(compared, 400);
}

TEST(MaxMinSolverTest, OracleReproducesTheHandWorkedCases) {
  // The oracle itself, on two cases derived by hand above (parking lot (1,2,3); probe 1/4).
  ExactSystem parking;
  parking.capacities = {{1, 1}, {2, 1}, {3, 1}};
  parking.flows.push_back({{{0, {1, 1}}, {1, {1, 1}}, {2, {1, 1}}}, false, {}, {1, 1}});
  for (int r = 0; r < 3; ++r) parking.flows.push_back({{{r, {1, 1}}}, false, {}, {1, 1}});
  EXPECT_EQ(exact_max_min(parking), (std::vector<double>{0.5, 0.5, 1.5, 2.5}));

  ExactSystem probe;
  probe.capacities = {{4, 1}, {1, 1}};
  probe.flows.push_back({{{0, {1, 1}}, {1, {1, 4}}}, false, {}, {1, 1}});
  probe.flows.push_back({{{1, {1, 1}}}, false, {}, {1, 1}});
  EXPECT_EQ(exact_max_min(probe), (std::vector<double>{0.8, 0.8}));
}

TEST(MaxMinSolverTest, LargeSystemSolvesAndSatisfiesProperties) {
  // 1e5 flows over 1000 resources, 2..6 terms each: the size the simulator meets on big machines.
  std::mt19937_64 rng(99);
  const MaxMinProblem problem = random_problem(rng, {1000, 100000, 6, true, true, 0.2, 0.0});
  MaxMinSolver solver;
  check_max_min_properties(problem, solver.solve(problem), "large");
}

}  // namespace
}  // namespace numatwin::model
