// Cache hit ratios of the key distributions, worked by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "numatwin/sim/workload/key_distribution.hpp"

namespace numatwin::sim {
namespace {

TEST(KeyDistributionTest, HarmonicNumbers) {
  EXPECT_DOUBLE_EQ(harmonic(1, 0.5), 1.0);
  EXPECT_NEAR(harmonic(3, 1.0), 1.0 + 0.5 + 1.0 / 3.0, 1e-12);
  // Beyond the exact part the Euler-Maclaurin tail: H(n, 1) = ln n + gamma + 1/(2n) - ...
  EXPECT_NEAR(harmonic(1e8, 1.0), std::log(1e8) + 0.5772156649015329 + 0.5e-8, 1e-9);
  // H(n, 0.5) = 2 sqrt(n) + zeta(0.5) + 1 / (2 sqrt(n)) + O(n^-1.5), zeta(0.5) = -1.4603545088...
  EXPECT_NEAR(harmonic(4e6, 0.5), 2.0 * std::sqrt(4e6) - 1.4603545088095868 + 0.5 / std::sqrt(4e6), 1e-6);
}

// The Euler-Maclaurin tail against a plain sum of every term in long double, largest n first
// summed from the small end: within 1e-14 relative for exponents from 0.1 to 4, at the edge of
// the exact part (64, 65), inside the floor range (1000, 9999.7 -> 9999) and past it (2e4, 1e5).
TEST(KeyDistributionTest, HarmonicTailAgreesWithTheDirectSum) {
  for (double s : {0.1, 0.5, 0.99, 1.0, 1.5, 2.0, 4.0}) {
    for (double n : {63.0, 64.0, 65.0, 200.5, 1000.0, 9999.7, 2e4, 1e5}) {
      const long long terms = static_cast<long long>(std::floor(n));
      long double direct = 0.0L;
      for (long long i = terms; i >= 1; --i) direct += std::pow(static_cast<long double>(i), -static_cast<long double>(s));
      const double expected = static_cast<double>(direct);  // n past 1e4 is whole here: floor(n) = n
      EXPECT_NEAR(harmonic(n, s), expected, 1e-14 * expected) << "n " << n << " s " << s;
    }
  }
}

TEST(KeyDistributionTest, HitRatios) {
  KeySpec k;
  k.groups = 1000;
  EXPECT_DOUBLE_EQ(cache_hit_ratio(k, 250, 1e6), 0.25);    // uniform: C / G
  EXPECT_DOUBLE_EQ(cache_hit_ratio(k, 5000, 1e6), 1.0);
  k.distribution = KeyDistribution::kHeavyHitter;
  k.heavy_hitter_share = 0.5;
  EXPECT_DOUBLE_EQ(cache_hit_ratio(k, 250, 1e6), 0.5 + 0.5 * 0.25);
  k.distribution = KeyDistribution::kMovingCluster;
  k.window_groups = 100;
  EXPECT_DOUBLE_EQ(cache_hit_ratio(k, 50, 1e6), 0.5);
  k.distribution = KeyDistribution::kSequential;
  EXPECT_DOUBLE_EQ(cache_hit_ratio(k, 0, 1e6), 1.0 - 1000.0 / 1e6);  // one miss per group
  k.distribution = KeyDistribution::kZipf;
  k.zipf_exponent = 1.0;
  // Top 2 of 4 keys with s = 1: (1 + 1/2) / (1 + 1/2 + 1/3 + 1/4) = 18/25.
  k.groups = 4;
  EXPECT_NEAR(cache_hit_ratio(k, 2, 1e6), 18.0 / 25.0, 1e-12);
  // Skew helps: the same cache hits more often under Zipf than under uniform keys.
  KeySpec uniform;
  uniform.groups = 1e6;
  KeySpec zipf = uniform;
  zipf.distribution = KeyDistribution::kZipf;
  EXPECT_GT(cache_hit_ratio(zipf, 1e4, 1e8), cache_hit_ratio(uniform, 1e4, 1e8));
}

TEST(KeyDistributionTest, ParsesDistributions) {
  EXPECT_EQ(parse_key_distribution("zipf:0.8", 10).zipf_exponent, 0.8);
  EXPECT_EQ(parse_key_distribution("moving-cluster:50", 10).window_groups, 50);
  EXPECT_THROW(parse_key_distribution("gaussian", 10), std::invalid_argument);
  EXPECT_THROW(parse_key_distribution("zipf:x", 10), std::invalid_argument);
  EXPECT_THROW(parse_key_distribution("heavy-hitter:2", 10), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
