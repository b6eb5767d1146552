// Differential tests: numatwin's MaxMinSolver against SimGrid 3.32's lmm max-min solver on the
// same systems (SimGrid driven through s4u, one forked engine per system; simgrid_max_min.hpp).
// First the hand-worked cases, which show that the configuration really is plain max-min (and a
// negative control with SimGrid's default model, which is not); then seeded random systems.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "numatwin/model/maxmin_solver.hpp"
#include "simgrid_max_min.hpp"

namespace numatwin::simgrid_diff {
namespace {

using model::MaxMinProblem;
using model::MaxMinSolver;
using model::ResourceUse;

constexpr double kAgreement = 1e-6;  // relative

void print_rates(const std::string& name, const std::vector<double>& rates) {
  std::cout << "  SimGrid rates, " << name << ":";
  for (const double rate : rates) std::cout << ' ' << rate;
  std::cout << '\n';
}

void expect_rates(const std::vector<double>& actual, const std::vector<double>& expected,
                  double rel, const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t f = 0; f < expected.size(); ++f) {
    EXPECT_NEAR(actual[f], expected[f], rel * std::max(1.0, std::abs(expected[f])))
        << what << ", flow " << f;
  }
}

// ── Hand-worked cases (derivations in tests/model/maxmin_solver_test.cpp) ───────────────────

MaxMinProblem two_flows_one_link() {
  MaxMinProblem problem;  // capacity 10, two flows: 5 and 5
  problem.add_resource(10.0);
  problem.add_flow({{0, 1.0}});
  problem.add_flow({{0, 1.0}});
  return problem;
}

MaxMinProblem parking_lot(double c0, double c1, double c2) {
  MaxMinProblem problem;  // long flow over L0, L1, L2; one short flow per link
  problem.add_resource(c0);
  problem.add_resource(c1);
  problem.add_resource(c2);
  problem.add_flow({{0, 1.0}, {1, 1.0}, {2, 1.0}});
  problem.add_flow({{0, 1.0}});
  problem.add_flow({{1, 1.0}});
  problem.add_flow({{2, 1.0}});
  return problem;
}

TEST(SimGridDiffTest, ConfigurationIsPlainMaxMinOnHandWorkedCases) {
  std::cout << "  SimGrid arguments:";
  for (const std::string& argument : plain_max_min_arguments()) std::cout << ' ' << argument;
  std::cout << '\n';

  std::vector<double> rates = simgrid_max_min_rates(two_flows_one_link());
  print_rates("two flows on one link (expect 5 5)", rates);
  expect_rates(rates, {5.0, 5.0}, 1e-9, "two flows");

  // Equal parking lot: max-min gives the long flow 1/2 like the short ones. A model with a
  // per-hop penalty (weight-S > 0, or latency-driven TCP-gamma) would give it less.
  rates = simgrid_max_min_rates(parking_lot(1.0, 1.0, 1.0));
  print_rates("parking lot 1,1,1 (expect 0.5 x4)", rates);
  expect_rates(rates, {0.5, 0.5, 0.5, 0.5}, 1e-9, "parking lot");

  rates = simgrid_max_min_rates(parking_lot(1.0, 2.0, 3.0));
  print_rates("parking lot 1,2,3 (expect 0.5 0.5 1.5 2.5)", rates);
  expect_rates(rates, {0.5, 0.5, 1.5, 2.5}, 1e-9, "parking lot 1,2,3");

  MaxMinProblem second;  // A = 1 carries f0, f1; B = 10 carries f1, f2: 0.5, 0.5, 9.5
  second.add_resource(1.0);
  second.add_resource(10.0);
  second.add_flow({{0, 1.0}});
  second.add_flow({{0, 1.0}, {1, 1.0}});
  second.add_flow({{1, 1.0}});
  rates = simgrid_max_min_rates(second);
  print_rates("second bottleneck (expect 0.5 0.5 9.5)", rates);
  expect_rates(rates, {0.5, 0.5, 9.5}, 1e-9, "second bottleneck");

  MaxMinProblem bounded;  // capacity 10, f0 bounded at 1: 1, 4.5, 4.5
  bounded.add_resource(10.0);
  bounded.add_flow({{0, 1.0}}, 1.0);
  bounded.add_flow({{0, 1.0}});
  bounded.add_flow({{0, 1.0}});
  rates = simgrid_max_min_rates(bounded);
  print_rates("bounded flow (expect 1 4.5 4.5)", rates);
  expect_rates(rates, {1.0, 4.5, 4.5}, 1e-9, "bounded");

  // Integer coefficient: capacity 6, f0 consumes 2x (its route lists the link twice): 2 and 2.
  MaxMinProblem doubled;
  doubled.add_resource(6.0);
  doubled.add_flow({{0, 2.0}});
  doubled.add_flow({{0, 1.0}});
  rates = simgrid_max_min_rates(doubled);
  print_rates("coefficient 2 as a repeated link (expect 2 2)", rates);
  expect_rates(rates, {2.0, 2.0}, 1e-9, "coefficient 2");
}

TEST(SimGridDiffTest, DefaultModelIsNotPlainMaxMin) {
  // Negative control: with SimGrid's defaults (LV08: bandwidth factor 0.97, weight-S 20537 per
  // hop, 5% cross-traffic on the reverse route) the same measurement gives other rates, so the
  // agreement above is due to the configuration and the measurement is sensitive to it.
  SimGridRunOptions defaults;
  defaults.plain_max_min = false;
  const std::vector<double> rates = simgrid_max_min_rates(parking_lot(1e6, 1e6, 1e6), defaults);
  print_rates("parking lot 1e6 x3 with SimGrid defaults (max-min: 5e5 x4)", rates);
  ASSERT_EQ(rates.size(), 4U);
  EXPECT_LT(rates[0], 0.99 * 5e5) << "long flow should be penalised by LV08's weight-S";
  EXPECT_GT(rates[1], rates[0]);
}

// ── Random systems ──────────────────────────────────────────────────────────────────────────

struct Shape {
  int resources;
  int flows;
  int min_terms;
  int max_terms;
  double bound_probability;
  bool integer_coefficients;  // coefficients in {1, 2, 3} expressed as repeated links
};

MaxMinProblem random_problem(std::uint64_t seed, const Shape& shape) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> capacity(1.0, 100.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> resource(0, shape.resources - 1);
  std::uniform_int_distribution<int> terms(shape.min_terms, shape.max_terms);
  std::uniform_int_distribution<int> coefficient(1, 3);
  std::uniform_real_distribution<double> bound(0.05, 20.0);
  MaxMinProblem problem;
  for (int r = 0; r < shape.resources; ++r) problem.add_resource(capacity(rng));
  std::vector<ResourceUse> uses;
  for (int f = 0; f < shape.flows; ++f) {
    uses.clear();
    const int count = terms(rng);
    while (static_cast<int>(uses.size()) < count) {
      // Distinct links per flow: a route is a path (repetition is reserved for coefficients).
      const int r = resource(rng);
      if (std::any_of(uses.begin(), uses.end(),
                      [&](const ResourceUse& u) { return u.resource == r; })) {
        continue;
      }
      uses.push_back({r, shape.integer_coefficients ? coefficient(rng) : 1.0});
    }
    problem.add_flow(uses,
                     unit(rng) < shape.bound_probability ? bound(rng) : MaxMinProblem::kUnbounded);
  }
  return problem;
}

void compare_on_random_systems(const Shape& shape, std::uint64_t first_seed, int seeds) {
  MaxMinSolver solver;
  double worst = 0.0;
  for (std::uint64_t seed = first_seed; seed < first_seed + static_cast<std::uint64_t>(seeds);
       ++seed) {
    const MaxMinProblem problem = random_problem(seed, shape);
    const std::vector<double> ours = solver.solve(problem).rates;
    const std::vector<double> theirs = simgrid_max_min_rates(problem);
    ASSERT_EQ(ours.size(), theirs.size());
    for (std::size_t f = 0; f < ours.size(); ++f) {
      const double rel = std::abs(ours[f] - theirs[f]) / std::max(std::abs(theirs[f]), 1e-300);
      worst = std::max(worst, rel);
      EXPECT_LE(rel, kAgreement) << "seed " << seed << " flow " << f << ": ours " << ours[f]
                                 << ", SimGrid " << theirs[f];
    }
  }
  std::cout << "  R=" << shape.resources << " F=" << shape.flows << " seeds " << first_seed << ".."
            << first_seed + static_cast<std::uint64_t>(seeds) - 1 << ": worst relative difference "
            << worst << '\n';
}

TEST(SimGridDiffTest, AgreesOnSmallRandomSystems) {
  compare_on_random_systems({5, 10, 1, 3, 0.0, false}, 1, 10);
  compare_on_random_systems({5, 10, 1, 3, 0.3, false}, 101, 10);
}

TEST(SimGridDiffTest, AgreesOnMediumRandomSystems) {
  compare_on_random_systems({20, 100, 1, 4, 0.0, false}, 201, 5);
  compare_on_random_systems({20, 100, 1, 4, 0.3, false}, 301, 5);
}

TEST(SimGridDiffTest, AgreesOnLargeRandomSystems) {
  compare_on_random_systems({100, 1000, 2, 6, 0.2, false}, 401, 3);
  compare_on_random_systems({1000, 10000, 2, 6, 0.2, false}, 501, 1);
}

TEST(SimGridDiffTest, AgreesWithIntegerCoefficientsAsRepeatedLinks) {
  compare_on_random_systems({10, 40, 1, 3, 0.2, true}, 601, 10);
}

}  // namespace
}  // namespace numatwin::simgrid_diff
