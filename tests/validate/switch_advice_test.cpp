#include "numatwin/validate/suite/switch_advice.hpp"

#include <gtest/gtest.h>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

nlohmann::json block(const std::vector<SwitchRun>& runs) { return switches_json(runs, {{"thp_enabled", "madvise"}}, {}); }

TEST(SwitchAdviceTest, RecommendsAnAllocatorOnlyBeyondTheNoise) {
  // glibc 0.100 s (repetitions 0.099..0.101: 2 % spread); jemalloc 0.090 s (1 % spread): 10 %
  // faster, beyond max(3 %, 2 %) -> jemalloc. tcmalloc 0.095 s is slower than jemalloc.
  const auto advice = advise_switches(block({{"k", "count", "allocator", "glibc", 0.100, {0.099, 0.100, 0.101}},
                                             {"k", "count", "allocator", "jemalloc", 0.090, {0.0895, 0.090, 0.0904}},
                                             {"k", "count", "allocator", "tcmalloc", 0.095, {0.095}}}),
                                      "count", "r.json");
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_EQ(advice[0].setting, "allocator");
  EXPECT_TRUE(advice[0].better);
  EXPECT_EQ(advice[0].value, "jemalloc");
  EXPECT_DOUBLE_EQ(advice[0].value_s, 0.090);
  EXPECT_DOUBLE_EQ(advice[0].baseline_s, 0.100);
  EXPECT_NEAR(advice[0].noise, 0.03, 1e-12);
}

TEST(SwitchAdviceTest, KeepsTheDefaultWhenTheGainIsWithinTheSpread) {
  // Huge pages 5 % faster, but glibc-default repetitions spread 0.090..0.110 (20 %): keep off.
  const auto advice = advise_switches(block({{"k", "median", "huge_pages", "off", 0.100, {0.090, 0.100, 0.110}},
                                             {"k", "median", "huge_pages", "on", 0.095, {0.095, 0.095}}}),
                                      "median", "r.json");
  ASSERT_EQ(advice.size(), 1u);
  EXPECT_FALSE(advice[0].better);
  EXPECT_EQ(advice[0].value, "off");
  EXPECT_EQ(advice[0].fastest_other, "on");
  EXPECT_NEAR(advice[0].noise, 0.2, 1e-12);
}

TEST(SwitchAdviceTest, OnlyTheAskedWorkloadCounts) {
  const auto advice = advise_switches(block({{"k", "count", "allocator", "glibc", 0.1, {}},
                                             {"k", "count", "allocator", "jemalloc", 0.05, {}}}),
                                      "hash-join", "r.json");
  EXPECT_TRUE(advice.empty());
}

TEST(SwitchAdviceTest, MalformedBlocksNameTheField) {
  try {
    (void)advise_switches(nlohmann::json{{"runs", {{{"id", "k"}, {"workload", "count"}, {"setting", "allocator"}, {"value", "glibc"},
                                                    {"measured_s", 0}}}}},
                          "count", "r.json");
    FAIL() << "no error";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/switches/runs/0/measured_s"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("r.json"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)advise_switches(nlohmann::json::object(), "count", "r.json"), model::InputError);
}

}  // namespace
}  // namespace numatwin::validate
