#include "numatwin/gui/interconnect_renderer.hpp"

#include <QFont>
#include <QFontMetricsF>
#include <QLinearGradient>
#include <QPainterPath>
#include <QPen>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <utility>

#include "numatwin/gui/utilisation_colour.hpp"
#include "numatwin/model/memory_tiers.hpp"

namespace numatwin::gui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QColor kInk(40, 44, 52);
const QColor kMutedInk(95, 100, 110);
const QColor kLaneOutline(60, 64, 72);
const QColor kCardFill(246, 247, 249);
const QColor kCardBorder(70, 75, 85);
const QColor kSelection(30, 120, 255, 110);

int px(double value) { return static_cast<int>(std::lround(value)); }

QFont font_px(double size, bool bold = false) {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPixelSize(std::max(6, px(size)));
  f.setBold(bold);
  return f;
}

double luminance(const QColor& c) { return 0.2126 * c.red() + 0.7152 * c.green() + 0.0722 * c.blue(); }

QString gbps_text(double gbps) {
  if (gbps >= 100.0) return QString::number(gbps, 'f', 0);
  if (gbps >= 10.0) return QString::number(gbps, 'f', 1);
  return QString::number(gbps, 'g', 2);
}

double value_at(const std::vector<double>& v, int i) {
  return i >= 0 && i < static_cast<int>(v.size()) ? v[i] : kNaN;
}

// Distance along the unit direction u from the centre of a w x h box to its border.
double box_exit(double hw, double hh, const QPointF& u) {
  const double ax = std::abs(u.x());
  const double ay = std::abs(u.y());
  double t = std::numeric_limits<double>::infinity();
  if (ax > 1e-12) t = std::min(t, hw / ax);
  if (ay > 1e-12) t = std::min(t, hh / ay);
  return std::isfinite(t) ? t : 0.0;
}

// Diamond |x|/hw + |y|/hh <= 1.
double diamond_exit(double hw, double hh, const QPointF& u) {
  const double d = std::abs(u.x()) / hw + std::abs(u.y()) / hh;
  return d > 1e-12 ? 1.0 / d : 0.0;
}

bool key_rect_width_is_narrow(double legend_width) { return legend_width < 900.0; }

double distance_to_segment(const QPointF& p, const QLineF& s) {
  const QPointF d = s.p2() - s.p1();
  const double len2 = d.x() * d.x() + d.y() * d.y();
  double t = len2 > 0.0 ? ((p.x() - s.x1()) * d.x() + (p.y() - s.y1()) * d.y()) / len2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  const QPointF q = s.p1() + t * d;
  return std::hypot(p.x() - q.x(), p.y() - q.y());
}

}  // namespace

bool InterconnectColouring::simulated() const {
  auto any = [](const std::vector<double>& v) { return std::any_of(v.begin(), v.end(), [](double x) { return !std::isnan(x); }); };
  return any(link_utilisation) || any(memory_utilisation);
}

InterconnectColouring InterconnectColouring::none(const model::Topology& topology) {
  InterconnectColouring c;
  c.link_utilisation.assign(topology.links.size(), kNaN);
  c.memory_utilisation.assign(topology.nodes.size(), kNaN);
  c.forwarding_utilisation.assign(topology.nodes.size(), kNaN);
  return c;
}

InterconnectColouring InterconnectColouring::from_frame(const SimulationRun& run, const UtilisationFrame& frame) {
  InterconnectColouring c = none(*run.topology);
  const ResourceMap& m = run.resources;
  for (std::size_t l = 0; l < c.link_utilisation.size() && l < m.link_resource.size(); ++l) {
    c.link_utilisation[l] = value_at(frame.utilisation, m.link_resource[l]);
  }
  for (std::size_t n = 0; n < c.memory_utilisation.size(); ++n) {
    if (n < m.memory_resource.size()) c.memory_utilisation[n] = value_at(frame.utilisation, m.memory_resource[n]);
    if (n < m.forwarding_resource.size()) c.forwarding_utilisation[n] = value_at(frame.utilisation, m.forwarding_resource[n]);
  }
  return c;
}

