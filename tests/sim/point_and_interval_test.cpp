// A point prediction against the interval of its samples (sim/uncertainty/point_and_interval.hpp),
// worked by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "numatwin/sim/uncertainty/point_and_interval.hpp"

namespace numatwin::sim {
namespace {

CostBasis three_costs() {
  CostBasis basis;
  // A share at the top of its range, a cycle count in its middle, a latency at its bottom.
  basis.costs.push_back(BasisCost{"llc_usable_share", model::CostValue{1.0, 0.5, 1.0, model::CostOrigin::kDefault, "d"}});
  basis.costs.push_back(BasisCost{"hash_cycles_per_tuple", model::CostValue{20.0, 10.0, 40.0, model::CostOrigin::kDefault, "d"}});
  basis.costs.push_back(BasisCost{"llc_hit_ns", model::CostValue{10.2, 10.0, 40.0, model::CostOrigin::kDefault, "d"}});
  return basis;
}

TEST(PointAndIntervalTest, LogPositionIsZeroAtTheLowEndAndOneAtTheHighEnd) {
  EXPECT_DOUBLE_EQ(log_position(0.5, 0.5, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(log_position(1.0, 0.5, 1.0), 1.0);
  // 20 in [10, 40]: ln 2 / ln 4 = 1/2 (the geometric middle).
  EXPECT_DOUBLE_EQ(log_position(20.0, 10.0, 40.0), 0.5);
  // 10.2 in [10, 40]: ln 1.02 / ln 4 = 0.019802 / 1.386294 = 0.01428, within the outer 5 %.
  EXPECT_NEAR(log_position(10.2, 10.0, 40.0), 0.014284, 1e-6);
  EXPECT_THROW(log_position(1.0, 0.0, 1.0), std::invalid_argument);
  EXPECT_THROW(log_position(1.0, 2.0, 1.0), std::invalid_argument);
}

TEST(PointAndIntervalTest, APointBelowNamesTheCostsAtAnEndOfTheirRange) {
  const CostBasis basis = three_costs();
  const Interval interval{8.0, 7.5, 8.6};
  const PointVersusInterval p = point_versus_interval(7.4, interval, basis, {"llc_usable_share", "hash_cycles_per_tuple", "llc_hit_ns"});
  EXPECT_EQ(p.side, PointSide::kBelow);
  // The share (position 1) and the latency (0.014) stand at an end; the cycles (0.5) do not.
  ASSERT_EQ(p.at_range_end.size(), 2U);
  EXPECT_EQ(p.at_range_end[0].name, "llc_usable_share");
  EXPECT_TRUE(p.at_range_end[0].at_high);
  EXPECT_EQ(p.at_range_end[1].name, "llc_hit_ns");
  EXPECT_FALSE(p.at_range_end[1].at_high);
  EXPECT_EQ(point_outside_note(p, "time", " s"),
            "the time (7.4 s) lies below its 90 % interval [7.5, 8.6]: it is the prediction at the costs' own values, the interval "
            "that of the samples drawn within their ranges; of the drawn costs, llc_usable_share is at the high end of its range "
            "(1 in [0.5, 1]) and llc_hit_ns at the low end of its range (10.2 in [10, 40]), so the samples draw them on one side only");
  EXPECT_EQ(point_outside_summary(p), "below it: llc_usable_share at the high end of its range, llc_hit_ns at the low end of its range");
}

TEST(PointAndIntervalTest, OnlyTheNamedCostsAreConsidered) {
  // A cost the prediction does not rest on is not named, however its value sits.
  const PointVersusInterval p = point_versus_interval(9.0, Interval{8.0, 7.5, 8.6}, three_costs(), {"hash_cycles_per_tuple"});
  EXPECT_EQ(p.side, PointSide::kAbove);
  EXPECT_TRUE(p.at_range_end.empty());
  EXPECT_NE(point_outside_note(p, "rate", " GB/s").find("lies above its 90 % interval"), std::string::npos);
  EXPECT_NE(point_outside_note(p, "rate", " GB/s").find("no drawn cost stands at an end of its range"), std::string::npos);
}

TEST(PointAndIntervalTest, APointInsideOrWithinRoundingOfAnEndHasNoNote) {
  const CostBasis basis = three_costs();
  EXPECT_EQ(point_versus_interval(8.0, Interval{8.0, 7.5, 8.6}, basis, {"llc_usable_share"}).side, PointSide::kInside);
  EXPECT_EQ(point_versus_interval(7.5, Interval{8.0, 7.5, 8.6}, basis, {"llc_usable_share"}).side, PointSide::kInside);
  // Every sample equal to the point: the interpolated percentiles may differ in the last bits.
  const double x = 1950.0;
  const PointVersusInterval p = point_versus_interval(x, Interval{x, x * (1 + 1e-15), x * (1 + 2e-15)}, basis, {"llc_usable_share"});
  EXPECT_EQ(p.side, PointSide::kInside);
  EXPECT_EQ(point_outside_note(p, "rate", " GB/s"), "");
  EXPECT_EQ(point_outside_summary(p), "");
  // A relative gap of 1e-6 is no rounding.
  EXPECT_EQ(point_versus_interval(x * (1 - 1e-6), Interval{x, x, x}, basis, {}).side, PointSide::kBelow);
}

}  // namespace
}  // namespace numatwin::sim
