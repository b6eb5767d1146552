// The dependent-miss grid (model/dependent_miss.hpp): the lookup worked by hand (bilinear in
// log2 k and linear in w, clamped outside the grid), the grid's checks, the topology file's
// /dependent_misses read and written back exactly, bad ones named by their JSON pointer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "numatwin/model/dependent_miss.hpp"
#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"
#include "model_test_machines.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;

// k in {1, 4}, w in {0, 2}: 10, 30 (k = 1); 50, 130 (k = 4).
DependentMissGrid small_grid() {
  DependentMissGrid g;
  g.work_unit_ns = 2.5;
  g.host = "h";
  g.measured_at = "2026-11-27T09:00:00Z";
  g.source = "s";
  g.points = {{1.0, 0.0, 10.0, {}, {}, {}}, {1.0, 2.0, 30.0, {}, {}, {}}, {4.0, 0.0, 50.0, {}, {}, {}}, {4.0, 2.0, 130.0, {}, {}, {}}};
  return g;
}

TEST(DependentMissTest, LookupIsBilinearInLog2KAndW) {
  const DependentMissGrid g = small_grid();
  // On the grid: the points themselves.
  EXPECT_DOUBLE_EQ(dependent_miss_ns(g, 1.0, 0.0), 10.0);
  EXPECT_DOUBLE_EQ(dependent_miss_ns(g, 4.0, 2.0), 130.0);
  // k = 2 is halfway in log2 (log2 2 = 1 of 2), w = 1 halfway: (10 + 30 + 50 + 130) / 4 = 55.
  EXPECT_DOUBLE_EQ(dependent_miss_ns(g, 2.0, 1.0), 55.0);
  // k = 2, w = 0: (10 + 50) / 2 = 30; k = 1, w = 0.5: 10 + 0.25 x 20 = 15.
  EXPECT_DOUBLE_EQ(dependent_miss_ns(g, 2.0, 0.0), 30.0);
  EXPECT_DOUBLE_EQ(dependent_miss_ns(g, 1.0, 0.5), 15.0);
  // Outside the grid: clamped to the nearest measured k and w (k = 16 -> 4, w = 9 -> 2).
  EXPECT_DOUBLE_EQ(dependent_miss_ns(g, 16.0, 9.0), 130.0);
  EXPECT_THROW((void)dependent_miss_ns(g, 0.5, 0.0), std::invalid_argument);
  EXPECT_THROW((void)dependent_miss_ns(g, 1.0, -1.0), std::invalid_argument);
  EXPECT_THROW((void)dependent_miss_ns(DependentMissGrid{}, 1.0, 0.0), std::invalid_argument);
}

TEST(DependentMissTest, CheckRefusesAnIncompleteOrBadGrid) {
  EXPECT_NO_THROW(check_dependent_miss_grid(small_grid()));
  DependentMissGrid g = small_grid();
  g.points.pop_back();  // (4, 2) missing
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
  g = small_grid();
  g.points[1].miss_ns = -1.0;
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
  g = small_grid();
  g.points[3] = g.points[2];  // a repeated (4, 0)
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
  g = small_grid();
  g.work_unit_ns = 0.0;
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
}

TEST(DependentMissTest, SecondMissLookupAndItsAllOrNothingRule) {
  DependentMissGrid g = small_grid();
  EXPECT_FALSE(dependent_second_miss_ns(g, 2.0, 1.0).has_value());  // not measured
  // Second misses 20, 60 (k = 1); 100, 260 (k = 4): twice the first. At k = 2, w = 1: halfway in
  // log2 k and in w, (20 + 60 + 100 + 260) / 4 = 110 (the first miss there: 55).
  const double second[] = {20.0, 60.0, 100.0, 260.0};
  for (std::size_t i = 0; i < g.points.size(); ++i) g.points[i].second_miss_ns = second[i];
  EXPECT_NO_THROW(check_dependent_miss_grid(g));
  ASSERT_TRUE(dependent_second_miss_ns(g, 2.0, 1.0).has_value());
  EXPECT_NEAR(*dependent_second_miss_ns(g, 2.0, 1.0), 110.0, 1e-9);
  EXPECT_NEAR(dependent_miss_ns(g, 2.0, 1.0), 55.0, 1e-9);
  // At some points only: the grid contradicts itself; refused, and the lookup says not measured.
  g.points[2].second_miss_ns.reset();
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
  EXPECT_FALSE(dependent_second_miss_ns(g, 2.0, 1.0).has_value());
  g.points[2].second_miss_ns = -1.0;
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
}