InterconnectRenderer::InterconnectRenderer(std::shared_ptr<const model::Topology> topology, TopologyLayout layout)
    : topology_(std::move(topology)), layout_(std::move(layout)), colouring_(InterconnectColouring::none(*topology_)) {}

void InterconnectRenderer::set_colouring(InterconnectColouring colouring) {
  colouring_ = std::move(colouring);
  colouring_.link_utilisation.resize(topology_->links.size(), kNaN);
  colouring_.memory_utilisation.resize(topology_->nodes.size(), kNaN);
  colouring_.forwarding_utilisation.resize(topology_->nodes.size(), kNaN);
}

InterconnectGeometry InterconnectRenderer::geometry(const QRectF& target) const {
  InterconnectGeometry g;
  const model::Topology& t = *topology_;
  const double unit = std::clamp(std::min(target.width() * 0.8, target.height()) / 60.0, 7.5, 14.0);
  QRectF area = target;
  if (options_.header) {
    g.header = QRectF(target.left(), target.top(), target.width(), unit * 4.6);
    area.setTop(g.header.bottom());
  }
  if (options_.legend) {
    g.legend = QRectF(target.left(), target.bottom() - unit * 5.0, target.width(), unit * 5.0);
    area.setBottom(g.legend.top());
  }
  g.drawing = area;
  const std::size_t n = t.nodes.size();
  g.centres.resize(n);
  g.cards.resize(n);
  g.controllers.resize(n);
  g.lanes.resize(t.links.size());
  if (n == 0 || area.width() <= 1.0 || area.height() <= 1.0) return g;

  const QRectF bounds = layout_.bounds();
  const double min_distance = layout_.min_distance();
  // Fit the layout, leaving room for half a card (and its labels) on every side; the card size
  // depends on the scale, so settle both in a few rounds.
  double card_w = 110.0;
  double scale = 1.0;
  for (int round = 0; round < 4; ++round) {
    const double margin_x = card_w * 0.5 + unit * 1.5;
    const double margin_y = card_w * 0.34 + unit * 1.5;
    const double sx = bounds.width() > 0 ? (area.width() - 2 * margin_x) / bounds.width() : std::numeric_limits<double>::infinity();
    const double sy = bounds.height() > 0 ? (area.height() - 2 * margin_y) / bounds.height() : std::numeric_limits<double>::infinity();
    scale = std::max(1e-6, std::min(sx, sy));
    if (!std::isfinite(scale)) scale = 1.0;
    const double spacing = min_distance > 0 ? min_distance * scale : std::min(area.width(), area.height());
    card_w = std::clamp(spacing * 0.58, 54.0, 150.0);
  }
  g.card_width = card_w;
  g.card_height = card_w * 0.64;
  g.font_px = std::clamp(card_w * 0.12, 8.0, 15.0);
  g.lane_width = std::clamp(card_w * 0.055, 3.0, 8.0);
  const QPointF offset = area.center() - QPointF(bounds.center().x() * scale, bounds.center().y() * scale);
  for (std::size_t i = 0; i < n; ++i) {
    g.centres[i] = QPointF(layout_.positions[i].x() * scale, layout_.positions[i].y() * scale) + offset;
    const bool router = t.nodes[i].kind == model::NodeKind::kRouter;
    const double w = router ? card_w * 0.62 : card_w;
    const double h = router ? card_w * 0.46 : g.card_height;
    g.cards[i] = QRectF(g.centres[i].x() - w / 2, g.centres[i].y() - h / 2, w, h);
    if (!router && t.nodes[i].has_memory()) {
      const QRectF& c = g.cards[i];
      // Every card: its name (and cores, or memory kind) above, its controller below.
      g.controllers[i] = QRectF(c.left() + 3, c.top() + c.height() * 0.52, c.width() - 6, c.height() * 0.48 - 3);
    }
  }
  const double gap = g.lane_width * 0.95;  // half the distance between the two lanes' centres
  double shortest = std::numeric_limits<double>::infinity();
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    const model::Link& link = t.links[l];
    const QPointF p = g.centres[link.from];
    const QPointF q = g.centres[link.to];
    const double len = std::hypot(q.x() - p.x(), q.y() - p.y());
    if (len < 1e-9) continue;
    const QPointF u = (q - p) / len;
    const QPointF right(-u.y(), u.x());  // y grows downwards: the right-hand side of travel
    auto exit = [&](int node) {
      const QRectF& c = g.cards[node];
      return t.nodes[node].kind == model::NodeKind::kRouter ? diamond_exit(c.width() / 2, c.height() / 2, u)
                                                             : box_exit(c.width() / 2, c.height() / 2, u);
    };
    const double a = exit(link.from) + 2.0;
    const double b = exit(link.to) + 3.0;
    g.lanes[l] = QLineF(p + u * a + right * gap, q - u * b + right * gap);
    shortest = std::min(shortest, g.lanes[l].length());
  }
  const double label_room = g.font_px * 9.0;
  g.lane_labels = options_.lane_labels == LaneLabels::kOn ||
                  (options_.lane_labels == LaneLabels::kAuto && shortest >= label_room && t.links.size() <= 64);
  return g;
}

