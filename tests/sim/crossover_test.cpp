// sim/uncertainty/crossover.hpp, worked by hand.
#include "numatwin/sim/uncertainty/crossover.hpp"
#include "numatwin/sim/uncertainty/sweep_crossover.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace numatwin::sim {
namespace {

TEST(CrossoverTest, InterpolatesTheSignChangeInLogX) {
  // d = a - b: -1 at x = 10, +1 at x = 1000: the root is halfway in ln x: x = 100.
  const auto c = first_crossover({10, 1000}, {1, 3}, {2, 2});
  ASSERT_TRUE(c.has_value());
  EXPECT_NEAR(c->x, 100.0, 1e-9);
  EXPECT_TRUE(c->a_first);  // a smaller before the crossover
  // d = -3 at 1e2, +1 at 1e4: ln x* = ln 1e2 + 2 ln 10 x 3 / 4 = ln 10^3.5.
  const auto d = first_crossover({1, 1e2, 1e4}, {0, 0, 2}, {1, 3, 1});
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(d->x, std::pow(10.0, 3.5), 1e-6);
}

TEST(CrossoverTest, NoSignChangeNoCrossover) {
  EXPECT_FALSE(first_crossover({1, 10, 100}, {1, 2, 3}, {2, 3, 4}).has_value());
  EXPECT_FALSE(first_crossover({1}, {1}, {2}).has_value());
}

TEST(CrossoverTest, AZeroDifferenceTakesTheSignBefore) {
  // d = +1, 0, -1 at 1, 10, 100: interpolated from the last non-zero d (+1 at x = 1) to -1 at
  // x = 100: ln x* = ln 1 + ln 100 x 1 / 2: x = 10.
  const auto c = first_crossover({1, 10, 100}, {2, 1, 0}, {1, 1, 1});
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->a_first);
  EXPECT_NEAR(c->x, 10.0, 1e-9);
}

TEST(CrossoverTest, BadInputIsRefused) {
  EXPECT_THROW(first_crossover({1, 2}, {1}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(first_crossover({0, 2}, {1, 2}, {1, 2}), std::invalid_argument);
}

// A sweep's crossover with its samples (sweep_crossover.hpp, moved from the CLI: issue 36 item 3).
// Sizes 1, 2, 4. Point: A 1, 2, 3 s against B 2, 2.5, 2 s, d = -1, -0.5, +1, so A is faster
// below x* with ln x* = ln 2 + (ln 4 - ln 2) x (-0.5) / (-0.5 - 1) = (4/3) ln 2: x* = 2^(4/3) =
// 2.5198. Sample 0 as the point; sample 1: A 1, 1, 1 against B 2, 2, 2, faster at every size.
TEST(SweepCrossoverTest, ThePointAndEachSampleCrossWhereTheirTimesDo) {
  SweepTimes times;
  times.add(8, "A", 1.0, 1.0, {1.0, 1.0});
  times.add(8, "A", 2.0, 2.0, {2.0, 1.0});
  times.add(8, "A", 4.0, 3.0, {3.0, 1.0});
  times.add(8, "B", 1.0, 2.0, {2.0, 2.0});
  times.add(8, "B", 2.0, 2.5, {2.5, 2.0});
  times.add(8, "B", 4.0, 2.0, {2.0, 2.0});
  EXPECT_EQ(times.thread_counts(), std::vector<int>{8});
  const SweepCrossover c = times.crossover(8, "A", "B");
  ASSERT_TRUE(c.found);
  ASSERT_TRUE(c.point.has_value());
  EXPECT_NEAR(c.point->x, std::pow(2.0, 4.0 / 3.0), 1e-12);
  EXPECT_TRUE(c.point->a_first);
  EXPECT_TRUE(c.a_faster_first);
  EXPECT_EQ(c.samples, 2);
  EXPECT_EQ(c.crossing, 1);
  EXPECT_EQ(c.a_always, 1);
  EXPECT_EQ(c.b_always, 0);
  ASSERT_TRUE(c.x.has_value());
  EXPECT_NEAR(c.x->median, std::pow(2.0, 4.0 / 3.0), 1e-12);
  // A variant the sweep does not have: not found, nothing else said.
  EXPECT_FALSE(times.crossover(8, "A", "C").found);
  EXPECT_FALSE(times.crossover(16, "A", "B").found);
}

}  // namespace
}  // namespace numatwin::sim
