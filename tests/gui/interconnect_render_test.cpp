// Rendering: naive shuffle step 0 on nehalem-ex-4s, drawn offscreen into a QImage. In that step
// every thread reads socket s0's memory, so s0's controller is saturated and the lanes out of s0
// carry the data (78 % each), while the other lanes carry only coherence probes (21 %) and the
// other controllers are idle. The pixels must say so: hot lanes and controller in the hot colours
// of the scale, visibly darker than the cold ones.
#include <gtest/gtest.h>

#include <QFile>
#include <QTemporaryDir>
#include <cmath>

#include "gui_test_support.hpp"
#include "numatwin/gui/image_export.hpp"
#include "numatwin/gui/interconnect_renderer.hpp"
#include "numatwin/gui/simulation_run.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/gui/utilisation_colour.hpp"
#include "numatwin/model/memory_tiers.hpp"

namespace numatwin::gui {
namespace {

double luminance(const QColor& c) { return 0.2126 * c.red() + 0.7152 * c.green() + 0.0722 * c.blue(); }

int colour_distance(const QColor& a, const QColor& b) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

class NaiveStepZeroRender : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::gui_app();
    topology_ = testing::load_bundled("nehalem-ex-4s");
    sim::WorkloadSpec spec;
    spec.kind = sim::WorkloadKind::kShuffle;
    spec.algorithm = sim::ShuffleAlgorithm::kNaive;
    spec.sync = sim::SyncMode::kTight;
    spec.threads = 32;
    spec.total_bytes = 12.8e9;
    run_ = run_simulation(topology_, spec);
    renderer_ = std::make_unique<InterconnectRenderer>(topology_, layout_topology(*topology_));
    frame_ = frame_for_step(run_, 0);
    renderer_->set_colouring(InterconnectColouring::from_frame(run_, frame_));
    RenderOptions o;
    o.subtitle = frame_summary(run_, frame_);
    renderer_->set_options(o);
    image_ = render_image(*renderer_, kSize);
    geometry_ = renderer_->geometry(QRectF(QPointF(0, 0), QSizeF(kSize)));
  }

  // The colour at the middle of a lane's body, a fifth of the way from its source (no crossing
  // lanes or labels there on this machine).
  [[nodiscard]] QColor lane_pixel(int link) const {
    const QPointF p = geometry_.lanes[link].pointAt(0.2);
    return image_.pixelColor(static_cast<int>(std::lround(p.x())), static_cast<int>(std::lround(p.y())));
  }
  // A corner of the controller strip, clear of its text.
  [[nodiscard]] QColor controller_pixel(int node) const {
    const QRectF& r = geometry_.controllers[node];
    return image_.pixelColor(static_cast<int>(r.left() + 6), static_cast<int>(r.top() + 4));
  }
  [[nodiscard]] int link(const char* from, const char* to) const {
    return *topology_->find_link(*topology_->find_node(from), *topology_->find_node(to));
  }

  static constexpr QSize kSize{1200, 860};
  std::shared_ptr<const model::Topology> topology_;
  SimulationRun run_;
  UtilisationFrame frame_;
  std::unique_ptr<InterconnectRenderer> renderer_;
  QImage image_;
  InterconnectGeometry geometry_;
};

TEST_F(NaiveStepZeroRender, TheSimulationHammersSocketZero) {
  // The premise of the picture, from the model: s0's controller saturated, the others idle.
  const auto& m = run_.resources.memory_resource;
  EXPECT_GT(frame_.utilisation[m[0]], 0.99);
  for (int n = 1; n < 4; ++n) EXPECT_LT(frame_.utilisation[m[n]], 0.01);
  EXPECT_GT(frame_.utilisation[run_.resources.link_resource[link("s0", "s1")]], 0.6);
  EXPECT_LT(frame_.utilisation[run_.resources.link_resource[link("s1", "s2")]], 0.35);
}