void InterconnectRenderer::paint(QPainter& p, const QRectF& target) const {
  const InterconnectGeometry g = geometry(target);
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setRenderHint(QPainter::TextAntialiasing, true);
  p.fillRect(target, options_.background);
  paint_packages(p, g);
  paint_lanes(p, g);
  paint_nodes(p, g);
  if (g.lane_labels) paint_lane_labels(p, g);
  if (options_.header) paint_header(p, g);
  if (options_.legend) paint_legend(p, g);
  p.restore();
}

// A package of several nodes (SNC/NPS halves and quadrants, a socket's DRAM and HBM nodes) as a
// shaded frame around its cards, named in its corner; left out where the frame would take in a
// card of another package (the layout put them apart).
void InterconnectRenderer::paint_packages(QPainter& p, const InterconnectGeometry& g) const {
  const model::Topology& t = *topology_;
  std::vector<std::string> packages;
  for (const model::Node& n : t.nodes) {
    if (!n.package.empty() && std::find(packages.begin(), packages.end(), n.package) == packages.end()) packages.push_back(n.package);
  }
  const double margin = g.card_width * 0.09;
  for (const std::string& package : packages) {
    QRectF frame;
    int members = 0;
    for (std::size_t i = 0; i < t.nodes.size(); ++i) {
      if (t.nodes[i].package != package) continue;
      frame = members == 0 ? g.cards[i] : frame.united(g.cards[i]);
      ++members;
    }
    if (members < 2) continue;
    frame = frame.adjusted(-margin, -margin - g.font_px, margin, margin);
    bool overlaps = false;
    for (std::size_t i = 0; i < t.nodes.size() && !overlaps; ++i) overlaps = t.nodes[i].package != package && frame.intersects(g.cards[i]);
    if (overlaps) continue;
    p.setPen(QPen(QColor(150, 156, 170), 1.0, Qt::DashLine));
    p.setBrush(QColor(232, 236, 244, 150));
    p.drawRoundedRect(frame, 8, 8);
    p.setPen(kMutedInk);
    p.setFont(font_px(g.font_px * 0.8));
    p.drawText(frame.adjusted(6, 2, -6, -2), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("package %1").arg(QString::fromStdString(package)));
  }
}

