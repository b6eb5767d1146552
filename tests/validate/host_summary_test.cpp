// hwloc and libnuma see this machine: counts are consistent with each other.
#include <gtest/gtest.h>

#include <thread>

#include "numatwin/validate/host/host_summary.hpp"

namespace numatwin::validate {
namespace {

TEST(HostSummaryTest, CountsAreConsistent) {
  const HostSummary s = read_host_summary();
  EXPECT_GE(s.numa_nodes, 1);
  EXPECT_GE(s.cores, 1);
  EXPECT_GE(s.hardware_threads, s.cores);
  EXPECT_GE(s.cores, s.packages);
  // The process may be limited to fewer CPUs than the machine has, never more.
  EXPECT_LE(static_cast<int>(std::thread::hardware_concurrency()), s.hardware_threads);
  EXPECT_EQ(s.hwloc_api_version.substr(0, 2), "2.");
}

}  // namespace
}  // namespace numatwin::validate
