// Che's approximation for structures sharing an LRU cache (model/cache_sharing.hpp), worked by hand.
#include "numatwin/model/cache_sharing.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace numatwin::model {
namespace {

TEST(CacheSharingTest, OneUserKeepsWhatFits) {
  EXPECT_NEAR(che_cache_shares(100.0, {{400.0, 1.0}})[0], 100.0, 1e-6);  // hit ratio 100 / 400
  EXPECT_EQ(che_cache_shares(100.0, {{40.0, 1.0}})[0], 40.0);            // fits whole
}

TEST(CacheSharingTest, EqualRatesPerLineSplitInProportionToSize) {
  // 100 and 300 lines read at 1 and 3 per unit time: 0.01 per line each, so one T for both and
  // the same hit ratio h; 100 h + 300 h = 100 lines of cache: h = 0.25, shares 25 and 75.
  const std::vector<double> s = che_cache_shares(100.0, {{100.0, 1.0}, {300.0, 3.0}});
  EXPECT_NEAR(s[0], 25.0, 1e-6);
  EXPECT_NEAR(s[1], 75.0, 1e-6);
}

TEST(CacheSharingTest, AHotterStructureKeepsMoreWorkedByHand) {
  // 100 lines at 3 per unit time and 100 at 1 in a cache of 100: with x = exp(-0.01 T),
  // 100 (1 - x^3) + 100 (1 - x) = 100, so x^3 + x - 1 = 0: x = 0.6823278 (the real root).
  // Shares 100 (1 - x^3) = 68.2328 and 100 (1 - x) = 31.7672.
  const std::vector<double> s = che_cache_shares(100.0, {{100.0, 3.0}, {100.0, 1.0}});
  EXPECT_NEAR(s[0], 68.2328, 1e-3);
  EXPECT_NEAR(s[1], 31.7672, 1e-3);
  EXPECT_NEAR(s[0] + s[1], 100.0, 1e-6);
}

TEST(CacheSharingTest, AnUnreadUserTakesNothingAndBadInputIsRefused) {
  const std::vector<double> s = che_cache_shares(100.0, {{50.0, 0.0}, {80.0, 1.0}});
  EXPECT_EQ(s[0], 0.0);
  EXPECT_EQ(s[1], 80.0);
  EXPECT_THROW((void)che_cache_shares(-1.0, {{1.0, 1.0}}), std::invalid_argument);
  EXPECT_THROW((void)che_cache_shares(10.0, {{0.0, 1.0}}), std::invalid_argument);
  EXPECT_THROW((void)che_cache_shares(10.0, {{5.0, -1.0}}), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::model
