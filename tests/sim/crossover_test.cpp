// sim/uncertainty/crossover.hpp, worked by hand.
#include "numatwin/sim/uncertainty/crossover.hpp"

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

}  // namespace
}  // namespace numatwin::sim
