// The TLB microbenchmark's derivation (validate/tlb_microbenchmark.hpp) on synthetic timings, and
// the page setting a run's prediction uses from the system's transparent huge pages
// (validate/huge_pages_state.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "numatwin/validate/host/huge_pages_state.hpp"
#include "numatwin/validate/measure/tlb_microbenchmark.hpp"

namespace numatwin::validate {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

TlbTimings synthetic(double t4k, double t2m) {
  TlbTimings t;
  t.footprint_bytes = kGiB;
  t.small_pages = {t4k, t4k - 1.0, t4k + 1.0, 0.0};
  t.huge_pages = {t2m, t2m - 1.0, t2m + 1.0, 1.0};
  return t;
}

TEST(TlbMicrobenchmarkTest, DerivesTheWalkTheModelWouldHaveUsed) {
  // Default figures, F = 1 GiB: the model (model/tlb_test.cpp) gives 4 KiB pages 27.02856445 ns
  // more per dependent load than 2 MiB pages with W_4k = 30; timings that differ by exactly that
  // give back W_4k = 30: (27.02856445 - (0.999756 - 0.994141) x 3 + (0.9375 - 0) x 3 + 0) / 0.994141.
  const model::TlbFigures f;
  const PageWalkDerivation d = derive_page_walk(synthetic(120.0 + 27.02856445, 120.0), f);
  ASSERT_TRUE(d.derived) << d.why_not;
  EXPECT_NEAR(d.page_walk_ns_4k, 30.0, 1e-6);
  EXPECT_NEAR(d.m2_4k, 1.0 - 6.0 / 1024.0, 1e-12);
  EXPECT_NEAR(d.m1_2m, 0.9375, 1e-12);
  EXPECT_EQ(d.m2_2m, 0.0);
  // Range: t_4k's low with t_2m's high, +-1 ns each: (27.0286 - 2 + 2.8125 - 0.0168) / 0.994141.
  EXPECT_NEAR(d.low_ns, 30.0 - 2.0 / d.m2_4k, 1e-6);
  EXPECT_NEAR(d.high_ns, 30.0 + 2.0 / d.m2_4k, 1e-6);
  EXPECT_NE(d.derivation.find("= 30 ns"), std::string::npos) << d.derivation;
}

TEST(TlbMicrobenchmarkTest, RefusesWhatItCannotSee) {
  const model::TlbFigures f;
  TlbTimings not_huge = synthetic(150.0, 120.0);
  not_huge.huge_pages.huge_page_share = 0.4;
  EXPECT_FALSE(derive_page_walk(not_huge, f).derived);
  EXPECT_NE(derive_page_walk(not_huge, f).why_not.find("40 %"), std::string::npos);
  TlbTimings small = synthetic(150.0, 120.0);
  small.footprint_bytes = 8.0 * 1024 * 1024;  // m2_4k = 1 - 6 / 8 = 0.25 < 0.5
  EXPECT_FALSE(derive_page_walk(small, f).derived);
  // 4 KiB pages 3 ns faster: -3 + 2.81 - 0.02 < 0, no walk to see.
  EXPECT_FALSE(derive_page_walk(synthetic(117.0, 120.0), f).derived);
}

TEST(HugePagesStateTest, ReadsTheBracketedChoices) {
  EXPECT_EQ(bracketed_choice("always [madvise] never"), "madvise");
  EXPECT_EQ(bracketed_choice("always defer defer+madvise [madvise] never"), "madvise");
  EXPECT_EQ(bracketed_choice("[always] madvise never"), "always");
  EXPECT_EQ(bracketed_choice("always madvise never"), "");
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "numatwin-thp-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "enabled") << "always madvise [never]\n";
  const TransparentHugePages partial = read_transparent_huge_pages(dir.string());
  EXPECT_EQ(partial.enabled, "never");
  EXPECT_EQ(partial.defrag, "");
  EXPECT_NE(partial.why.find("defrag is not readable"), std::string::npos);
  std::ofstream(dir / "defrag") << "always [defer] defer+madvise madvise never\n";
  const TransparentHugePages both = read_transparent_huge_pages(dir.string());
  EXPECT_EQ(both.defrag, "defer");
  EXPECT_TRUE(both.why.empty());
  std::filesystem::remove_all(dir);
}

TEST(HugePagesStateTest, ThePredictionUsesThePagesTheRunGets) {
  using model::HugePages;
  EXPECT_EQ(effective_huge_pages(HugePages::kOn, "madvise"), HugePages::kMadvise);
  EXPECT_EQ(effective_huge_pages(HugePages::kMadvise, "always"), HugePages::kOn);
  EXPECT_EQ(effective_huge_pages(HugePages::kOn, "never"), HugePages::kOff);
  EXPECT_EQ(effective_huge_pages(HugePages::kOff, "always"), HugePages::kOff);
  EXPECT_EQ(effective_huge_pages(HugePages::kMadvise, ""), HugePages::kMadvise);
}

}  // namespace
}  // namespace numatwin::validate

namespace numatwin::validate {
namespace {

TEST(TlbMicrobenchmarkTest, DerivesTheWalksInFlightFromSixteenChains) {
  // One chain: 4 KiB pages 27.02856445 ns slower per load (W_4k = 30 above); 16 chains: 6.75714 ns
  // slower, a quarter of it: the model's Δ_1 / min(16, C) with C = 4.
  TlbTimings t;
  t.footprint_bytes = 1024.0 * 1024.0 * 1024.0;
  t.small_pages = {147.02856445, 147.02856445, 147.02856445, 0.0};
  t.huge_pages = {120.0, 120.0, 120.0, 1.0};
  t.small_pages_parallel = {20.0 + 27.02856445 / 4.0, 20.0 + 27.02856445 / 4.0, 20.0 + 27.02856445 / 4.0, 0.0};
  t.huge_pages_parallel = {20.0, 20.0, 20.0, 1.0};
  const PageWalkDerivation d = derive_page_walk(t, model::TlbFigures{});
  ASSERT_TRUE(d.walks_derived) << d.walks_derivation;
  EXPECT_NEAR(d.concurrent_walks, 4.0, 1e-9);
  // No difference with 16 chains: not derived; a tiny one: an overlap beyond 16 (the walks hide
  // under the misses), 27.02856445 / 0.01 = 2702.86.
  t.small_pages_parallel.median_ns = 20.0;
  EXPECT_FALSE(derive_page_walk(t, model::TlbFigures{}).walks_derived);
  t.small_pages_parallel.median_ns = 20.01;
  EXPECT_NEAR(derive_page_walk(t, model::TlbFigures{}).concurrent_walks, 2702.856445, 1e-3);
}

}  // namespace
}  // namespace numatwin::validate
