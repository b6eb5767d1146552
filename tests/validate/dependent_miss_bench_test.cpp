// The dependent-miss benchmark (validate/dependent_miss_bench.hpp): the derivation from fake
// timings worked by hand (median of the rounds' differences, the miss share, the floor at 0), the
// work unit's, and a small run's shape (not its figures: no timed test).
#include "numatwin/validate/alloc/dependent_miss_bench.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace numatwin::validate {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(DependentMissBenchTest, MissCostIsTheFastestWithMinusTheFastestWithoutPerMissOverTheMissShare) {
  // 1e6 misses a round; with the miss 0.150, 0.160, 0.140 s (fastest 0.140), without 0.100,
  // 0.110, 0.105 s (fastest 0.100): 0.040 s / 1e6 = 40 ns a miss (the rounds' own differences,
  // 50, 50 and 35 ns, are not what is taken); footprint 256 MiB over a 64 MiB LLC:
  // m = 1 - 64 / 256 = 0.75, so 40 / 0.75 ns per LLC miss.
  const std::vector<DependentMissRound> rounds = {{0.150, 0.100, 1e6}, {0.160, 0.110, 1e6}, {0.140, 0.105, 1e6}};
  EXPECT_NEAR(derive_miss_ns(rounds, 256 * kMiB, 64 * kMiB), 40.0 / 0.75, 1e-9);
  EXPECT_THROW((void)derive_miss_ns({{0.15, 0.1, 1e6}, {0.15, 0.1, 2e6}}, 256 * kMiB, 64 * kMiB), std::invalid_argument);
}

TEST(DependentMissBenchTest, NegativeDifferencesAreZeroAndTheMissShareHasAFloor) {
  // The median difference is negative (-10 ns): taken as 0.
  EXPECT_EQ(derive_miss_ns({{0.090, 0.100, 1e6}}, 256 * kMiB, 64 * kMiB), 0.0);
  // A footprint within the LLC: m is taken as 0.05, so 10 ns a miss -> 200 ns per LLC miss.
  EXPECT_NEAR(derive_miss_ns({{0.110, 0.100, 1e6}}, 16 * kMiB, 64 * kMiB), 10.0 / 0.05, 1e-9);
  EXPECT_THROW((void)derive_miss_ns({}, 256 * kMiB, 64 * kMiB), std::invalid_argument);
  EXPECT_THROW((void)derive_miss_ns({{0.1, 0.1, 0.0}}, 256 * kMiB, 64 * kMiB), std::invalid_argument);
}

TEST(DependentMissBenchTest, SecondMissIsTheFastestSecondMinusTheFastestWith) {
  // With the first miss 0.150, 0.140 s (fastest 0.140), with both 0.200, 0.185 s (fastest 0.185):
  // 0.045 s / 1e6 = 45 ns, over m = 0.75: 60 ns per LLC miss. The passes without any miss
  // (0.100, 0.105) do not enter.
  const std::vector<DependentMissRound> rounds = {{0.150, 0.100, 1e6, 0.200}, {0.140, 0.105, 1e6, 0.185}};
  EXPECT_NEAR(derive_second_miss_ns(rounds, 256 * kMiB, 64 * kMiB), 60.0, 1e-9);
  EXPECT_EQ(derive_second_miss_ns({{0.150, 0.100, 1e6, 0.140}}, 256 * kMiB, 64 * kMiB), 0.0);  // faster: noise, 0
  EXPECT_THROW((void)derive_second_miss_ns({{0.150, 0.100, 1e6}}, 256 * kMiB, 64 * kMiB), std::invalid_argument);  // not run
}

TEST(DependentMissBenchTest, SplitFiguresAreTheirPassesMinusTheirBases) {
  // Rounds {with, without, M, second, split head, split miss}. Split head against the pass
  // without misses: fastest 0.130 - fastest 0.100 = 0.030 s / 1e6 = 30 ns, / m 0.75 = 40 ns.
  // Split miss against the one-line miss: fastest 0.152 - fastest 0.140 = 0.012 s / 1e6 = 12 ns,
  // / 0.75 = 16 ns.
  const std::vector<DependentMissRound> rounds = {{0.150, 0.100, 1e6, 0.200, 0.135, 0.160}, {0.140, 0.105, 1e6, 0.185, 0.130, 0.152}};
  EXPECT_NEAR(derive_split_head_ns(rounds, 256 * kMiB, 64 * kMiB), 40.0, 1e-9);
  EXPECT_NEAR(derive_split_miss_ns(rounds, 256 * kMiB, 64 * kMiB), 16.0, 1e-9);
  EXPECT_THROW((void)derive_split_head_ns({{0.150, 0.100, 1e6, 0.2}}, 256 * kMiB, 64 * kMiB), std::invalid_argument);  // not run
  EXPECT_THROW((void)derive_split_miss_ns({{0.150, 0.100, 1e6, 0.2, 0.13}}, 256 * kMiB, 64 * kMiB), std::invalid_argument);
}

TEST(DependentMissBenchTest, WorkUnitIsTheExtraTimePerUnitAndItem) {
  // 8 units on 1e6 items took 0.040 s more than none: 40 ms / 8e6 = 5 ns a unit.
  EXPECT_NEAR(derive_work_unit_ns(0.050, 0.010, 8, 1e6), 5.0, 1e-9);
  EXPECT_EQ(derive_work_unit_ns(0.010, 0.050, 8, 1e6), 0.0);
  EXPECT_THROW((void)derive_work_unit_ns(0.05, 0.01, 0, 1e6), std::invalid_argument);
}

TEST(DependentMissBenchTest, SmallRunGivesACompleteGrid) {
  DependentMissBenchOptions o;
  o.items_per_miss = {1, 3};
  o.work_units = {0, 2};
  o.rounds = 1;
  o.footprint_bytes = 2 * kMiB;
  o.llc_bytes = 1 * kMiB;
  o.misses = 1024;
  const model::DependentMissGrid g = run_dependent_miss_bench(o);
  ASSERT_EQ(g.points.size(), 4U);
  EXPECT_EQ(g.points[0].items_per_miss, 1.0);
  EXPECT_EQ(g.points[0].work_units, 0.0);
  EXPECT_EQ(g.points[3].items_per_miss, 3.0);
  EXPECT_EQ(g.points[3].work_units, 2.0);
  for (const model::DependentMissPoint& p : g.points) {
    EXPECT_GE(p.miss_ns, 0.0);
    ASSERT_TRUE(p.second_miss_ns.has_value());
    EXPECT_GE(*p.second_miss_ns, 0.0);
    ASSERT_TRUE(p.split_head_ns.has_value());
    ASSERT_TRUE(p.split_miss_ns.has_value());
    EXPECT_GE(*p.split_head_ns, 0.0);
    EXPECT_GE(*p.split_miss_ns, 0.0);
  }
  EXPECT_GT(g.work_unit_ns, 0.0);
  EXPECT_NO_THROW(model::check_dependent_miss_grid(g));
  o.items_per_miss = {0};
  EXPECT_THROW((void)run_dependent_miss_bench(o), std::invalid_argument);
  o.items_per_miss = {1};
  o.footprint_bytes = 1000.0;
  EXPECT_THROW((void)run_dependent_miss_bench(o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
