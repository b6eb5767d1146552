// What-if edits keep the loader's invariants, so the edited machine passes check_topology (or
// says why not) and saves back in the file's form.
#include <gtest/gtest.h>

#include "gui_test_support.hpp"
#include "numatwin/gui/topology_edit.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::gui {
namespace {

model::Topology nehalem() { return *testing::load_bundled("nehalem-ex-4s"); }

int link(const model::Topology& t, const char* a, const char* b) { return *t.find_link(*t.find_node(a), *t.find_node(b)); }

model::Topology round_trip(const model::Topology& t) { return model::parse_topology(model::topology_to_json_text(t), "<edited>"); }

TEST(TopologyEditTest, BothDirectionsKeepsTheSymmetricEntry) {
  model::Topology t = nehalem();
  set_link_bandwidth(t, link(t, "s0", "s1"), 5.0, true);
  EXPECT_DOUBLE_EQ(t.links[link(t, "s0", "s1")].bandwidth_gbps, 5.0);
  EXPECT_DOUBLE_EQ(t.links[link(t, "s1", "s0")].bandwidth_gbps, 5.0);
  EXPECT_FALSE(check_edited_topology(t).has_value());
  EXPECT_NE(model::topology_to_json_text(t).find("\"bandwidth_per_direction_gbps\": 5"), std::string::npos);
  const model::Topology back = round_trip(t);
  EXPECT_EQ(back.links, t.links);
  EXPECT_NE(t.provenance.notes.find("what-if edit"), std::string::npos);
}

TEST(TopologyEditTest, OneDirectionSplitsTheEntryInTwoDirectedOnes) {
  model::Topology t = nehalem();
  const std::size_t links = t.links.size();
  set_link_bandwidth(t, link(t, "s0", "s1"), 3.5, false);
  ASSERT_EQ(t.links.size(), links);
  EXPECT_DOUBLE_EQ(t.links[link(t, "s0", "s1")].bandwidth_gbps, 3.5);
  EXPECT_DOUBLE_EQ(t.links[link(t, "s1", "s0")].bandwidth_gbps, 10.9);
  EXPECT_FALSE(check_edited_topology(t).has_value());
  const std::string text = model::topology_to_json_text(t);
  EXPECT_NE(text.find("\"bandwidth_gbps\": 3.5"), std::string::npos);
  EXPECT_EQ(round_trip(t).links, t.links);
}

TEST(TopologyEditTest, RemovingAndAddingLinks) {
  model::Topology t = nehalem();
  remove_link(t, link(t, "s0", "s2"), true);
  EXPECT_FALSE(t.find_link(*t.find_node("s0"), *t.find_node("s2")));
  EXPECT_FALSE(t.find_link(*t.find_node("s2"), *t.find_node("s0")));
  EXPECT_EQ(t.links.size(), 10u);
  EXPECT_FALSE(check_edited_topology(t).has_value());  // still connected through s1 and s3
  EXPECT_EQ(round_trip(t).links, t.links);
  add_link(t, *t.find_node("s0"), *t.find_node("s2"), 20.0, 30.0);
  EXPECT_DOUBLE_EQ(t.links[link(t, "s2", "s0")].bandwidth_gbps, 20.0);
  EXPECT_FALSE(check_edited_topology(t).has_value());
  EXPECT_THROW(add_link(t, 0, 2, 1.0, 1.0), std::invalid_argument);  // already linked
  EXPECT_THROW(add_link(t, 1, 1, 1.0, 1.0), std::invalid_argument);
  EXPECT_THROW(set_link_bandwidth(t, 0, 0.0, true), std::invalid_argument);
  EXPECT_THROW(remove_link(t, 999, true), std::invalid_argument);
}

TEST(TopologyEditTest, RemovingOneDirectionOfASymmetricLinkKeepsTheOther) {
  model::Topology t = nehalem();
  remove_link(t, link(t, "s1", "s3"), false);
  EXPECT_FALSE(t.find_link(*t.find_node("s1"), *t.find_node("s3")));
  EXPECT_TRUE(t.find_link(*t.find_node("s3"), *t.find_node("s1")));
  EXPECT_FALSE(check_edited_topology(t).has_value());
  EXPECT_EQ(round_trip(t).links, t.links);
}

TEST(TopologyEditTest, CuttingTheMachineInTwoIsReportedNotCrashed) {
  model::Topology t = *testing::load_bundled("skylake-4114-2s");  // one UPI link
  remove_link(t, 0, true);
  const auto problem = check_edited_topology(t);
  ASSERT_TRUE(problem.has_value());
  EXPECT_NE(problem->find("(edited)"), std::string::npos) << *problem;
}

}  // namespace
}  // namespace numatwin::gui
