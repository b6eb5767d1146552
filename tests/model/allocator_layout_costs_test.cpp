// The allocator's layout figures (model/allocator_costs.hpp: scattered realloc and free, dependent
// write and read): the lookup worked by hand, the in-order figures standing in when a file has
// none, the topology file's layout_points read and written back exactly, bad ones named by their
// JSON pointer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "numatwin/model/allocator_costs.hpp"
#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"
#include "model_test_machines.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;

AllocatorCosts with_layout() {
  AllocatorCosts c;
  c.allocator = "tcmalloc";
  c.overhead_ratio = 1.5;
  c.host = "testhost";
  c.measured_at = "2026-11-27T02:00:00Z";
  c.source = "a test";
  //          threads size malloc free realloc remote
  c.points = {{1, 32, 10.0, 5.0, 40.0, 20.0}, {1, 128, 30.0, 9.0, 80.0, 60.0}};
  //          threads size scattered realloc, free, dependent write, read
  c.layout = {{1, 32, 100.0, 40.0, 20.0, 60.0}, {1, 128, 300.0, 80.0, 10.0, 90.0}, {2, 32, 500.0, 50.0, 30.0, 70.0}};
  return c;
}

TEST(AllocatorLayoutCostsTest, LookupWorkedByHand) {
  const AllocatorCosts c = with_layout();
  // 64 bytes at 1 thread: halfway in log2 between 32 and 128: scattered realloc 100 + 0.5 x 200 =
  // 200, free 40 + 0.5 x 40 = 60, dependent write 20 - 0.5 x 10 = 15, read 60 + 0.5 x 30 = 75.
  AllocatorCostAt at = allocator_cost_at(&c, 1, 64);
  EXPECT_TRUE(at.has_scattered);
  EXPECT_TRUE(at.has_dependent);
  EXPECT_DOUBLE_EQ(at.scattered_realloc_ns, 200.0);
  EXPECT_DOUBLE_EQ(at.scattered_free_ns, 60.0);
  EXPECT_DOUBLE_EQ(at.dependent_write_ns, 15.0);
  EXPECT_DOUBLE_EQ(at.dependent_read_ns, 75.0);
  // The in-order figures are untouched: realloc 40 + 0.5 x 40 = 60.
  EXPECT_DOUBLE_EQ(at.realloc_ns, 60.0);
  // 24 bytes (class 32) at 3 threads: the layout's largest row (2) has only 32 B.
  at = allocator_cost_at(&c, 3, 24);
  EXPECT_DOUBLE_EQ(at.scattered_realloc_ns, 500.0);
  EXPECT_DOUBLE_EQ(at.dependent_read_ns, 70.0);
  // 1 KiB at 2 threads: clamped to the row's only size.
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 2, 1024).dependent_write_ns, 30.0);
}

TEST(AllocatorLayoutCostsTest, WithoutLayoutPointsTheInOrderFiguresStandIn) {
  AllocatorCosts c = with_layout();
  c.layout.clear();
  const AllocatorCostAt at = allocator_cost_at(&c, 1, 64);
  EXPECT_FALSE(at.has_scattered);
  EXPECT_FALSE(at.has_dependent);
  EXPECT_DOUBLE_EQ(at.scattered_realloc_ns, 60.0);  // = realloc_ns
  EXPECT_DOUBLE_EQ(at.scattered_free_ns, 7.0);      // = free_ns, 5 + 0.5 x 4
  EXPECT_DOUBLE_EQ(at.dependent_write_ns, 0.0);
  // The defaults (no entry at all): the scattered realloc is the default realloc, 40 + 0.1 x 64.
  const AllocatorCostAt d = allocator_cost_at(nullptr, 1, 64);
  EXPECT_FALSE(d.has_dependent);
  EXPECT_DOUBLE_EQ(d.scattered_realloc_ns, 46.4);
  EXPECT_DOUBLE_EQ(d.scattered_free_ns, 15.0);
}

TEST(AllocatorLayoutCostsTest, CheckNamesABadLayoutPoint) {
  AllocatorCosts c = with_layout();
  c.layout[1].dependent_write_ns = -2.0;
  EXPECT_THROW(check_allocator_costs(c), std::invalid_argument);
  c = with_layout();
  c.layout[2].threads = 1;  // a second (1, 32)
  EXPECT_THROW(check_allocator_costs(c), std::invalid_argument);
  EXPECT_NO_THROW(check_allocator_costs(with_layout()));
}

using test_machines::small_machine;

