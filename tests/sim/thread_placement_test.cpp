// Thread placement worked by hand on nehalem-ex-4s (4 nodes x 8 cores x 2 threads: CPUs 0-31
// are the first hardware threads of cores 0-31, CPUs 32-63 their siblings).
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"

namespace numatwin::sim {
namespace {

model::Topology nehalem() {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "nehalem-ex-4s.json");
}

TEST(ThreadPlacementTest, DenseFillsNodesThenSiblings) {
  const auto placed = place_threads(nehalem(), 40, ThreadPlacement{});
  EXPECT_EQ(placed[0].cpu, 0);
  EXPECT_EQ(placed[7].node, 0);
  EXPECT_EQ(placed[8].node, 1);   // node 0's 8 cores are full
  EXPECT_EQ(placed[31].node, 3);
  EXPECT_EQ(placed[32].cpu, 32);  // then the siblings: core 0, second hardware thread
  EXPECT_EQ(placed[32].core, 0);
  EXPECT_EQ(placed[32].hardware_thread, 1);
}

TEST(ThreadPlacementTest, SparseGoesRoundRobinOverNodes) {
  const auto placed = place_threads(nehalem(), 6, ThreadPlacement{PlacementKind::kSparse, {}});
  const std::vector<int> nodes = {0, 1, 2, 3, 0, 1};
  const std::vector<int> cpus = {0, 8, 16, 24, 1, 9};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(placed[i].node, nodes[i]) << i;
    EXPECT_EQ(placed[i].cpu, cpus[i]) << i;
  }
}

TEST(ThreadPlacementTest, ExplicitCpuListMapsToCoresAndSiblings) {
  const ThreadPlacement p = parse_placement("9,40-41");
  ASSERT_EQ(p.cpus, (std::vector<int>{9, 40, 41}));
  const auto placed = place_threads(nehalem(), 3, p);
  EXPECT_EQ(placed[0].node, 1);
  EXPECT_EQ(placed[1].core, 8);  // CPU 40 = sibling of core 8
  EXPECT_EQ(placed[1].hardware_thread, 1);
  EXPECT_EQ(placed[2].node, 1);
}

TEST(ThreadPlacementTest, RejectsBadPlacements) {
  const model::Topology t = nehalem();
  EXPECT_THROW(place_threads(t, 65, ThreadPlacement{}), std::invalid_argument);
  EXPECT_THROW(place_threads(t, 2, parse_placement("3,64")), std::invalid_argument);  // CPU 64 missing
  EXPECT_THROW(place_threads(t, 2, parse_placement("3,3")), std::invalid_argument);   // repeated
  EXPECT_THROW(place_threads(t, 3, parse_placement("1,2")), std::invalid_argument);   // too few
  EXPECT_THROW(parse_placement("compact"), std::invalid_argument);
  EXPECT_THROW(parse_placement("1,"), std::invalid_argument);
  EXPECT_THROW(parse_placement("5-2"), std::invalid_argument);
  try {
    place_threads(t, 2, parse_placement("3,64"));
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("CPU 64 does not exist"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace numatwin::sim