TEST(DependentMissTest, SplitFiguresAreLookedUpAsTheOthersAndAllOrNothing) {
  DependentMissGrid g = small_grid();
  EXPECT_FALSE(dependent_split_head_ns(g, 2.0, 1.0).has_value());  // not measured
  EXPECT_FALSE(dependent_split_miss_ns(g, 2.0, 1.0).has_value());
  // Split heads 8, 16 (k = 1); 24, 40 (k = 4); split misses 4, 4, 12, 20. At k = 2, w = 1
  // (halfway in log2 k and in w): (8 + 16 + 24 + 40) / 4 = 22 and (4 + 4 + 12 + 20) / 4 = 10.
  const double head[] = {8.0, 16.0, 24.0, 40.0};
  const double miss[] = {4.0, 4.0, 12.0, 20.0};
  for (std::size_t i = 0; i < g.points.size(); ++i) {
    g.points[i].split_head_ns = head[i];
    g.points[i].split_miss_ns = miss[i];
  }
  EXPECT_NO_THROW(check_dependent_miss_grid(g));
  EXPECT_NEAR(*dependent_split_head_ns(g, 2.0, 1.0), 22.0, 1e-9);
  EXPECT_NEAR(*dependent_split_miss_ns(g, 2.0, 1.0), 10.0, 1e-9);
  EXPECT_FALSE(dependent_second_miss_ns(g, 2.0, 1.0).has_value());  // each figure on its own
  g.points[3].split_miss_ns.reset();
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
  EXPECT_FALSE(dependent_split_miss_ns(g, 2.0, 1.0).has_value());
  EXPECT_TRUE(dependent_split_head_ns(g, 2.0, 1.0).has_value());
  g.points[3].split_miss_ns = -0.5;
  EXPECT_THROW(check_dependent_miss_grid(g), std::invalid_argument);
}

using test_machines::small_machine;

TEST(DependentMissTest, TopologyFileRoundTripIsExactWithAndWithoutTheGrid) {
  Topology t = small_machine();
  const std::string without = topology_to_json_text(t);
  EXPECT_FALSE(Json::parse(without).contains("dependent_misses"));
  EXPECT_FALSE(parse_topology(without, "m.json").dependent_misses.has_value());
  t.dependent_misses = small_grid();
  const std::string text = topology_to_json_text(t);
  const Topology back = parse_topology(text, "m.json");
  ASSERT_TRUE(back.dependent_misses.has_value());
  EXPECT_EQ(*back.dependent_misses, small_grid());
  EXPECT_EQ(topology_to_json_text(back), text);
  // With the second miss at every point: read and written back exactly.
  for (DependentMissPoint& p : t.dependent_misses->points) p.second_miss_ns = 2.0 * p.miss_ns;
  const std::string second = topology_to_json_text(t);
  EXPECT_TRUE(Json::parse(second)["dependent_misses"]["points"][0].contains("second_miss_ns"));
  EXPECT_EQ(parse_topology(second, "m.json").dependent_misses, t.dependent_misses);
  // And with the split figures.
  for (DependentMissPoint& p : t.dependent_misses->points) {
    p.split_head_ns = 0.5 * p.miss_ns;
    p.split_miss_ns = 0.25 * p.miss_ns;
  }
  const std::string split = topology_to_json_text(t);
  EXPECT_TRUE(Json::parse(split)["dependent_misses"]["points"][3].contains("split_miss_ns"));
  EXPECT_EQ(parse_topology(split, "m.json").dependent_misses, t.dependent_misses);
}

void expect_error(const Json& doc, const std::string& pointer, const std::string& part) {
  try {
    (void)parse_topology(doc.dump(), "m.json");
    ADD_FAILURE() << "accepted " << doc["dependent_misses"].dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("m.json"), std::string::npos) << e.what();
  }
}

TEST(DependentMissTest, BadGridsAreNamedByTheirPointer) {
  Topology t = small_machine();
  t.dependent_misses = small_grid();
  const Json good = Json::parse(topology_to_json_text(t));
  Json doc = good;
  doc["dependent_misses"]["points"][1]["miss_ns"] = -1;
  expect_error(doc, "/dependent_misses/points/1/miss_ns", ">= 0");
  doc = good;
  doc["dependent_misses"]["points"][0]["items_per_miss"] = 0.5;
  expect_error(doc, "/dependent_misses/points/0/items_per_miss", ">= 1");
  doc = good;
  doc["dependent_misses"]["points"][2].erase("work_units");
  expect_error(doc, "/dependent_misses/points/2/work_units", "");
  doc = good;
  doc["dependent_misses"]["points"][3] = doc["dependent_misses"]["points"][2];
  expect_error(doc, "/dependent_misses/points/3", "one point per");
  doc = good;
  doc["dependent_misses"]["points"].erase(3);
  expect_error(doc, "/dependent_misses/points", "complete grid");
  doc = good;
  doc["dependent_misses"]["points"] = Json::array();
  expect_error(doc, "/dependent_misses/points", "at least one");
  doc = good;
  doc["dependent_misses"]["work_unit_ns"] = 0;
  expect_error(doc, "/dependent_misses/work_unit_ns", "> 0");
  doc = good;
  doc["dependent_misses"].erase("source");
  expect_error(doc, "/dependent_misses/source", "");
  doc = good;
  doc["dependent_misses"]["extra"] = 1;
  expect_error(doc, "/dependent_misses/extra", "");
  // Each optional figure (second miss, split head, split miss): at one point only (point 2: the
  // first point that disagrees with point 0), then at every point with one negative.
  for (const OptionalMissFigure& f : kOptionalMissFigures) {
    const std::string name = f.name;
    doc = good;
    doc["dependent_misses"]["points"][2][name] = 40;
    expect_error(doc, "/dependent_misses/points/2", name + " at every point or at none");
    doc = good;
    for (Json& p : doc["dependent_misses"]["points"]) p[name] = 40;
    doc["dependent_misses"]["points"][1][name] = -3;
    expect_error(doc, "/dependent_misses/points/1/" + name, ">= 0");
  }
  doc = good;
  doc["dependent_misses"] = 3;
  expect_error(doc, "/dependent_misses", "dependent-miss grid");
}

}  // namespace
}  // namespace numatwin::model
