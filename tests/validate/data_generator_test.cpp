#include "numatwin/validate/kernels/data_generator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

namespace numatwin::validate {
namespace {

sim::KeySpec spec(sim::KeyDistribution d, double groups) {
  sim::KeySpec k;
  k.distribution = d;
  k.groups = groups;
  return k;
}

TEST(DataGeneratorTest, ChunksGiveTheSameDataAsOneFill) {
  const KeyGenerator g(spec(sim::KeyDistribution::kZipf, 1000), 10000, 42);
  std::vector<Tuple> whole(10000), parts(10000);
  g.fill_tuples(0, whole);
  g.fill_tuples(0, std::span(parts).first(3333));
  g.fill_tuples(3333, std::span(parts).subspan(3333));
  for (std::size_t i = 0; i < whole.size(); ++i) {
    ASSERT_EQ(whole[i].key, parts[i].key) << i;
    ASSERT_EQ(whole[i].value, parts[i].value) << i;
  }
}

TEST(DataGeneratorTest, KeysStayInRangeForEveryDistribution) {
  for (auto d : {sim::KeyDistribution::kUniform, sim::KeyDistribution::kZipf, sim::KeyDistribution::kHeavyHitter,
                 sim::KeyDistribution::kMovingCluster, sim::KeyDistribution::kSequential}) {
    const KeyGenerator g(spec(d, 777), 50000, 3);
    for (std::uint64_t r = 0; r < 50000; ++r) ASSERT_LT(g.key(r), 777U) << static_cast<int>(d);
  }
}

TEST(DataGeneratorTest, UniformCoversEveryGroupRoughlyEvenly) {
  const KeyGenerator g(spec(sim::KeyDistribution::kUniform, 100), 100000, 9);
  std::vector<int> count(100);
  for (std::uint64_t r = 0; r < 100000; ++r) ++count[g.key(r)];
  // 1000 expected per group; 5 sigma is about 160.
  for (int c : count) {
    EXPECT_GT(c, 840);
    EXPECT_LT(c, 1160);
  }
}

TEST(DataGeneratorTest, ZipfFrequenciesFollowTheRankLaw) {
  // s = 1 over 100 ranks: P(rank 1) = 1 / H(100, 1) = 0.19277; P(rank 2) = half of it.
  sim::KeySpec k = spec(sim::KeyDistribution::kZipf, 100);
  k.zipf_exponent = 1.0;
  const KeyGenerator g(k, 200000, 5);
  std::map<std::uint64_t, int> count;
  for (std::uint64_t r = 0; r < 200000; ++r) ++count[g.key(r)];
  std::vector<int> sorted;
  for (const auto& [key, c] : count) sorted.push_back(c);
  std::sort(sorted.rbegin(), sorted.rend());
  const double h = 5.187377517639621;  // H(100, 1)
  EXPECT_NEAR(sorted[0] / 200000.0, 1.0 / h, 0.005);
  EXPECT_NEAR(sorted[1] / 200000.0, 0.5 / h, 0.004);
  EXPECT_NEAR(sorted[9] / 200000.0, 0.1 / h, 0.003);
}

TEST(DataGeneratorTest, ZipfHalfExponentOverManyGroupsIsSkewedButSpread) {
  // s = 0.5 over 1e6 groups (the study's case): P(rank 1) = 1 / H(1e6, 0.5) ~ 1 / 1998.5.
  sim::KeySpec k = spec(sim::KeyDistribution::kZipf, 1e6);
  k.zipf_exponent = 0.5;
  const KeyGenerator g(k, 2000000, 5);
  std::uint64_t hot = 0;
  for (std::uint64_t r = 0; r < 2000000; ++r) hot += g.key(r) == 0 ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(hot), 2e6 / 1998.5, 5.0 * std::sqrt(2e6 / 1998.5));
}

TEST(DataGeneratorTest, HeavyHitterSendsItsShareToOneKey) {
  sim::KeySpec k = spec(sim::KeyDistribution::kHeavyHitter, 1000);
  k.heavy_hitter_share = 0.3;
  const KeyGenerator g(k, 100000, 1);
  int zero = 0;
  for (std::uint64_t r = 0; r < 100000; ++r) zero += g.key(r) == 0 ? 1 : 0;
  EXPECT_NEAR(zero / 100000.0, 0.3 + 0.7 / 1000, 0.01);
}

TEST(DataGeneratorTest, MovingClusterStaysInsideItsSlidingWindow) {
  sim::KeySpec k = spec(sim::KeyDistribution::kMovingCluster, 10000);
  k.window_groups = 100;
  const KeyGenerator g(k, 50000, 1);
  for (std::uint64_t r = 0; r < 50000; r += 7) {
    const std::uint64_t start = r * (10000 - 100) / 50000;
    ASSERT_GE(g.key(r), start);
    ASSERT_LT(g.key(r), start + 100);
  }
}

TEST(DataGeneratorTest, SequentialKeepsEachGroupsRowsTogether) {
  const KeyGenerator g(spec(sim::KeyDistribution::kSequential, 10), 100, 1);
  for (std::uint64_t r = 0; r < 100; ++r) EXPECT_EQ(g.key(r), r / 10);
}

TEST(DataGeneratorTest, UniqueKeysAreABijection) {
  for (std::uint64_t n : {1ULL, 2ULL, 97ULL, 1000ULL, 4096ULL}) {
    const UniqueKeys u(n, 11);
    std::set<std::uint64_t> seen;
    for (std::uint64_t r = 0; r < n; ++r) seen.insert(u.key(r));
    EXPECT_EQ(seen.size(), n);
    EXPECT_LT(*seen.rbegin(), n);
  }
}

TEST(DataGeneratorTest, ValuesAreBelowTwoToThe31AndDifferBySeed) {
  int same = 0;
  for (std::uint64_t r = 0; r < 1000; ++r) {
    EXPECT_LT(generated_value(1, r), 1ULL << 31);
    same += generated_value(1, r) == generated_value(2, r) ? 1 : 0;
  }
  EXPECT_LT(same, 3);
}

TEST(DataGeneratorTest, BadSpecsAreRejected) {
  EXPECT_THROW(KeyGenerator(spec(sim::KeyDistribution::kUniform, 0), 10, 1), std::invalid_argument);
  EXPECT_THROW(KeyGenerator(spec(sim::KeyDistribution::kUniform, 10), 0, 1), std::invalid_argument);
  sim::KeySpec k = spec(sim::KeyDistribution::kMovingCluster, 10);
  k.window_groups = 0.5;
  EXPECT_THROW(KeyGenerator(k, 10, 1), std::invalid_argument);
  k = spec(sim::KeyDistribution::kHeavyHitter, 10);
  k.heavy_hitter_share = 1.5;
  EXPECT_THROW(KeyGenerator(k, 10, 1), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
