// Utilisation tracking: the moving average and the time-weighted history, worked by hand.
#include <gtest/gtest.h>

#include "numatwin/sim/adaptive/adaptive_utilisation.hpp"

namespace numatwin::sim {
namespace {

TEST(AdaptiveUtilisationTest, MovingAverageWeighsTheNewValueByW) {
  ExponentialAverage ema(0.1);
  EXPECT_TRUE(ema.empty());
  ema.add(10.0);  // the first value initialises it
  EXPECT_DOUBLE_EQ(ema.value(), 10.0);
  ema.add(20.0);  // 0.1 x 20 + 0.9 x 10 = 11
  EXPECT_DOUBLE_EQ(ema.value(), 11.0);
  ema.add(0.0);  // 0.9 x 11 = 9.9
  EXPECT_DOUBLE_EQ(ema.value(), 9.9);
}

TEST(AdaptiveUtilisationTest, HistoryAveragesOverTimeWithPartialSamples) {
  SampledHistory h(1.0);
  h.add(0.0, 0.1, 1.0);
  h.add(0.1, 0.2, 3.0);
  h.add(0.2, 0.3, 5.0);
  // Last 0.2 s: samples 3 and 5 equally: 4.
  EXPECT_NEAR(h.average(0.3, 0.2), 4.0, 1e-12);
  // Last 0.15 s: 5 for 0.1 s and 3 for 0.05 s: (0.5 + 0.15) / 0.15 = 4.333...
  EXPECT_NEAR(h.average(0.3, 0.15), (0.5 + 0.15) / 0.15, 1e-12);
  // A window longer than the history averages what there is.
  EXPECT_NEAR(h.average(0.3, 10.0), 3.0, 1e-12);
  EXPECT_NEAR(h.covered_s(), 0.3, 1e-12);
}

TEST(AdaptiveUtilisationTest, HistoryKeepsOnlyItsSpan) {
  SampledHistory h(0.5);
  for (int i = 0; i < 20; ++i) h.add(0.1 * i, 0.1 * (i + 1), i);
  EXPECT_LE(h.covered_s(), 0.5 + 0.1 + 1e-9);
  EXPECT_LE(h.size(), 6u);
  EXPECT_NEAR(h.average(2.0, 0.1), 19.0, 1e-12);
  EXPECT_THROW(h.add(1.0, 1.1, 0.0), std::invalid_argument);  // out of order
}

// Issue 39 item 3: a split or merged part keeps what was known of its data.
TEST(AdaptiveUtilisationTest, AHistoryScalesAndAddsSampleBySample) {
  SampledHistory a(10.0);
  a.add(0.0, 0.1, 4.0);
  a.add(0.1, 0.2, 6.0);
  a.scale(0.5);  // each half of a split part: 2, 3
  EXPECT_NEAR(a.average(0.2, 0.2), 2.5, 1e-12);
  EXPECT_NEAR(a.covered_s(), 0.2, 1e-12);
  SampledHistory b(10.0);
  b.add(0.1, 0.2, 1.0);  // born at 0.1 s
  b.add(0.2, 0.3, 8.0);
  a.add_history(b);  // [0, 0.1) 2 alone, [0.1, 0.2) 3 + 1 = 4, [0.2, 0.3) 8 alone
  EXPECT_EQ(a.size(), 3U);
  EXPECT_NEAR(a.average(0.1, 0.1), 2.0, 1e-12);
  EXPECT_NEAR(a.average(0.2, 0.1), 4.0, 1e-12);
  EXPECT_NEAR(a.average(0.3, 0.1), 8.0, 1e-12);
  EXPECT_NEAR(a.covered_s(), 0.3, 1e-12);
  // Samples keep coming in time order after the merge.
  a.add(0.3, 0.4, 1.0);
  EXPECT_THROW(a.add(0.35, 0.45, 1.0), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