TEST(AllocatorLayoutCostsTest, TopologyFileRoundTripIsExactWithAndWithoutLayout) {
  Topology t = small_machine();
  AllocatorCosts none = with_layout();
  none.allocator = "glibc";
  none.layout.clear();
  t.allocator_costs = {none, with_layout()};  // by name, as the reader orders them
  const std::string text = topology_to_json_text(t);
  const Topology back = parse_topology(text, "m.json");
  EXPECT_EQ(back.allocator_costs, t.allocator_costs);
  EXPECT_EQ(topology_to_json_text(back), text);
  const Json doc = Json::parse(text);
  EXPECT_TRUE(doc["allocator_costs"]["tcmalloc"].contains("layout_points"));
  EXPECT_FALSE(doc["allocator_costs"]["glibc"].contains("layout_points"));
}

void expect_error(const Json& doc, const std::string& pointer, const std::string& part) {
  try {
    parse_topology(doc.dump(), "m.json");
    ADD_FAILURE() << "accepted " << doc["allocator_costs"].dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

TEST(AllocatorLayoutCostsTest, BadLayoutPointsAreNamedByTheirPointer) {
  Topology t = small_machine();
  t.allocator_costs = {with_layout()};
  const Json good = Json::parse(topology_to_json_text(t));
  Json doc = good;
  doc["allocator_costs"]["tcmalloc"]["layout_points"][1]["dependent_read_ns"] = -1;
  expect_error(doc, "/allocator_costs/tcmalloc/layout_points/1/dependent_read_ns", ">= 0");
  doc = good;
  doc["allocator_costs"]["tcmalloc"]["layout_points"][0]["size_bytes"] = 48;
  expect_error(doc, "/allocator_costs/tcmalloc/layout_points/0/size_bytes", "power of two");
  doc = good;
  doc["allocator_costs"]["tcmalloc"]["layout_points"][0].erase("scattered_free_ns");
  expect_error(doc, "/allocator_costs/tcmalloc/layout_points/0/scattered_free_ns", "");
  doc = good;
  doc["allocator_costs"]["tcmalloc"]["layout_points"][1] = doc["allocator_costs"]["tcmalloc"]["layout_points"][0];
  expect_error(doc, "/allocator_costs/tcmalloc/layout_points/1", "one layout point per");
  doc = good;
  doc["allocator_costs"]["tcmalloc"]["layout_points"] = 3;
  expect_error(doc, "/allocator_costs/tcmalloc/layout_points", "list");
  doc = good;
  doc["allocator_costs"]["tcmalloc"]["layout_points"][0]["colour"] = "red";
  expect_error(doc, "/allocator_costs/tcmalloc/layout_points/0/colour", "");
}

// The optional layout figures (shared realloc, locked write, malloc after frees): the lookup worked
// by hand, the stand-ins where a row did not measure them, the file keeping them only where measured.
AllocatorCosts with_shared() {
  AllocatorCosts c;
  c.allocator = "glibc";
  c.host = "testhost";
  c.measured_at = "2026-11-27T13:00:00Z";
  c.source = "a test";
  //          threads size malloc free realloc remote
  c.points = {{1, 32, 10.0, 5.0, 40.0, 20.0}, {2, 32, 12.0, 6.0, 45.0, 22.0}};
  //          threads size scattered realloc, free, dependent write, read, shared realloc
  c.layout = {{1, 32, 100.0, 40.0, 20.0, 60.0, 0.0},
              {1, 128, 300.0, 80.0, 10.0, 90.0, 0.0},
              {2, 32, 110.0, 50.0, 30.0, 70.0, 400.0},
              {2, 128, 310.0, 60.0, 30.0, 70.0, 1200.0}};
  return c;
}

TEST(AllocatorLayoutCostsTest, SharedReallocLookupWorkedByHand) {
  const AllocatorCosts c = with_shared();
  // 64 bytes at 2 threads: halfway in log2 between 32 and 128: 400 + 0.5 x 800 = 800 ns; the
  // scattered figure beside it 110 + 0.5 x 200 = 210 ns.
  AllocatorCostAt at = allocator_cost_at(&c, 2, 64);
  EXPECT_TRUE(at.has_shared);
  EXPECT_DOUBLE_EQ(at.shared_realloc_ns, 800.0);
  EXPECT_DOUBLE_EQ(at.scattered_realloc_ns, 210.0);
  // 4 threads: the largest row (2) carries over.
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 4, 128).shared_realloc_ns, 1200.0);
  // 1 thread: every block is the thread's own, so the scattered figure (100 + 0.5 x 200).
  at = allocator_cost_at(&c, 1, 64);
  EXPECT_FALSE(at.has_shared);
  EXPECT_DOUBLE_EQ(at.shared_realloc_ns, 200.0);
}