TEST_F(NaiveStepZeroRender, HotLanesOutOfSocketZeroAreDrawnHotAndOthersCold) {
  const char* others[] = {"s1", "s2", "s3"};
  for (const char* to : others) {
    const int hot = link("s0", to);
    const QColor pixel = lane_pixel(hot);
    const QColor expected = utilisation_colour(frame_.utilisation[run_.resources.link_resource[hot]]);
    EXPECT_LE(colour_distance(pixel, expected), 12) << "s0->" << to << " drawn " << pixel.name().toStdString() << ", expected "
                                                    << expected.name().toStdString();
    // Reverse lanes (probes only) and lanes between the other sockets are cold.
    for (const auto& [a, b] : {std::pair<const char*, const char*>{to, "s0"}, {"s1", "s2"}, {"s2", "s3"}, {"s3", "s1"}}) {
      const QColor cold = lane_pixel(link(a, b));
      EXPECT_GT(luminance(cold) - luminance(pixel), 40.0) << a << "->" << b << " " << cold.name().toStdString() << " vs hot "
                                                          << pixel.name().toStdString();
    }
  }
}

TEST_F(NaiveStepZeroRender, SaturatedControllerIsRedAndIdleOnesArePale) {
  const QColor hot = controller_pixel(0);
  EXPECT_LE(colour_distance(hot, utilisation_colour(1.0)), 12) << hot.name().toStdString();
  for (int n = 1; n < 4; ++n) {
    const QColor cold = controller_pixel(n);
    EXPECT_LE(colour_distance(cold, utilisation_colour(0.0)), 12) << "s" << n << " " << cold.name().toStdString();
    EXPECT_GT(luminance(cold) - luminance(hot), 150.0);
  }
}

TEST_F(NaiveStepZeroRender, TwoLanesPerLinkPointInOppositeDirectionsSideBySide) {
  const int forward = link("s0", "s1");
  const int backward = link("s1", "s0");
  const QLineF f = geometry_.lanes[forward];
  const QLineF b = geometry_.lanes[backward];
  // Opposite directions, parallel, and apart by more than a lane's width.
  EXPECT_LT(QLineF(f.p1(), b.p2()).length(), QLineF(f.p1(), b.p1()).length());
  EXPECT_NEAR(std::abs(f.angleTo(b) - 180.0), 0.0, 0.5);
  const double apart = std::abs((f.p1() - b.p2()).y()) + std::abs((f.p1() - b.p2()).x());
  EXPECT_GT(apart, geometry_.lane_width);
  EXPECT_NE(lane_pixel(forward), lane_pixel(backward));
}

TEST_F(NaiveStepZeroRender, HitTestsFindTheLaneAndTheNodeDrawnThere) {
  const QRectF target(QPointF(0, 0), QSizeF(kSize));
  for (int l = 0; l < static_cast<int>(topology_->links.size()); ++l) {
    EXPECT_EQ(renderer_->link_at(geometry_.lanes[l].pointAt(0.2), target), l) << topology_->link_name(l);
  }
  for (int n = 0; n < 4; ++n) EXPECT_EQ(renderer_->node_at(geometry_.cards[n].center(), target), n);
  EXPECT_EQ(renderer_->link_at(QPointF(2, 2), target), -1);
  EXPECT_FALSE(renderer_->describe_link(link("s0", "s1")).isEmpty());
}

TEST_F(NaiveStepZeroRender, ExportsPngAndSvg) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString png = dir.filePath(QStringLiteral("naive0.png"));
  const QString svg = dir.filePath(QStringLiteral("naive0.svg"));
  save_picture(*renderer_, QSize(900, 640), png);
  save_picture(*renderer_, QSize(900, 640), svg);
  const QImage loaded(png);
  EXPECT_EQ(loaded.size(), QSize(900, 640));
  QFile f(svg);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray text = f.readAll();
  EXPECT_TRUE(text.contains("<svg"));
  EXPECT_TRUE(text.contains("nehalem-ex-4s"));
  EXPECT_THROW(save_picture(*renderer_, QSize(10, 10), dir.filePath(QStringLiteral("x.jpg"))), std::invalid_argument);
  EXPECT_THROW(save_picture(*renderer_, QSize(10, 10), QStringLiteral("/nonexistent-dir/x.png")), std::runtime_error);
}

