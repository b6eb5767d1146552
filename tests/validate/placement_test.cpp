#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/measure/machine_measurement.hpp"
#include "numatwin/validate/measure/memory_kernels.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/discover/placement_selfcheck.hpp"

namespace numatwin::validate {
namespace {

int first_memory_node() {
  for (const DiscoveredNode& n : discover_machine().nodes) {
    if (n.memory_bytes > 0 && n.memory_allowed) return n.os_index;
  }
  return 0;
}

TEST(PlacementTest, BindPutsEveryPageOnTheNodeAndMoveKeepsThem) {
  const int node = first_memory_node();
  NodeMemory memory(64 * page_bytes(), MemoryPolicyKind::kBind, {node}, false);
  const PagePlacement before = page_placement(memory.data(), memory.bytes());
  EXPECT_EQ(before.pages, 64u);
  EXPECT_EQ(before.pages_not_present, 64u);  // nothing touched yet
  memory.touch();
  const PagePlacement after = page_placement(memory.data(), memory.bytes());
  EXPECT_DOUBLE_EQ(after.fraction_on(node), 1.0) << after.text();
  EXPECT_EQ(move_pages_to(memory.data(), memory.bytes(), node), 64u);
}

TEST(PlacementTest, PinnedThreadRunsOnItsCpu) {
  const ThreadPinner pinner;
  const int node = first_memory_node();
  const std::vector<int> cpus = pinner.node_cpus(node);
  ASSERT_FALSE(cpus.empty());
  for (int cpu : cpus) {
    int ran_on = -1;
    std::thread([&] {
      pinner.pin_current_thread(cpu);
      ran_on = current_cpu();
    }).join();
    EXPECT_EQ(ran_on, cpu);
    EXPECT_EQ(node_of_cpu(ran_on), node);
  }
}

TEST(PlacementTest, PointerChaseVisitsEveryLineOnce) {
  constexpr std::size_t kLines = 1024;
  std::vector<std::byte> buffer(kLines * kCacheLineBytes);
  const void* start = build_pointer_chase(buffer.data(), kLines, 42);
  // One cycle through all lines: after kLines steps we are back, and not before.
  const void* p = start;
  for (std::size_t step = 1; step <= kLines; ++step) {
    p = *static_cast<const void* const*>(p);
    if (step < kLines) {
      ASSERT_NE(p, start) << "cycle of length " << step;
    }
  }
  EXPECT_EQ(p, start);
  EXPECT_EQ(chase_pointers(start, kLines), start);
}

TEST(MeasureTest, QuickRunRecordsPlacementOfEveryPoint) {
  MeasureOptions options;
  options.quick = true;
  options.likwid = false;
  options.seconds_per_point = 0.01;
  int progress_calls = 0;
  options.progress = [&](const MeasureProgress& p) {
    ++progress_calls;
    EXPECT_LT(p.done, p.total);
  };
  const nlohmann::ordered_json report = measure_machine(options);
  EXPECT_EQ(report["format"], "numatwin-measurements");
  EXPECT_TRUE(report["complete"].get<bool>());
  EXPECT_TRUE(report["host"].contains("kernel"));
  EXPECT_TRUE(report["host"].contains("thp_enabled"));
  EXPECT_TRUE(report["host"].contains("numa_balancing"));
  ASSERT_FALSE(report["bandwidth"].empty());
  ASSERT_FALSE(report["idle_latency"].empty());
  EXPECT_GT(progress_calls, 0);
  for (const auto& point : report["bandwidth"]) {
    EXPECT_GT(point["bandwidth_gbps"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(point["pages"]["fraction_on_memory_node"].get<double>(), 1.0);
    EXPECT_EQ(point["threads_observed"].size(), point["threads"].get<std::size_t>());
    for (const auto& thread : point["threads_observed"]) {
      EXPECT_EQ(thread["cpu_end"], thread["cpu"]);
      EXPECT_EQ(thread["node"], point["cpu_node"]);
    }
  }
  for (const auto& point : report["idle_latency"]) {
    EXPECT_GT(point["latency_ns"].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(point["pages"]["fraction_on_memory_node"].get<double>(), 1.0);
  }
  EXPECT_EQ(report["likwid"]["counters"], "not measured: likwid disabled (--no-likwid)");
}

TEST(MeasureTest, StopRequestEndsTheRunKeepingTheFinishedPart) {
  std::atomic<bool> stop{true};
  MeasureOptions options;
  options.quick = true;
  options.likwid = false;
  options.stop = &stop;
  const nlohmann::ordered_json report = measure_machine(options);
  EXPECT_FALSE(report["complete"].get<bool>());
  EXPECT_TRUE(report["interrupted"].get<bool>());
  EXPECT_TRUE(report["bandwidth"].empty());
}

TEST(SelfCheckTest, PassesHereAndFailsOnWrongExpectations) {
  const std::vector<SelfCheck> checks = run_placement_selfcheck({});
  ASSERT_FALSE(checks.empty());
  for (const SelfCheck& c : checks) EXPECT_TRUE(c.passed) << c.name << ": " << c.detail;

  SelfCheckOptions wrong;
  wrong.expected_distances = std::vector<std::vector<int>>{{10, 20}, {20, 10}};
  bool distance_check_failed = false;
  for (const SelfCheck& c : run_placement_selfcheck(wrong)) {
    if (c.name == "distance matrix") distance_check_failed = !c.passed;
  }
  EXPECT_TRUE(distance_check_failed);
}

TEST(SelfCheckTest, ExpectationFilesAndLinkListsAreChecked) {
  EXPECT_EQ(parse_link_list("1-0,2-3"), (std::vector<std::pair<int, int>>{{0, 1}, {2, 3}}));
  EXPECT_THROW(parse_link_list("0-0"), std::invalid_argument);
  EXPECT_THROW(parse_link_list("01"), std::invalid_argument);
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "numatwin-selfcheck-test.txt";
  {
    std::ofstream out(file);
    out << "# comment\n10 12\n12 10 12\n";
  }
  try {
    read_distance_matrix(file.string());
    FAIL() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3: expected 2 values, found 3"), std::string::npos) << e.what();
  }
  {
    std::ofstream out(file);
    out << "10 12 # two nodes\n12 10\n";
  }
  EXPECT_EQ(read_distance_matrix(file.string()), (std::vector<std::vector<int>>{{10, 12}, {12, 10}}));
  std::filesystem::remove(file);
}

// With huge pages a mapping starts on a 2 MiB boundary, so ranges laid out in whole huge pages
// (one per thread) never share a huge page; without, a base page boundary is enough. Several
// sizes, since mmap's own placement varies: every one must be aligned.
TEST(PlacementTest, HugePageMappingsStartOnAHugePageBoundary) {
  for (std::size_t bytes : {std::size_t{4096}, std::size_t{3} << 20, (std::size_t{16} << 20) + 4096}) {
    const NodeMemory huge(bytes, MemoryPolicyKind::kLocal, {}, true);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(huge.data()) % kHugePageBytes, 0U) << bytes;
    EXPECT_GE(huge.bytes(), bytes);
    huge.data()[huge.bytes() - 1] = std::byte{1};  // the whole range is mapped and writable
    const NodeMemory small(bytes, MemoryPolicyKind::kLocal, {}, false);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.data()) % page_bytes(), 0U) << bytes;
  }
}

// Weights (2, 1): units 0, 1 on the first node, 2 on the second, then again from 3 (the kernel's
// "2 pages allocated on node 0 for every 1 page allocated on node 1"). Weights (1, 3, 2): a
// cycle of 6 laid out 0 | 1 1 1 | 2 2.
TEST(PlacementTest, WeightedInterleaveLaysUnitsOutInRunsOfTheirWeights) {
  const std::vector<std::size_t> two_one = {0, 0, 1, 0, 0, 1, 0};
  for (std::size_t u = 0; u < two_one.size(); ++u) EXPECT_EQ(weighted_interleave_slot(u, {2, 1}), two_one[u]) << u;
  const std::vector<std::size_t> one_three_two = {0, 1, 1, 1, 2, 2, 0, 1};
  for (std::size_t u = 0; u < one_three_two.size(); ++u) {
    EXPECT_EQ(weighted_interleave_slot(u, {1, 3, 2}), one_three_two[u]) << u;
  }
  EXPECT_EQ(weighted_interleave_slot(1000, {5}), 0U);
}

// Two workers' ranges split a region mid-page: each unit is placed once, by the worker whose
// range holds its first byte, and every page ends up present on this machine's node. On one
// node both weights name node 0, so this checks the split and the faulting, not the nodes
// (the emulated CPU-less guest checks the nodes: tests/emu/guest_init.sh).
TEST(PlacementTest, WeightedPlacementPlacesEveryUnitOnceAcrossRanges) {
  const std::size_t page = page_bytes();
  const NodeMemory memory(10 * page, MemoryPolicyKind::kLocal, {}, false);
  const std::size_t split = 4 * page + 100;  // unit 4 starts before the split: the first range's
  const std::size_t first = place_weighted(memory.data(), memory.bytes(), 0, split, {0, 0}, {1, 3}, page);
  const std::size_t second = place_weighted(memory.data(), memory.bytes(), split, memory.bytes(), {0, 0}, {1, 3}, page);
  EXPECT_EQ(first, 5U);   // units 0..4
  EXPECT_EQ(second, 5U);  // units 5..9
  const PagePlacement placement = page_placement(memory.data(), memory.bytes());
  EXPECT_EQ(placement.pages_not_present, 0U) << placement.text();
  EXPECT_EQ(placement.pages_per_node.size(), 1U) << placement.text();
  EXPECT_THROW(place_weighted(memory.data(), memory.bytes(), 0, page, {0}, {0}, page), std::invalid_argument);
  EXPECT_THROW(place_weighted(memory.data(), memory.bytes(), 0, page, {0, 0}, {1}, page), std::invalid_argument);
  EXPECT_THROW(place_weighted(memory.data(), memory.bytes(), 0, page, {0}, {256}, page), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