void InterconnectRenderer::paint_lanes(QPainter& p, const InterconnectGeometry& g) const {
  const model::Topology& t = *topology_;
  const double w = g.lane_width;
  // Selection halo first, under both directions of the selected link.
  if (options_.selected_link >= 0 && options_.selected_link < static_cast<int>(t.links.size())) {
    const model::Link& sel = t.links[options_.selected_link];
    for (std::size_t l = 0; l < t.links.size(); ++l) {
      const model::Link& link = t.links[l];
      if ((link.from == sel.from && link.to == sel.to) || (link.from == sel.to && link.to == sel.from)) {
        p.setPen(QPen(kSelection, w * 3.2, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(g.lanes[l]);
      }
    }
  }
  // Idle lanes first so hot ones are drawn on top where lines cross.
  std::vector<std::size_t> order(t.links.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto util = [&](std::size_t l) {
    const double u = colouring_.link_utilisation[l];
    return std::isnan(u) ? -1.0 : u;
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return util(a) < util(b); });
  for (std::size_t l : order) {
    const QLineF& lane = g.lanes[l];
    if (lane.length() < 1.0) continue;
    const QColor fill = utilisation_colour(colouring_.link_utilisation[l]);
    const QPointF u = (lane.p2() - lane.p1()) / lane.length();
    const QPointF right(-u.y(), u.x());
    const double head_len = std::min(w * 2.8, lane.length() * 0.4);
    const QPointF neck = lane.p2() - u * head_len;
    // Body: a dark outline stroke, then the colour; a host-bridge link to a CXL expander dashed,
    // so it reads apart from the socket links.
    const model::Link& link = t.links[l];
    auto cxl = [&](model::NodeIndex n) { return t.nodes[n].memory_kind == model::MemoryKind::kCxl; };
    const bool dashed = cxl(link.from) || cxl(link.to);
    // Qt's dash lengths are in pen widths: the same pixel pattern for the outline and the body.
    auto pen = [dashed](const QColor& colour, double width) {
      QPen lane_pen(colour, width, Qt::SolidLine, Qt::FlatCap);
      if (dashed) lane_pen.setDashPattern({14.0 / width, 7.0 / width});
      return lane_pen;
    };
    p.setPen(pen(kLaneOutline, w + 2.0));
    p.drawLine(QLineF(lane.p1(), neck + u * 0.5));
    p.setPen(pen(fill, w));
    p.drawLine(QLineF(lane.p1(), neck + u * 1.0));
    // Arrow head at the destination.
    QPolygonF head;
    head << lane.p2() << neck + right * (w * 1.25) << neck - right * (w * 1.25);
    p.setPen(QPen(kLaneOutline, 1.0));
    p.setBrush(fill);
    p.drawPolygon(head);
  }
}

void InterconnectRenderer::paint_nodes(QPainter& p, const InterconnectGeometry& g) const {
  const model::Topology& t = *topology_;
  const QFont title = font_px(g.font_px * 1.05, true);
  const QFont small = font_px(g.font_px * 0.86);
  const bool compact = g.card_width < 90.0;  // dense machines: id and controller utilisation only
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const model::Node& node = t.nodes[i];
    const QRectF& c = g.cards[i];
    const bool selected = options_.selected_node == static_cast<int>(i);
    if (node.kind == model::NodeKind::kRouter) {
      QPolygonF diamond;
      diamond << QPointF(c.center().x(), c.top()) << QPointF(c.right(), c.center().y()) << QPointF(c.center().x(), c.bottom())
              << QPointF(c.left(), c.center().y());
      const double fwd = colouring_.forwarding_utilisation[i];
      p.setPen(QPen(selected ? kSelection.darker(150) : kCardBorder, selected ? 3.0 : 1.4));
      p.setBrush(std::isnan(fwd) ? QColor(225, 228, 234) : utilisation_colour(fwd));
      p.drawPolygon(diamond);
      p.setFont(small);
      p.setPen(std::isnan(fwd) || luminance(utilisation_colour(fwd)) > 110 ? kInk : Qt::white);
      p.drawText(c, Qt::AlignCenter, QString::fromStdString(node.id));
      continue;
    }
    // A memory-only node (HBM, CXL, far memory) has a dashed border: no cores, memory alone.
    p.setPen(QPen(selected ? kSelection.darker(150) : kCardBorder, selected ? 3.0 : 1.4, node.has_cores() ? Qt::SolidLine : Qt::DashLine));
    p.setBrush(kCardFill);
    p.drawRoundedRect(c, 5, 5);
    const QRectF mc = g.controllers[i];
    const QRectF top = mc.isEmpty() ? c : QRectF(c.left(), c.top(), c.width(), mc.top() - c.top());
    if (!node.has_cores()) {
      p.setPen(kInk);
      p.setFont(title);
      const QRectF id_box(top.left() + 4, top.top() + 2, top.width() - 8, compact ? top.height() - 4 : top.height() * 0.55);
      p.drawText(id_box, compact ? Qt::AlignCenter : Qt::AlignHCenter | Qt::AlignBottom,
                 QFontMetricsF(title).elidedText(QString::fromStdString(node.id), Qt::ElideRight, id_box.width()));
      if (!compact) {
        p.setFont(small);
        p.setPen(kMutedInk);
        const QString kind = node.memory_kind ? QString::fromUtf8(model::memory_kind_name(*node.memory_kind).data(), static_cast<qsizetype>(model::memory_kind_name(*node.memory_kind).size())) : QStringLiteral("memory");
        p.drawText(QRectF(top.left() + 2, id_box.bottom(), top.width() - 4, top.bottom() - id_box.bottom()), Qt::AlignHCenter | Qt::AlignTop,
                   QStringLiteral("%1, no cores").arg(kind));
      }
    } else {
      p.setPen(kInk);
      p.setFont(title);
      const QRectF id_box(top.left() + 4, top.top() + 2, top.width() - 8, compact ? top.height() - 4 : top.height() * 0.55);
      if (compact) {
        p.drawText(id_box, Qt::AlignCenter, QString::fromStdString(node.id));
      }
      if (!compact) p.drawText(id_box, Qt::AlignHCenter | Qt::AlignBottom, QString::fromStdString(node.id));
      p.setFont(small);
      p.setPen(kMutedInk);
      const QString cores = QStringLiteral("%1 cores").arg(node.cores) +
                            (node.threads_per_core > 1 ? QStringLiteral(" x%1").arg(node.threads_per_core) : QString());
      if (!compact) {
        p.drawText(QRectF(top.left() + 2, id_box.bottom(), top.width() - 4, top.bottom() - id_box.bottom()), Qt::AlignHCenter | Qt::AlignTop,
                   cores);
      }
    }
    if (!mc.isEmpty()) {
      const double u = colouring_.memory_utilisation[i];
      const QColor fill = utilisation_colour(u);
      p.setPen(QPen(kCardBorder, 1.0));
      p.setBrush(fill);
      p.drawRoundedRect(mc, 3, 3);
      p.setPen(luminance(fill) > 110 ? kInk : Qt::white);
      p.setFont(small);
      const double cap = node.memory_read_bandwidth_gbps;
      QString text = std::isnan(u) ? QStringLiteral("MC %1 GB/s").arg(gbps_text(cap))
                                   : QStringLiteral("MC %1/%2 GB/s").arg(gbps_text(u * cap), gbps_text(cap));
      if (compact) text = std::isnan(u) ? QStringLiteral("MC %1").arg(gbps_text(cap)) : QStringLiteral("MC %1%").arg(100.0 * u, 0, 'f', 0);
      p.drawText(mc, Qt::AlignCenter, QFontMetricsF(small).elidedText(text, Qt::ElideRight, mc.width() - 2));
    }
  }
}

QString InterconnectRenderer::lane_label(int link) const {
  const model::Link& l = topology_->links[link];
  const double u = colouring_.link_utilisation[link];
  if (std::isnan(u)) return gbps_text(l.bandwidth_gbps) + QStringLiteral(" GB/s");
  return QStringLiteral("%1/%2").arg(gbps_text(u * l.bandwidth_gbps), gbps_text(l.bandwidth_gbps));
}

void InterconnectRenderer::paint_lane_labels(QPainter& p, const InterconnectGeometry& g) const {
  const QFont f = font_px(g.font_px * 0.82);
  const QFontMetricsF fm(f);
  p.setFont(f);
  for (std::size_t l = 0; l < g.lanes.size(); ++l) {
    const QLineF& lane = g.lanes[l];
    if (lane.length() < 1.0) continue;
    const QString text = lane_label(static_cast<int>(l));
    const QPointF u = (lane.p2() - lane.p1()) / lane.length();
    const QPointF right(-u.y(), u.x());
    const QSizeF size(fm.horizontalAdvance(text) + 6, fm.height() + 2);
    // Near the source end, on the lane's outer side, far enough that the box clears the lane.
    const double clearance = g.lane_width * 0.9 + 0.5 * (std::abs(right.x()) * size.width() + std::abs(right.y()) * size.height());
    const QPointF at = lane.pointAt(0.3) + right * clearance;
    const QRectF box(at.x() - size.width() / 2, at.y() - size.height() / 2, size.width(), size.height());
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(255, 255, 255, 225));
    p.drawRoundedRect(box, 3, 3);
    p.setPen(kInk);
    p.drawText(box, Qt::AlignCenter, text);
  }
}