TEST(InterconnectRenderTest, WithoutARunEveryLaneIsTheNoDataGrey) {
  testing::gui_app();
  const auto t = testing::load_bundled("nehalem-ex-4s");
  InterconnectRenderer renderer(t, layout_topology(*t));
  EXPECT_FALSE(renderer.colouring().simulated());
  const QImage image = render_image(renderer, QSize(1000, 700));
  const InterconnectGeometry g = renderer.geometry(QRectF(0, 0, 1000, 700));
  const QPointF p = g.lanes[0].pointAt(0.2);
  EXPECT_LE(colour_distance(image.pixelColor(static_cast<int>(std::lround(p.x())), static_cast<int>(std::lround(p.y()))),
                            utilisation_colour(std::nan(""))),
            12);
}

TEST(InterconnectRenderTest, DrawsEveryBundledMachineWithoutOverlappingCards) {
  testing::gui_app();
  for (const char* name : {"sgi-uv300h-32s", "opteron-8220-8s-twisted-ladder", "nehalem-ex-8s", "skylake-4114-2s"}) {
    const auto t = testing::load_bundled(name);
    InterconnectRenderer renderer(t, layout_topology(*t));
    const InterconnectGeometry g = renderer.geometry(QRectF(0, 0, 1280, 880));
    for (std::size_t i = 0; i < g.cards.size(); ++i) {
      EXPECT_TRUE(g.drawing.contains(g.cards[i])) << name << " " << t->nodes[i].id;
      for (std::size_t j = i + 1; j < g.cards.size(); ++j) {
        EXPECT_FALSE(g.cards[i].intersects(g.cards[j])) << name << " " << t->nodes[i].id << " overlaps " << t->nodes[j].id;
      }
    }
    const QImage image = render_image(renderer, QSize(1280, 880));
    EXPECT_FALSE(image.isNull());
  }
}

}  // namespace
}  // namespace numatwin::gui

namespace numatwin::gui {
namespace {

// Machines of today (machine only, no run): a CXL expander's host-bridge lanes are dashed, so
// along the middle of such a lane some pixels are the background; a socket link's lane is solid.
// A memory-only node's controller sits in the lower half of its card, as a socket's does.
TEST(MemoryTierRender, CxlLanesAreDashedAndMemoryOnlyCardsKeepTheirController) {
  testing::gui_app();
  const auto t = testing::load_bundled("spr-cxl-2s");
  InterconnectRenderer renderer(t, layout_topology(*t));
  renderer.set_colouring(InterconnectColouring::none(*t));
  const QSize size(1280, 880);
  const QImage image = render_image(renderer, size);
  const InterconnectGeometry g = renderer.geometry(QRectF(QPointF(0, 0), QSizeF(size)));
  const QColor background = image.pixelColor(2, image.height() / 2);
  auto background_share = [&](int link) {
    int hits = 0;
    const int samples = 200;
    for (int i = 0; i < samples; ++i) {
      const QPointF p = g.lanes[link].pointAt(0.1 + 0.6 * i / samples);
      hits += image.pixelColor(static_cast<int>(std::lround(p.x())), static_cast<int>(std::lround(p.y()))) == background ? 1 : 0;
    }
    return static_cast<double>(hits) / samples;
  };
  int cxl_links = 0;
  for (std::size_t l = 0; l < t->links.size(); ++l) {
    const model::Link& link = t->links[l];
    const bool cxl = t->nodes[link.from].memory_kind == model::MemoryKind::kCxl || t->nodes[link.to].memory_kind == model::MemoryKind::kCxl;
    if (cxl) {
      ++cxl_links;
      EXPECT_GT(background_share(static_cast<int>(l)), 0.15) << t->link_name(static_cast<int>(l));
    } else {
      EXPECT_EQ(background_share(static_cast<int>(l)), 0.0) << t->link_name(static_cast<int>(l));
    }
  }
  EXPECT_EQ(cxl_links, 4);
  for (std::size_t n = 0; n < t->nodes.size(); ++n) {
    EXPECT_GT(g.controllers[n].top(), g.cards[n].center().y()) << t->nodes[n].id;
  }
}

}  // namespace
}  // namespace numatwin::gui
