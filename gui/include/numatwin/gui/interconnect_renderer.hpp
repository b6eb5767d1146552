// Draws a machine's interconnect with QPainter (widget, QImage or SVG alike): sockets as cards
// whose lower strip is the memory controller, routers as diamonds, every link as two directed
// lanes (offset parallel arrows, each on the right of its direction of travel), lanes and
// controllers coloured by utilisation (utilisation_colour.hpp) with a legend and GB/s labels.
// The same geometry answers hit tests, so a click selects the lane that was drawn there.
#pragma once

#include <QColor>
#include <QLineF>
#include <QPainter>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <memory>
#include <vector>

#include "numatwin/gui/simulation_run.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::gui {

// Utilisation (0..1) of every drawn element; NaN where nothing was simulated (grey).
struct InterconnectColouring {
  std::vector<double> link_utilisation;        // per directed link
  std::vector<double> memory_utilisation;      // per node
  std::vector<double> forwarding_utilisation;  // per node

  [[nodiscard]] bool simulated() const;
  static InterconnectColouring none(const model::Topology& topology);
  // The run's resources must match the topology (run.topology is that topology or a copy of it).
  static InterconnectColouring from_frame(const SimulationRun& run, const UtilisationFrame& frame);
};

enum class LaneLabels { kAuto, kOn, kOff };  // auto: only where lanes are long enough

struct RenderOptions {
  bool header = true;  // title and subtitle band at the top
  bool legend = true;  // colour scale band at the bottom
  LaneLabels lane_labels = LaneLabels::kAuto;
  QString title;
  QString subtitle;
  int selected_link = -1;  // drawn with a halo (both directions of the link)
  int selected_node = -1;
  QColor background = QColor(255, 255, 255);
};

// Where everything lands for one target rectangle (device coordinates).
struct InterconnectGeometry {
  QRectF drawing;                 // the area the machine is fitted into
  QRectF header;                  // empty when no header
  QRectF legend;                  // empty when no legend
  double card_width = 0.0;        // socket card size
  double card_height = 0.0;
  double lane_width = 0.0;
  double font_px = 10.0;
  std::vector<QPointF> centres;   // per node
  std::vector<QRectF> cards;      // per node: the socket card (routers: the diamond's box)
  std::vector<QRectF> controllers;  // per node: the memory-controller strip (empty without memory)
  std::vector<QLineF> lanes;      // per directed link: start at the source card, end at the arrow tip
  bool lane_labels = false;
};

class InterconnectRenderer {
 public:
  InterconnectRenderer(std::shared_ptr<const model::Topology> topology, TopologyLayout layout);

  void set_colouring(InterconnectColouring colouring);
  void set_options(RenderOptions options) { options_ = std::move(options); }
  [[nodiscard]] const RenderOptions& options() const { return options_; }
  [[nodiscard]] const model::Topology& topology() const { return *topology_; }
  [[nodiscard]] const TopologyLayout& layout() const { return layout_; }
  [[nodiscard]] const InterconnectColouring& colouring() const { return colouring_; }

  [[nodiscard]] InterconnectGeometry geometry(const QRectF& target) const;
  void paint(QPainter& painter, const QRectF& target) const;

  // Directed link whose lane is drawn at `point` (nearest within a few pixels), or -1.
  [[nodiscard]] int link_at(const QPointF& point, const QRectF& target) const;
  // Node whose card contains `point`, or -1.
  [[nodiscard]] int node_at(const QPointF& point, const QRectF& target) const;
  // One-line description of a link or node for tool tips and status bars.
  [[nodiscard]] QString describe_link(int link) const;
  [[nodiscard]] QString describe_node(int node) const;

 private:
  void paint_header(QPainter& p, const InterconnectGeometry& g) const;
  void paint_legend(QPainter& p, const InterconnectGeometry& g) const;
  void paint_packages(QPainter& p, const InterconnectGeometry& g) const;
  void paint_lanes(QPainter& p, const InterconnectGeometry& g) const;
  void paint_nodes(QPainter& p, const InterconnectGeometry& g) const;
  void paint_lane_labels(QPainter& p, const InterconnectGeometry& g) const;
  [[nodiscard]] QString lane_label(int link) const;

  std::shared_ptr<const model::Topology> topology_;
  TopologyLayout layout_;
  InterconnectColouring colouring_;
  RenderOptions options_;
};

}  // namespace numatwin::gui