TEST(AllocatorLayoutCostsTest, ARowThatDidNotMeasureItLeavesTheScatteredFigure) {
  AllocatorCosts c = with_shared();
  c.layout[3].shared_realloc_ns = 0.0;  // one size of the 2-thread row unmeasured: the row is not used
  AllocatorCostAt at = allocator_cost_at(&c, 2, 64);
  EXPECT_FALSE(at.has_shared);
  EXPECT_DOUBLE_EQ(at.shared_realloc_ns, 210.0);
  c.layout.clear();  // no layout at all: the in-order realloc stands in for both
  at = allocator_cost_at(&c, 2, 32);
  EXPECT_FALSE(at.has_shared);
  EXPECT_DOUBLE_EQ(at.shared_realloc_ns, 45.0);
  EXPECT_DOUBLE_EQ(allocator_cost_at(nullptr, 2, 64).shared_realloc_ns, 40.0 + 0.1 * 64);  // the defaults
}

TEST(AllocatorLayoutCostsTest, LockedWriteIsLookedUpAsTheOtherLayoutFigures) {
  AllocatorCosts c = with_shared();
  c.layout[0].locked_write_ns = 8.0;
  c.layout[1].locked_write_ns = 16.0;
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 1, 64).locked_write_ns, 12.0);  // halfway in log2 size
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 2, 64).locked_write_ns, 0.0);   // that row did not measure it
}

// An optional layout figure (`field` in the points, `value` and `has` in the lookup): measured only
// where every point of the row has it, `unmeasured` otherwise; looked up halfway in log2 size between
// the 32 B point (set to `at_32`) and the 128 B point (`at_128`) at 64 B.
void expect_measured_only_where_the_row_has_it(double AllocatorLayoutPoint::*field, double AllocatorCostAt::*value,
                                               bool AllocatorCostAt::*has, double unmeasured, double at_32, double at_128) {
  AllocatorCosts c = with_shared();
  EXPECT_FALSE(allocator_cost_at(&c, 1, 64).*has);
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 1, 64).*value, unmeasured);
  c.layout[0].*field = at_32;
  EXPECT_FALSE(allocator_cost_at(&c, 1, 64).*has);  // the 128 B point of the row lacks it
  c.layout[1].*field = at_128;
  const AllocatorCostAt at = allocator_cost_at(&c, 1, 64);
  EXPECT_TRUE(at.*has);
  EXPECT_DOUBLE_EQ(at.*value, 0.5 * (at_32 + at_128));
  EXPECT_FALSE(allocator_cost_at(&c, 2, 64).*has);  // the 2-thread row did not measure it
}

TEST(AllocatorLayoutCostsTest, ReuseMallocStandsInForMallocOnlyWhereTheRowMeasuredIt) {
  // Unmeasured, malloc_ns (10 ns at every size of with_shared()) stands in.
  expect_measured_only_where_the_row_has_it(&AllocatorLayoutPoint::reuse_malloc_ns, &AllocatorCostAt::reuse_malloc_ns,
                                            &AllocatorCostAt::has_reuse, 10.0, 150.0, 50.0);
  AllocatorCosts c = with_shared();
  c.layout[0].reuse_malloc_ns = 150.0;
  c.layout[1].reuse_malloc_ns = 50.0;
  EXPECT_DOUBLE_EQ(allocator_cost_at(&c, 1, 64).malloc_ns, 10.0);  // the hot figure is untouched
}

TEST(AllocatorLayoutCostsTest, BlockReadIsMeasuredOnlyWhereTheWholeRowHasIt) {
  expect_measured_only_where_the_row_has_it(&AllocatorLayoutPoint::block_read_ns, &AllocatorCostAt::block_read_ns,
                                            &AllocatorCostAt::has_block_read, 0.0, 200.0, 400.0);
}

