// The other-work meter (validate/cpu_contention.hpp), worked by hand.
#include "numatwin/validate/host/cpu_contention.hpp"

#include <gtest/gtest.h>

namespace numatwin::validate {
namespace {

TEST(CpuContentionTest, BusyTimeIsEveryStateButIdleAndIowaitFromTheFirstLine) {
  // user 100, nice 20, system 30, idle 1000, iowait 50, irq 5, softirq 7, steal 8 (guest fields
  // after them are inside user and nice): busy = 100 + 20 + 30 + 5 + 7 + 8 = 170 ticks = 1.7 s at 100 Hz.
  const char* text = "cpu  100 20 30 1000 50 5 7 8 40 0\ncpu0 50 10 15 500 25 2 3 4 20 0\n";
  const std::optional<double> busy = machine_busy_s_from_proc_stat(text, 100.0);
  ASSERT_TRUE(busy.has_value());
  EXPECT_DOUBLE_EQ(*busy, 1.7);
}

TEST(CpuContentionTest, AShortOrForeignFirstLineIsNoReading) {
  EXPECT_FALSE(machine_busy_s_from_proc_stat("cpu  100 20 30 1000 50 5 7\n", 100.0).has_value());
  EXPECT_FALSE(machine_busy_s_from_proc_stat("cpu0 100 20 30 1000 50 5 7 8\n", 100.0).has_value());
  EXPECT_FALSE(machine_busy_s_from_proc_stat("", 100.0).has_value());
  EXPECT_FALSE(machine_busy_s_from_proc_stat("cpu  100 20 30 1000 50 5 7 8\n", 0.0).has_value());
}

TEST(CpuContentionTest, OtherShareIsTheBusyTimeThisProcessDidNotUseOverTheWindow) {
  // 10 s on 2 CPUs = 20 CPU-s; the machine was busy 14 s, this process used 4 s: other work
  // 10 s of 20 = 0.5.
  const CpuSample start{100.0, 1.0, 50.0, 2};
  const CpuSample end{114.0, 5.0, 60.0, 2};
  EXPECT_DOUBLE_EQ(other_work_share(start, end), 0.5);
  // Only this process: 0. More own time than the machine's (tick rounding): 0, not negative.
  EXPECT_DOUBLE_EQ(other_work_share(start, CpuSample{104.0, 5.0, 60.0, 2}), 0.0);
  EXPECT_DOUBLE_EQ(other_work_share(start, CpuSample{103.9, 5.0, 60.0, 2}), 0.0);
  // An empty window: 0.
  EXPECT_DOUBLE_EQ(other_work_share(start, start), 0.0);
}

TEST(CpuContentionTest, ThisMachineCanBeSampled) {
  const std::optional<CpuSample> s = sample_cpu();
  ASSERT_TRUE(s.has_value());
  EXPECT_GE(s->cpus, 1);
  EXPECT_GE(s->machine_busy_s, 0.0);
  EXPECT_GE(s->own_cpu_s, 0.0);
}

}  // namespace
}  // namespace numatwin::validate
