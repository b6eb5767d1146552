// The allocator layout benchmark (validate/allocator_layout_bench.hpp): the derivation of the
// layout figures from fake timings worked by hand, and a small run's shape.
#include "numatwin/validate/alloc/allocator_layout_bench.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

namespace numatwin::validate {
namespace {

LayoutTimings fake() {
  LayoutTimings t;
  t.accesses = 1e6;
  t.base_write_s = 0.040;       // 40 ns per access
  t.dependent_write_s = 0.046;  // 46 ns: 6 ns more
  t.base_read_s = 0.040;
  t.dependent_read_s = 0.070;  // 30 ns more
  t.sampled = 1e5;
  t.touch_s = 0.010;    // 100 ns per object
  t.realloc_s = 0.060;  // 600 ns
  t.free_s = 0.035;     // 350 ns
  return t;
}

TEST(AllocatorLayoutBenchTest, DerivationFromFakeTimingsWorkedByHand) {
  // Footprint 128 MiB over an LLC of 32 MiB: m = 1 - 32 / 128 = 0.75 of the accesses miss.
  const double mib = 1024.0 * 1024.0;
  const LayoutCosts c = derive_layout_costs(fake(), 128 * mib, 32 * mib);
  EXPECT_NEAR(c.dependent_write_ns, 6.0 / 0.75, 1e-9);   // 8 ns per miss
  EXPECT_NEAR(c.dependent_read_ns, 30.0 / 0.75, 1e-9);   // 40 ns per miss
  EXPECT_NEAR(c.scattered_realloc_ns, 600.0 - 100.0, 1e-9);  // the read is the kernel's
  EXPECT_NEAR(c.scattered_free_ns, 350.0 - 100.0, 1e-9);
}

TEST(AllocatorLayoutBenchTest, LockedWriteWorkedByHand) {
  // The locked pass took 0.058 s against the dependent write's 0.046 (fake()): 12 ms over J = 1e6
  // accesses is 12 ns an access, over m = 0.75: 16 ns per LLC miss. Not run (0): 0.
  LayoutTimings t = fake();
  t.locked_write_s = t.dependent_write_s + 0.012;
  const double mib = 1024.0 * 1024.0;
  EXPECT_NEAR(derive_layout_costs(t, 128 * mib, 32 * mib).locked_write_ns, 16.0, 1e-9);
  t.locked_write_s = 0.0;
  EXPECT_DOUBLE_EQ(derive_layout_costs(t, 128 * mib, 32 * mib).locked_write_ns, 0.0);
}

TEST(AllocatorLayoutBenchTest, ReuseMallocWorkedByHand) {
  // 1e5 mallocs after the frees took 0.015 s: 150 ns each (the call only, nothing subtracted).
  LayoutTimings t = fake();
  t.reuse_malloc_s = 0.015;
  const double mib = 1024.0 * 1024.0;
  EXPECT_NEAR(derive_layout_costs(t, 128 * mib, 32 * mib).reuse_malloc_ns, 150.0, 1e-9);
  t.reuse_malloc_s = 0.0;  // not run
  EXPECT_DOUBLE_EQ(derive_layout_costs(t, 128 * mib, 32 * mib).reuse_malloc_ns, 0.0);
}

TEST(AllocatorLayoutBenchTest, BlockReadWorkedByHand) {
  // J_b = 2.5e5 chained block reads took 0.1 s (400 ns each), the same chain over cached blocks
  // 0.025 s (100 ns each): 300 ns more per block, over m = 0.75 (128 MiB over 32 MiB): 400 ns per
  // block that misses. A chain that ran faster cold than hot gives 0; not run (J_b = 0) gives 0.
  LayoutTimings t = fake();
  t.blocks = 2.5e5;
  t.block_read_s = 0.1;
  t.block_hot_s = 0.025;
  const double mib = 1024.0 * 1024.0;
  EXPECT_NEAR(derive_layout_costs(t, 128 * mib, 32 * mib).block_read_ns, 400.0, 1e-9);
  t.block_hot_s = 0.2;
  EXPECT_DOUBLE_EQ(derive_layout_costs(t, 128 * mib, 32 * mib).block_read_ns, 0.0);
  t.blocks = 0.0;
  t.block_hot_s = 0.025;
  EXPECT_DOUBLE_EQ(derive_layout_costs(t, 128 * mib, 32 * mib).block_read_ns, 0.0);
}

TEST(AllocatorLayoutBenchTest, SharedReallocWorkedByHand) {
  // The shared pass grew R' = 1.9e5 objects in 0.152 s; the touch pass read R = 2e5 in 0.010 s,
  // so 0.010 x 1.9e5 / 2e5 = 0.0095 s of it is the reads: (0.152 - 0.0095) / 1.9e5 = 750 ns.
  LayoutTimings t = fake();
  t.sampled = 2e5;
  t.touch_s = 0.010;
  t.shared_sampled = 1.9e5;
  t.shared_realloc_s = 0.152;
  const double mib = 1024.0 * 1024.0;
  EXPECT_NEAR(derive_layout_costs(t, 128 * mib, 32 * mib).shared_realloc_ns, 750.0, 1e-6);
  t.shared_sampled = 0.0;  // no shared pass (one thread): 0, not measured
  EXPECT_DOUBLE_EQ(derive_layout_costs(t, 128 * mib, 32 * mib).shared_realloc_ns, 0.0);
}

TEST(AllocatorLayoutBenchTest, NegativeDifferencesAreZeroAndTheMissShareHasAFloor) {
  LayoutTimings t = fake();
  t.dependent_write_s = 0.039;  // faster than the base: noise, 0
  t.touch_s = 0.070;            // slower than the realloc pass: 0
  const double mib = 1024.0 * 1024.0;
  // Footprint within the LLC: m would be 0; it is taken as 0.05.
  const LayoutCosts c = derive_layout_costs(t, 16 * mib, 32 * mib);
  EXPECT_DOUBLE_EQ(c.dependent_write_ns, 0.0);
  EXPECT_NEAR(c.dependent_read_ns, 30.0 / 0.05, 1e-9);
  EXPECT_DOUBLE_EQ(c.scattered_realloc_ns, 0.0);
  EXPECT_DOUBLE_EQ(c.scattered_free_ns, 0.0);
  t.accesses = 0.0;
  EXPECT_THROW((void)derive_layout_costs(t, 1.0, 1.0), std::invalid_argument);
}

TEST(AllocatorLayoutBenchTest, SmallRunGivesOnePointPerThreadsAndSize) {
  AllocatorLayoutBenchOptions o;
  o.max_threads = 2;
  o.sizes = {32, 256};
  o.repetitions = 1;
  o.bytes_per_thread = 1024.0 * 1024.0;
  o.llc_bytes = 256.0 * 1024.0;
  o.accesses = 2000;
  o.max_sampled = 500;
  const std::vector<model::AllocatorLayoutPoint> points = run_allocator_layout_bench(o);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].threads, 1);
  EXPECT_EQ(points[1].size_bytes, 256);
  EXPECT_EQ(points[3].threads, 2);
  for (const model::AllocatorLayoutPoint& p : points) {
    EXPECT_GE(p.scattered_realloc_ns, 0.0);
    EXPECT_GE(p.dependent_read_ns, 0.0);
    // The shared pass runs at 2 threads only (exactly 0 at 1 thread: not measured).
    if (p.threads == 1) EXPECT_EQ(p.shared_realloc_ns, 0.0);
    else EXPECT_GE(p.shared_realloc_ns, 0.0);
    EXPECT_GT(p.reuse_malloc_ns, 0.0);  // every point runs the reuse pass (its time is never 0)
    EXPECT_GE(p.block_read_ns, 0.0);
  }
  // A grow that copies takes time: at least one of the two 2-thread sizes shows it (one size alone
  // could read 0 if the thread lost its CPU during the short touch pass it is measured against).
  EXPECT_GT(std::max(points[2].shared_realloc_ns, points[3].shared_realloc_ns), 0.0);
  o.sizes = {16};
  EXPECT_THROW((void)run_allocator_layout_bench(o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