void InterconnectRenderer::paint_header(QPainter& p, const InterconnectGeometry& g) const {
  const QRectF h = g.header.adjusted(12, 6, -12, -4);
  const QFont title = font_px(h.height() * 0.36, true);
  const QFont sub = font_px(h.height() * 0.27);
  p.setPen(kInk);
  p.setFont(title);
  const QString title_text = options_.title.isEmpty() ? QString::fromStdString(topology_->name) : options_.title;
  p.drawText(QRectF(h.left(), h.top(), h.width(), h.height() * 0.52), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetricsF(title).elidedText(title_text, Qt::ElideRight, h.width()));
  p.setFont(sub);
  p.setPen(kMutedInk);
  p.drawText(QRectF(h.left(), h.top() + h.height() * 0.52, h.width(), h.height() * 0.48), Qt::AlignLeft | Qt::AlignVCenter,
             QFontMetricsF(sub).elidedText(options_.subtitle, Qt::ElideRight, h.width()));
}

void InterconnectRenderer::paint_legend(QPainter& p, const InterconnectGeometry& g) const {
  const QRectF area = g.legend.adjusted(12, 4, -12, -4);
  const double unit = area.height() / 4.2;
  const QFont f = font_px(unit * 1.05);
  const QFontMetricsF fm(f);
  p.setFont(f);
  // Gradient bar sampled from the scale itself, so the legend can never disagree with it.
  const double bar_w = std::min(area.width() * 0.42, 360.0);
  const QRectF bar(area.left() + fm.horizontalAdvance(QStringLiteral("utilisation ")) + 4, area.top() + unit * 0.6, bar_w, unit * 1.3);
  p.setPen(kInk);
  p.drawText(QRectF(area.left(), bar.top() - unit, bar.left() - area.left(), bar.height() + 2 * unit), Qt::AlignLeft | Qt::AlignVCenter,
             QStringLiteral("utilisation"));
  QLinearGradient gradient(bar.topLeft(), bar.topRight());
  for (int i = 0; i <= 20; ++i) gradient.setColorAt(i / 20.0, utilisation_colour(i / 20.0));
  p.setPen(QPen(kCardBorder, 1.0));
  p.setBrush(gradient);
  p.drawRect(bar);
  p.setPen(kMutedInk);
  for (int pct = 0; pct <= 100; pct += 25) {
    const double x = bar.left() + bar.width() * pct / 100.0;
    p.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + unit * 0.4));
    const QString label = QStringLiteral("%1%").arg(pct);
    const double tw = fm.horizontalAdvance(label);
    p.drawText(QRectF(x - tw / 2 - 2, bar.bottom() + unit * 0.4, tw + 4, unit * 1.3), Qt::AlignCenter, label);
  }
  // Grey swatch and the reading key.
  const QRectF swatch(bar.right() + unit * 1.5, bar.top(), unit * 1.3, bar.height());
  p.setPen(QPen(kCardBorder, 1.0));
  p.setBrush(utilisation_colour(kNaN));
  p.drawRect(swatch);
  p.setPen(kInk);
  const QRectF key_rect(swatch.right() + unit * 0.5, area.top(), area.right() - swatch.right() - unit * 0.5, area.height());
  const bool narrow = key_rect_width_is_narrow(area.width());
  const QString key = narrow ? QStringLiteral("grey: not simulated; one arrow per direction;\nlabels: used/capacity GB/s")
                             : QStringLiteral("grey: not simulated.  Each link is two lanes, one arrow per direction;\n"
                                              "lane labels: used/capacity GB/s.  MC: memory controller.");
  p.drawText(key_rect, Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, key);
}

