// The subarray filter's real kernel: the inner loop on arrays worked by hand, and whole runs on
// this machine verified against the serial reference, under each memory policy.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <vector>

#include "numatwin/validate/kernels/subarray_kernel.hpp"
#include "numatwin/validate/run/subarray_run.hpp"
#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

using test_support::this_machine;

TEST(SubarrayKernelTest, AppendsExactlyTheCellsBelowTheThresholdInClaimBlocks) {
  // 200 cells i / 200: below 0.5 are the first 100 (0, 0.005, ..., 0.495). Filtering [10, 150)
  // appends cells 10..99: 90 values, claimed as one block of 64 and a last one of 26.
  std::vector<double> cells(200);
  for (std::size_t i = 0; i < cells.size(); ++i) cells[i] = static_cast<double>(i) / 200.0;
  std::vector<double> result(200, -1.0);
  std::atomic<std::uint64_t> cursor{0};
  const SubarrayTotals t = subarray_filter(cells.data(), 10, 150, 0.5, result.data(), cursor);
  EXPECT_EQ(t.selected, 90u);
  EXPECT_EQ(cursor.load(), 90u);
  std::uint64_t bits = 0;
  for (std::size_t i = 10; i < 100; ++i) bits += std::bit_cast<std::uint64_t>(cells[i]);
  EXPECT_EQ(t.bits, bits);
  std::vector<double> got(result.begin(), result.begin() + 90);
  std::vector<double> want(cells.begin() + 10, cells.begin() + 100);
  EXPECT_EQ(got, want);  // one thread: appended in order
  EXPECT_EQ(result[90], -1.0);
  // A second slice appends behind the first through the same cursor.
  const SubarrayTotals more = subarray_filter(cells.data(), 0, 10, 0.5, result.data(), cursor);
  EXPECT_EQ(more.selected, 10u);
  EXPECT_EQ(cursor.load(), 100u);
  EXPECT_EQ(result[90], 0.0);
}

TEST(SubarrayKernelTest, CellValuesSelectTheirShare) {
  // Uniform in [0, 1): of 1e5 cells, 10 % +- 5 sigma (sigma = sqrt(1e5 x 0.1 x 0.9) = 95).
  int below = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    const double v = subarray_cell_value(i);
    ASSERT_GE(v, 0.0);
    ASSERT_LT(v, 1.0);
    below += v < 0.1 ? 1 : 0;
  }
  EXPECT_NEAR(below, 10000, 5 * 95);
}

RunOptions quick() {
  RunOptions o;
  o.repetitions = 2;
  return o;
}

sim::WorkloadSpec spec_of(int threads, int per_chunk, const std::string& memory) {
  sim::WorkloadSpec spec;
  spec.kind = sim::WorkloadKind::kSubarray;
  spec.threads = threads;
  if (threads > this_machine().topology.total_cores()) spec.placement.kind = sim::PlacementKind::kNone;
  spec.data.records = 100003;  // not a multiple of the chunks: chunks of unequal length
  spec.data.chunks = 7;
  spec.data.threads_per_chunk = per_chunk;
  spec.data.selectivity = 0.3;
  spec.memory = sim::parse_memory_policy(memory, this_machine().topology);
  return spec;
}

TEST(SubarrayRunTest, EveryLayoutAndPolicyMatchesTheReference) {
  // Two threads (this machine's CPUs) in one group of two, or in two groups of one with 4 and
  // 3 chunks (unequal first-touch shares); groups of three asked for two threads: one group of two.
  for (int per_chunk : {1, 2, 3}) {
    for (const char* memory : {"first-touch", "first-touch:loader", "interleave"}) {
      const sim::WorkloadSpec spec = spec_of(2, per_chunk, memory);
      const RealRun run = run_subarray_workload(this_machine().topology, this_machine().host, spec, quick());
      EXPECT_TRUE(run.verified) << per_chunk << " " << memory;
      EXPECT_EQ(run.work, 100003.0);
      ASSERT_EQ(run.datasets.size(), 2u);
      EXPECT_GT(run.seconds, 0.0);
    }
  }
}

TEST(SubarrayRunTest, BadSpecsAreRefusedBeforeAnyWork) {
  sim::WorkloadSpec spec = spec_of(2, 2, "first-touch");
  spec.element_bytes = 16;
  EXPECT_THROW(run_subarray_workload(this_machine().topology, this_machine().host, spec, quick()), std::invalid_argument);
  spec = spec_of(2, 2, "first-touch");
  spec.data.records = 1000.5;
  EXPECT_THROW(run_subarray_workload(this_machine().topology, this_machine().host, spec, quick()), std::invalid_argument);
  spec = spec_of(2, 2, "first-touch");
  spec.data.chunks = 0;
  EXPECT_THROW(run_subarray_workload(this_machine().topology, this_machine().host, spec, quick()), std::invalid_argument);
  spec = spec_of(2, 2, "first-touch");
  spec.data.selectivity = -0.1;
  EXPECT_THROW(run_subarray_workload(this_machine().topology, this_machine().host, spec, quick()), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
