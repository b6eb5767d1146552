// cost_bench::Runner (validate/src/measure/cost_microbenchmark_runner.hpp), with passes that report
// fixed seconds instead of timing anything: worked by hand below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "measure/cost_microbenchmark_runner.hpp"

namespace numatwin::validate {
namespace {

// Two items, a (with a warm-up) and b. seconds_per_timing 0.02 and a first pass of 0.01 s give
// 2 timed passes a repetition; a round is then 2 x 0.01 x 3 = 0.06 s (an untimed pass and 2
// timed ones each; a's warm-up takes microseconds). A window of 0.27 s needs ceil(4.5) = 5
// rounds, more than the 3 repetitions. The log: a's warm-up, its untimed and its first pass,
// b's two, then per round a's warm-up and three passes, b's three. a's passes all take 0.01 s:
// 0.01 s x 1e9 / 1e7 units = 1 ns a unit. b's passes in round r take 0.01 x (r + 1) s: the
// rounds' medians are 1..5 ns, their median 3, extremes 1 and 5.
TEST(CostRunnerTest, InterleavedRoundsTakeTurnsAndFillTheWindow) {
  CostBenchmarkOptions o;
  o.repetitions = 3;
  o.seconds_per_timing = 0.02;
  cost_bench::Runner run(o, 2);
  std::string log;
  int b_calls = 0;
  std::vector<cost_bench::Runner::Interleaved> items{
      {"a", "load", "loop a", 1e7, [&] { log += 'a'; return 0.01; }, [&] { log += 'w'; }},
      {"b", "load", "loop b", 1e7, [&] {
         log += 'b';
         const int k = b_calls++;
         return k < 2 ? 0.01 : 0.01 * ((k - 2) / 3 + 1);
       }, {}}};
  ASSERT_TRUE(run.time_interleaved(items, 0.27));
  std::string expected = "waabb";
  for (int r = 0; r < 5; ++r) expected += "waaabbb";
  EXPECT_EQ(log, expected);
  ASSERT_TRUE(run.result.has("a") && run.result.has("b"));
  EXPECT_DOUBLE_EQ(run.result.at("a").median_ns, 1.0);
  EXPECT_DOUBLE_EQ(run.result.at("b").median_ns, 3.0);
  EXPECT_DOUBLE_EQ(run.result.at("b").low_ns, 1.0);
  EXPECT_DOUBLE_EQ(run.result.at("b").high_ns, 5.0);
  EXPECT_EQ(run.result.at("b").loop, "loop b");
}

// No window: the repetitions' count of rounds (3), each item's median over them.
TEST(CostRunnerTest, WithoutAWindowTheRepetitionsAreTheRounds) {
  CostBenchmarkOptions o;
  o.repetitions = 3;
  o.seconds_per_timing = 0.02;
  cost_bench::Runner run(o, 1);
  int calls = 0;
  std::vector<cost_bench::Runner::Interleaved> items{{"a", "load", "loop a", 1e7, [&] {
                                                       ++calls;
                                                       return 0.01;
                                                     }, {}}};
  ASSERT_TRUE(run.time_interleaved(items, 0.0));
  EXPECT_EQ(calls, 2 + 3 * 3);
  EXPECT_DOUBLE_EQ(run.result.at("a").median_ns, 1.0);
}

}  // namespace
}  // namespace numatwin::validate
