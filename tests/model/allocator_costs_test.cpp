// Allocator costs (model/allocator_costs.hpp): the lookup worked by hand (row, size class,
// interpolation in log2 of the size), the defaults flagged, the topology file's
// /allocator_costs read, written back exactly, and bad entries named by their JSON pointer.
#include "numatwin/model/allocator_costs.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"
#include "model_test_machines.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;

AllocatorCosts two_rows() {
  AllocatorCosts c;
  c.allocator = "jemalloc";
  c.overhead_ratio = 1.25;
  c.host = "testhost (6.1.0)";
  c.measured_at = "2026-11-26T16:00:00Z";
  c.source = "a test";
  //          threads size   malloc free realloc remote
  c.points = {{1, 16, 10.0, 5.0, 40.0, 20.0},
              {1, 64, 30.0, 9.0, 80.0, 60.0},
              {2, 16, 12.0, 6.0, 44.0, 24.0},
              {2, 64, 36.0, 11.0, 88.0, 64.0}};
  return c;
}

TEST(AllocatorCostsTest, LookupWorkedByHand) {
  const AllocatorCosts c = two_rows();
  // 16 bytes at 1 thread: the point itself.
  AllocatorCostAt at = allocator_cost_at(&c, 1, 16);
  EXPECT_FALSE(at.is_default);
  EXPECT_DOUBLE_EQ(at.malloc_ns, 10.0);
  // 24 bytes rounds up to its class, 32 = 2^5, halfway in log2 between 2^4 and 2^6:
  // malloc = 10 + 0.5 (30 - 10) = 20; free = 5 + 0.5 (9 - 5) = 7; realloc = 40 + 0.5 x 40 = 60.
  at = allocator_cost_at(&c, 1, 24);
  EXPECT_DOUBLE_EQ(at.malloc_ns, 20.0);
  EXPECT_DOUBLE_EQ(at.free_ns, 7.0);
  EXPECT_DOUBLE_EQ(at.realloc_ns, 60.0);
  EXPECT_DOUBLE_EQ(at.remote_free_ns, 40.0);
  // 4 threads: beyond the measured rows, the largest row (2) is carried; 1000 bytes is above
  // the largest class, clamped to 64: malloc 36.
  at = allocator_cost_at(&c, 4, 1000);
  EXPECT_DOUBLE_EQ(at.malloc_ns, 36.0);
  EXPECT_DOUBLE_EQ(at.remote_free_ns, 64.0);
  // 3 bytes: below the smallest class, clamped to 16; 2 threads' row.
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 2, 3).free_ns, 6.0);
}

TEST(AllocatorCostsTest, MissingAllocatorUsesTheDefaultsAndSaysSo) {
  const std::vector<AllocatorCosts> none;
  EXPECT_EQ(find_allocator_costs(none, "tcmalloc"), nullptr);
  const AllocatorCostAt at = allocator_cost_at(nullptr, 2, 100);
  EXPECT_TRUE(at.is_default);
  // The default realloc: 40 + 0.1 x 100 = 50 ns.
  EXPECT_DOUBLE_EQ(at.realloc_ns, 50.0);
  EXPECT_THROW((void)allocator_cost_at(nullptr, 0, 100), std::invalid_argument);
  EXPECT_THROW((void)allocator_cost_at(nullptr, 1, 0), std::invalid_argument);
}

TEST(AllocatorCostsTest, CheckNamesTheBadFigure) {
  AllocatorCosts c = two_rows();
  c.points[1].size_bytes = 48;
  EXPECT_THROW(check_allocator_costs(c), std::invalid_argument);
  c = two_rows();
  c.points[3].threads = 2;
  c.points[3].size_bytes = 16;  // a second (2, 16)
  EXPECT_THROW(check_allocator_costs(c), std::invalid_argument);
  c = two_rows();
  c.points[0].free_ns = -1.0;
  EXPECT_THROW(check_allocator_costs(c), std::invalid_argument);
  EXPECT_NO_THROW(check_allocator_costs(two_rows()));
}

using test_machines::small_machine;

TEST(AllocatorCostsTest, TopologyFileRoundTripIsExact) {
  Topology t = small_machine();
  t.allocator_costs = {two_rows()};
  const std::string text = topology_to_json_text(t);
  const Topology back = parse_topology(text, "m.json");
  EXPECT_EQ(back.allocator_costs, t.allocator_costs);
  EXPECT_EQ(topology_to_json_text(back), text);
}

void expect_error(Json doc, const std::string& pointer, const std::string& part) {
  try {
    parse_topology(doc.dump(), "m.json");
    ADD_FAILURE() << "accepted " << doc["allocator_costs"].dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("m.json"), std::string::npos) << e.what();
  }
}

TEST(AllocatorCostsTest, BadEntriesAreNamedByTheirPointer) {
  Topology t = small_machine();
  t.allocator_costs = {two_rows()};
  const Json good = Json::parse(topology_to_json_text(t));
  Json doc = good;
  doc["allocator_costs"]["jemalloc"]["points"][1]["size_bytes"] = 48;
  expect_error(doc, "/allocator_costs/jemalloc/points/1/size_bytes", "power of two");
  doc = good;
  doc["allocator_costs"]["jemalloc"]["points"][0]["malloc_ns"] = -3;
  expect_error(doc, "/allocator_costs/jemalloc/points/0/malloc_ns", ">= 0");
  doc = good;
  doc["allocator_costs"]["jemalloc"].erase("host");
  expect_error(doc, "/allocator_costs/jemalloc/host", "");
  doc = good;
  doc["allocator_costs"]["jemalloc"]["points"][3] = doc["allocator_costs"]["jemalloc"]["points"][2];
  expect_error(doc, "/allocator_costs/jemalloc/points/3", "one point per");
  doc = good;
  doc["allocator_costs"]["jemalloc"]["points"] = Json::array();
  expect_error(doc, "/allocator_costs/jemalloc/points", "at least one");
  doc = good;
  doc["allocator_costs"]["jemalloc"]["colour"] = "red";
  expect_error(doc, "/allocator_costs/jemalloc/colour", "");
}

}  // namespace
}  // namespace numatwin::model