TEST(AllocatorLayoutCostsTest, OptionalFiguresAreWrittenOnlyWhereMeasured) {
  Topology t = small_machine();
  t.allocator_costs = {with_shared()};
  const std::string text = topology_to_json_text(t);
  const Topology back = parse_topology(text, "m.json");
  EXPECT_EQ(back.allocator_costs, t.allocator_costs);
  const Json doc = Json::parse(text);
  const Json& layout = doc["allocator_costs"]["glibc"]["layout_points"];
  EXPECT_FALSE(layout[0].contains("shared_realloc_ns"));
  EXPECT_DOUBLE_EQ(layout[2]["shared_realloc_ns"].get<double>(), 400.0);
  EXPECT_FALSE(layout[2].contains("locked_write_ns"));
  t.allocator_costs[0].layout[1].locked_write_ns = 7.5;
  const Topology with_locked = parse_topology(topology_to_json_text(t), "m.json");
  EXPECT_DOUBLE_EQ(with_locked.allocator_costs[0].layout[1].locked_write_ns, 7.5);
  t.allocator_costs[0].layout[3].reuse_malloc_ns = 321.0;
  const Json reuse = Json::parse(topology_to_json_text(t));
  EXPECT_DOUBLE_EQ(reuse["allocator_costs"]["glibc"]["layout_points"][3]["reuse_malloc_ns"].get<double>(), 321.0);
  EXPECT_EQ(parse_topology(reuse.dump(), "m.json").allocator_costs, t.allocator_costs);
  EXPECT_FALSE(reuse["allocator_costs"]["glibc"]["layout_points"][3].contains("block_read_ns"));
  t.allocator_costs[0].layout[3].block_read_ns = 456.0;
  const Json block = Json::parse(topology_to_json_text(t));
  EXPECT_DOUBLE_EQ(block["allocator_costs"]["glibc"]["layout_points"][3]["block_read_ns"].get<double>(), 456.0);
  EXPECT_EQ(parse_topology(block.dump(), "m.json").allocator_costs, t.allocator_costs);
  Json bad_block = block;
  bad_block["allocator_costs"]["glibc"]["layout_points"][3]["block_read_ns"] = "fast";
  try {
    parse_topology(bad_block.dump(), "m.json");
    ADD_FAILURE() << "a block_read_ns that is not a number was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), "/allocator_costs/glibc/layout_points/3/block_read_ns") << e.what();
  }
  Json bad = doc;
  bad["allocator_costs"]["glibc"]["layout_points"][2]["shared_realloc_ns"] = -5;
  try {
    parse_topology(bad.dump(), "m.json");
    ADD_FAILURE() << "a negative shared_realloc_ns was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), "/allocator_costs/glibc/layout_points/2/shared_realloc_ns") << e.what();
  }
  AllocatorCosts negative = with_shared();
  negative.layout[2].shared_realloc_ns = -1.0;
  EXPECT_THROW(check_allocator_costs(negative), std::invalid_argument);
}

// The blocks across two lines (line_splits): looked up at exactly the request size, checked,
// written back exactly, and bad ones named by their JSON pointer.
TEST(AllocatorLayoutCostsTest, LineSplitsAreLookedUpCheckedAndRoundTripped) {
  AllocatorCosts c = with_layout();
  EXPECT_EQ(line_split_at(&c, 24), nullptr);  // not measured
  EXPECT_EQ(line_split_at(nullptr, 24), nullptr);
  c.line_splits = {{24, 0.0, 0.5}, {40, 0.25, 0.25}};
  ASSERT_NE(line_split_at(&c, 24), nullptr);
  EXPECT_EQ(line_split_at(&c, 24)->high_share, 0.5);
  EXPECT_EQ(line_split_at(&c, 32), nullptr);  // no rounding to a class: a request size is exact
  EXPECT_NO_THROW(check_allocator_costs(c));
  Topology t = small_machine();
  t.allocator_costs = {c};
  const std::string text = topology_to_json_text(t);
  EXPECT_EQ(parse_topology(text, "m.json").allocator_costs.front().line_splits, c.line_splits);
  t.allocator_costs = {with_layout()};
  EXPECT_FALSE(Json::parse(topology_to_json_text(t))["allocator_costs"]["tcmalloc"].contains("line_splits"));
  AllocatorCosts bad = c;
  bad.line_splits[0].low_share = 0.6;  // above high
  EXPECT_THROW(check_allocator_costs(bad), std::invalid_argument);
  bad = c;
  bad.line_splits[1].request_bytes = 24;  // repeated
  EXPECT_THROW(check_allocator_costs(bad), std::invalid_argument);

  const Json good = Json::parse(text);
  struct Case {
    int split;
    const char* field;
    Json value;
    const char* part;  // of the message; the pointer is the field's, or the split's for a repeat
  };
  for (const Case& e : {Case{0, "high_share", 1.5, "0.000000)..1"}, Case{1, "high_share", 0.1, "low_share"},  // 0.1 below its low 0.25
                        Case{0, "low_share", -0.1, "0..1"}, Case{0, "request_bytes", 0, ""},
                        Case{1, "request_bytes", 24, "one line split per request_bytes"}}) {
    Json doc = good;
    doc["allocator_costs"]["tcmalloc"]["line_splits"][e.split][e.field] = e.value;
    const std::string split = "/allocator_costs/tcmalloc/line_splits/" + std::to_string(e.split);
    expect_error(doc, std::string(e.part).starts_with("one") ? split : split + "/" + e.field, e.part);
  }
  Json doc = good;
  doc["allocator_costs"]["tcmalloc"]["line_splits"] = "half";
  expect_error(doc, "/allocator_costs/tcmalloc/line_splits", "list");
}

}  // namespace
}  // namespace numatwin::model