int InterconnectRenderer::link_at(const QPointF& point, const QRectF& target) const {
  const InterconnectGeometry g = geometry(target);
  int best = -1;
  double best_d = g.lane_width * 0.9 + 3.0;
  for (std::size_t l = 0; l < g.lanes.size(); ++l) {
    const double d = distance_to_segment(point, g.lanes[l]);
    if (d <= best_d) {
      best_d = d;
      best = static_cast<int>(l);
    }
  }
  return best;
}

int InterconnectRenderer::node_at(const QPointF& point, const QRectF& target) const {
  const InterconnectGeometry g = geometry(target);
  for (std::size_t i = 0; i < g.cards.size(); ++i) {
    if (g.cards[i].contains(point)) return static_cast<int>(i);
  }
  return -1;
}

QString InterconnectRenderer::describe_link(int link) const {
  if (link < 0 || link >= static_cast<int>(topology_->links.size())) return {};
  const model::Link& l = topology_->links[link];
  QString text = QStringLiteral("%1: %2 GB/s, %3 ns")
                     .arg(QString::fromStdString(topology_->link_name(link)), gbps_text(l.bandwidth_gbps))
                     .arg(l.latency_ns);
  const double u = colouring_.link_utilisation[link];
  if (!std::isnan(u)) text += QStringLiteral(", %1% used (%2 GB/s)").arg(100.0 * u, 0, 'f', 1).arg(gbps_text(u * l.bandwidth_gbps));
  return text;
}

