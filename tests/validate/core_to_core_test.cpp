#include "numatwin/validate/measure/core_to_core.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

TEST(CoreToCoreTest, APingPongBetweenTwoCpusFinishesWithAPositiveLatency) {
  const auto& cpus = test_support::this_machine().host.node_cpus.front();
  if (cpus.size() < 2) GTEST_SKIP() << "needs two CPUs on the first node";
  CoreToCoreOptions options;
  options.round_trips = 200;
  options.trials = 3;
  const double ns = core_to_core_latency_ns(cpus[0], cpus[1], options);
  EXPECT_TRUE(std::isfinite(ns));
  EXPECT_GT(ns, 0.0);
}

TEST(CoreToCoreTest, RejectsOneCpuAndEmptyRuns) {
  EXPECT_THROW((void)core_to_core_latency_ns(0, 0), std::invalid_argument);
  CoreToCoreOptions none;
  none.trials = 0;
  EXPECT_THROW((void)core_to_core_latency_ns(0, 1, none), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
