// Layout: the file's positions when every node has one; otherwise an automatic layout chosen from
// the link graph, in which no two nodes coincide.
#include <gtest/gtest.h>

#include "gui_test_support.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/model/generators.hpp"

namespace numatwin::gui {
namespace {

model::Topology generated_without_positions(model::TopologyFamily family, int nodes) {
  model::GeneratorParams p;
  p.family = family;
  p.nodes = nodes;
  model::Topology t = model::generate_topology(p);
  for (model::Node& n : t.nodes) n.position.reset();
  return t;
}

TEST(TopologyLayoutTest, UsesTheFilePositionsWhenEveryNodeHasOne) {
  const auto t = testing::load_bundled("nehalem-ex-4s");
  const TopologyLayout layout = layout_topology(*t);
  EXPECT_EQ(layout.kind, LayoutKind::kFile);
  ASSERT_EQ(layout.positions.size(), t->nodes.size());
  for (std::size_t i = 0; i < t->nodes.size(); ++i) {
    EXPECT_DOUBLE_EQ(layout.positions[i].x(), t->nodes[i].position->x);
    EXPECT_DOUBLE_EQ(layout.positions[i].y(), t->nodes[i].position->y);
  }
}

struct FamilyCase {
  model::TopologyFamily family;
  int nodes;
  LayoutKind expected;
};

TEST(TopologyLayoutTest, ChoosesALayoutFromTheShapeOfTheGraph) {
  const FamilyCase cases[] = {
      {model::TopologyFamily::kRing, 8, LayoutKind::kCircle},
      {model::TopologyFamily::kFullyConnected, 6, LayoutKind::kCircle},
      {model::TopologyFamily::kMobiusLadder, 8, LayoutKind::kLadder},  // a full ladder whose ends cross
      {model::TopologyFamily::kLadder, 8, LayoutKind::kLadder},
      {model::TopologyFamily::kTwistedLadder, 8, LayoutKind::kLadder},
      {model::TopologyFamily::kHypercube, 8, LayoutKind::kHypercube},
      {model::TopologyFamily::kHypercube, 16, LayoutKind::kHypercube},
      {model::TopologyFamily::kChassis, 16, LayoutKind::kChassis},
  };
  for (const FamilyCase& c : cases) {
    const model::Topology t = generated_without_positions(c.family, c.nodes);
    const TopologyLayout layout = layout_topology(t);
    SCOPED_TRACE(model::family_name(c.family) + " " + std::to_string(c.nodes));
    EXPECT_EQ(layout.kind, c.expected) << layout_kind_name(layout.kind).toStdString();
    ASSERT_EQ(layout.positions.size(), t.nodes.size());
    // No two nodes on top of each other: at least a twentieth of the drawing's extent apart.
    const QRectF b = layout.bounds();
    EXPECT_GT(layout.min_distance(), 0.05 * std::max(b.width(), b.height()));
  }
}

TEST(TopologyLayoutTest, LadderPutsTheRailsOnTwoRows) {
  const TopologyLayout layout = layout_topology(generated_without_positions(model::TopologyFamily::kLadder, 8));
  for (int i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(layout.positions[i].y(), layout.positions[0].y());
    EXPECT_DOUBLE_EQ(layout.positions[i + 4].y(), layout.positions[4].y());
    EXPECT_DOUBLE_EQ(layout.positions[i].x(), layout.positions[i + 4].x());  // rung i is vertical
  }
  EXPECT_LT(layout.positions[0].y(), layout.positions[4].y());
}

TEST(TopologyLayoutTest, ChassisKeepsEachSocketNearItsRouter) {
  const model::Topology t = generated_without_positions(model::TopologyFamily::kChassis, 16);
  const TopologyLayout layout = layout_topology(t);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].kind == model::NodeKind::kRouter) continue;
    // Its own router (linked to it) is nearer than any other router.
    double own = 1e18, other = 1e18;
    for (std::size_t r = 0; r < t.nodes.size(); ++r) {
      if (t.nodes[r].kind != model::NodeKind::kRouter) continue;
      const double d = QLineF(layout.positions[i], layout.positions[r]).length();
      if (t.find_link(static_cast<int>(i), static_cast<int>(r))) {
        own = std::min(own, d);
      } else {
        other = std::min(other, d);
      }
    }
    EXPECT_LT(own, other) << t.nodes[i].id;
  }
}

}  // namespace
}  // namespace numatwin::gui
