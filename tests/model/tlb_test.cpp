// The TLB model (model/tlb.hpp) worked by hand with the default figures: L1 64 entries (4 KiB) /
// 32 (2 MiB), STLB 1536 / 1536, stlb_hit_ns s = 3, walks W_4k = 30, W_2m = 20, 2 walkers.
// Reaches: 4 KiB L1 256 KiB, STLB 6 MiB; 2 MiB L1 64 MiB, STLB 3 GiB.
#include "numatwin/model/tlb.hpp"

#include <gtest/gtest.h>

namespace numatwin::model {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(TlbTest, ReachAndMissRatio) {
  const TlbFigures f;
  EXPECT_DOUBLE_EQ(tlb_reach_bytes(f.stlb_entries_4k, PageSize::k4KiB), 6.0 * kMiB);
  EXPECT_DOUBLE_EQ(tlb_reach_bytes(f.l1_entries_2m, PageSize::k2MiB), 64.0 * kMiB);
  // 12 MiB over a 6 MiB reach: half the accesses find their page.
  EXPECT_DOUBLE_EQ(tlb_miss_ratio(12.0 * kMiB, 6.0 * kMiB), 0.5);
  EXPECT_DOUBLE_EQ(tlb_miss_ratio(4.0 * kMiB, 6.0 * kMiB), 0.0);  // fits
  EXPECT_DOUBLE_EQ(tlb_miss_ratio(0.0, 6.0 * kMiB), 0.0);
}

TEST(TlbTest, TranslationPerAccessWorkedByHand) {
  const TlbFigures f;
  // F = 12 MiB, 4 KiB pages: m1 = 1 - 0.25 / 12 = 0.979167, m2 = 0.5:
  // t = (0.979167 - 0.5) x 3 + 0.5 x 30 = 1.4375 + 15 = 16.4375 ns; 2 MiB pages: F inside the
  // L1's 64 MiB, t = 0; so extra = 16.4375 with one access in flight, half that with 16 or more
  // (O = C = 2), and with 4: O = 1 + (2 - 1) x 3 / 15 = 1.2, 16.4375 / 1.2 = 13.697917.
  EXPECT_NEAR(translation_ns_per_access(f, 12.0 * kMiB, PageSize::k4KiB, 1.0), 16.4375, 1e-9);
  EXPECT_DOUBLE_EQ(translation_ns_per_access(f, 12.0 * kMiB, PageSize::k2MiB, 1.0), 0.0);
  EXPECT_NEAR(extra_translation_ns(f, 12.0 * kMiB, PageSize::k4KiB, 1.0), 16.4375, 1e-9);
  EXPECT_NEAR(extra_translation_ns(f, 12.0 * kMiB, PageSize::k4KiB, 19.0), 8.21875, 1e-9);
  EXPECT_NEAR(extra_translation_ns(f, 12.0 * kMiB, PageSize::k4KiB, 4.0), 16.4375 / 1.2, 1e-9);
  TlbFigures overlapping = f;
  overlapping.concurrent_walks = 100.0;  // O(16) = 100, O(8.5) = 1 + 99 x 0.5 = 50.5
  EXPECT_NEAR(extra_translation_ns(overlapping, 12.0 * kMiB, PageSize::k4KiB, 8.5), 16.4375 / 50.5, 1e-9);
  // F = 4 MiB: inside the STLB's reach, only L1 misses: m1 = 1 - 0.25 / 4 = 0.9375, t = 2.8125.
  EXPECT_NEAR(translation_ns_per_access(f, 4.0 * kMiB, PageSize::k4KiB, 1.0), 2.8125, 1e-9);
  // F = 1 GiB: 2 MiB pages miss the L1 1 - 64 / 1024 = 0.9375, never the STLB: 2.8125 ns;
  // 4 KiB pages: m1 = 1 - 0.25 / 1024 = 0.999756, m2 = 1 - 6 / 1024 = 0.994141:
  // t = 0.005615 x 3 + 0.994141 x 30 = 29.841064; extra = 29.841064 - 2.8125 = 27.028564.
  EXPECT_NEAR(translation_ns_per_access(f, 1024.0 * kMiB, PageSize::k2MiB, 1.0), 2.8125, 1e-9);
  EXPECT_NEAR(translation_ns_per_access(f, 1024.0 * kMiB, PageSize::k4KiB, 1.0), 29.84106445, 1e-7);
  EXPECT_NEAR(extra_translation_ns(f, 1024.0 * kMiB, PageSize::k4KiB, 1.0), 27.02856445, 1e-7);
  // 2 MiB pages add nothing over themselves: the default setting changes no prediction.
  EXPECT_DOUBLE_EQ(extra_translation_ns(f, 1024.0 * kMiB, PageSize::k2MiB, 1.0), 0.0);
}

TEST(TlbTest, PageSettingsPerBuffer) {
  EXPECT_EQ(page_size_of(HugePages::kOn, BufferKind::kAllocatorHeap), PageSize::k2MiB);
  EXPECT_EQ(page_size_of(HugePages::kOff, BufferKind::kPlaced), PageSize::k4KiB);
  EXPECT_EQ(page_size_of(HugePages::kMadvise, BufferKind::kPlaced), PageSize::k2MiB);
  EXPECT_EQ(page_size_of(HugePages::kMadvise, BufferKind::kAllocatorHeap), PageSize::k4KiB);
  EXPECT_EQ(parse_huge_pages("madvise"), HugePages::kMadvise);
  EXPECT_FALSE(parse_huge_pages("always").has_value());
  EXPECT_EQ(huge_pages_name(HugePages::kOff), "off");
}

TEST(TlbTest, BasisNamesTheFiguresGivenAndTheDefaults) {
  EXPECT_NE(tlb_basis(std::nullopt).description().find("defaults"), std::string::npos);
  EXPECT_EQ(tlb_basis(std::nullopt).figures, TlbFigures{});
  TlbSpec spec;
  spec.stlb_entries_4k = 512;
  spec.page_walk_ns_4k = 70.0;
  spec.source = "a datasheet";
  const TlbBasis b = tlb_basis(spec);
  EXPECT_EQ(b.figures.stlb_entries_4k, 512);
  EXPECT_EQ(b.figures.page_walk_ns_4k, 70.0);
  EXPECT_EQ(b.figures.l1_entries_4k, 64);  // default
  EXPECT_EQ(b.given, (std::vector<std::string>{"stlb_entries_4k", "page_walk_ns_4k"}));
  EXPECT_EQ(b.defaulted.size(), 6u);
  EXPECT_EQ(b.description(),
            "tlb: stlb_entries_4k, page_walk_ns_4k from a datasheet; defaults: l1_entries_4k, l1_entries_2m, stlb_entries_2m, "
            "stlb_hit_ns, page_walk_ns_2m, concurrent_walks");
}

}  // namespace
}  // namespace numatwin::model