QString InterconnectRenderer::describe_node(int node) const {
  if (node < 0 || node >= static_cast<int>(topology_->nodes.size())) return {};
  const model::Node& n = topology_->nodes[node];
  QString text = QString::fromStdString(n.id);
  if (!n.label.empty()) text += QStringLiteral(" (%1)").arg(QString::fromStdString(n.label));
  if (n.kind == model::NodeKind::kRouter) {
    text += QStringLiteral(": router");
    if (n.forwarding_bandwidth_gbps) text += QStringLiteral(", forwards %1 GB/s").arg(gbps_text(*n.forwarding_bandwidth_gbps));
  } else {
    text += QStringLiteral(": %1 cores x %2 threads").arg(n.cores).arg(n.threads_per_core);
    if (n.has_memory()) {
      text += QStringLiteral(", memory %1, controller %2 GB/s").arg(format_bytes(static_cast<double>(n.memory_capacity_bytes)),
                                                                   gbps_text(n.memory_read_bandwidth_gbps));
    }
  }
  const double u = colouring_.memory_utilisation[node];
  if (!std::isnan(u)) text += QStringLiteral(", controller %1% used").arg(100.0 * u, 0, 'f', 1);
  const double f = colouring_.forwarding_utilisation[node];
  if (!std::isnan(f)) text += QStringLiteral(", forwarding %1% used").arg(100.0 * f, 0, 'f', 1);
  return text;
}

}  // namespace numatwin::gui
