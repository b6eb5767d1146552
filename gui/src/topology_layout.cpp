#include "numatwin/gui/topology_layout.hpp"

#include <QLineF>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>
#include <utility>

namespace numatwin::gui {
namespace {

using Edges = std::set<std::pair<int, int>>;  // undirected, (low, high)

Edges undirected_edges(const model::Topology& t) {
  Edges edges;
  for (const model::Link& l : t.links) edges.emplace(std::min(l.from, l.to), std::max(l.from, l.to));
  return edges;
}

bool linked(const Edges& e, int a, int b) { return e.count({std::min(a, b), std::max(a, b)}) > 0; }

// Point k of n on a circle of radius r around c, starting at the top, clockwise.
QPointF on_circle(int k, int n, QPointF c, double r, double phase = 0.0) {
  const double angle = -std::numbers::pi / 2 + phase + 2.0 * std::numbers::pi * k / std::max(1, n);
  return {c.x() + r * std::cos(angle), c.y() + r * std::sin(angle)};
}

// Two rails 0..h-1 and h..n-1 joined consecutively, with at least h-2 rungs between them.
bool is_ladder(const model::Topology& t, const Edges& e) {
  const int n = static_cast<int>(t.nodes.size());
  if (n < 4 || n % 2 != 0 || static_cast<int>(t.numa_nodes().size()) != n) return false;
  const int h = n / 2;
  for (int i = 0; i + 1 < h; ++i) {
    if (!linked(e, i, i + 1) || !linked(e, h + i, h + i + 1)) return false;
  }
  int rungs = 0;
  for (int i = 0; i < h; ++i) rungs += linked(e, i, i + h) ? 1 : 0;
  // A ring 0-1-...-(n-1)-0 also has both "rails"; it is drawn as a circle unless it has rungs.
  return rungs >= std::max(1, h - 2) && static_cast<int>(e.size()) <= 3 * h;
}

int hypercube_dimensions(const model::Topology& t, const Edges& e) {
  const int n = static_cast<int>(t.nodes.size());
  if (n < 4 || (n & (n - 1)) != 0 || static_cast<int>(t.numa_nodes().size()) != n) return 0;
  int d = 0;
  while ((1 << d) < n) ++d;
  if (static_cast<int>(e.size()) != n * d / 2) return 0;
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < d; ++b) {
      if (!linked(e, a, a ^ (1 << b))) return 0;
    }
  }
  return d;
}

QPointF hypercube_point(int a, int d) {
  if (d == 2) {
    static constexpr int kOrder[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    return {kOrder[a][0] * 400.0, kOrder[a][1] * 400.0};
  }
  // A 3-cube in perspective: bit 0 and bit 1 span a square, bit 2 the offset back face; higher
  // bits tile such cubes on a grid (bits 3, 5, ... across, 4, 6, ... down).
  const double x = (a & 1) * 400.0 + ((a >> 2) & 1) * 220.0;
  const double y = ((a >> 1) & 1) * 400.0 + ((a >> 2) & 1) * 180.0;
  double gx = 0.0;
  double gy = 0.0;
  for (int bit = 3; bit < d; ++bit) {
    const double step = 900.0 * (1 << ((bit - 3) / 2));
    if (((a >> bit) & 1) != 0) ((bit - 3) % 2 == 0 ? gx : gy) += step;
  }
  return {x + gx, y + gy};
}

}  // namespace

QRectF TopologyLayout::bounds() const {
  if (positions.empty()) return {};
  double x0 = positions[0].x(), x1 = x0, y0 = positions[0].y(), y1 = y0;
  for (const QPointF& p : positions) {
    x0 = std::min(x0, p.x());
    x1 = std::max(x1, p.x());
    y0 = std::min(y0, p.y());
    y1 = std::max(y1, p.y());
  }
  return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

double TopologyLayout::min_distance() const {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < positions.size(); ++i) {
    for (std::size_t j = i + 1; j < positions.size(); ++j) best = std::min(best, QLineF(positions[i], positions[j]).length());
  }
  return std::isfinite(best) ? best : 0.0;
}

TopologyLayout layout_topology(const model::Topology& t) {
  TopologyLayout out;
  const int n = static_cast<int>(t.nodes.size());
  out.positions.resize(t.nodes.size());
  const bool all_placed = n > 0 && std::all_of(t.nodes.begin(), t.nodes.end(), [](const model::Node& node) {
                            return node.position.has_value();
                          });
  if (all_placed) {
    out.kind = LayoutKind::kFile;
    for (int i = 0; i < n; ++i) out.positions[i] = QPointF(t.nodes[i].position->x, t.nodes[i].position->y);
    return out;
  }
  const Edges edges = undirected_edges(t);
  std::vector<int> routers;
  for (int i = 0; i < n; ++i) {
    if (t.nodes[i].kind == model::NodeKind::kRouter) routers.push_back(i);
  }
  if (!routers.empty()) {
    // Chassis: routers on an inner circle; each node goes with the first router it links to,
    // fanned out on a small circle beyond it. Nodes linked to no router go on an outer ring.
    out.kind = LayoutKind::kChassis;
    const int r_count = static_cast<int>(routers.size());
    const double inner = r_count == 1 ? 0.0 : 260.0 + 60.0 * r_count;
    std::vector<std::vector<int>> members(routers.size());
    std::vector<int> loose;
    for (int i = 0; i < n; ++i) {
      if (t.nodes[i].kind == model::NodeKind::kRouter) continue;
      bool placed = false;
      for (int r = 0; r < r_count && !placed; ++r) {
        if (linked(edges, i, routers[r])) {
          members[r].push_back(i);
          placed = true;
        }
      }
      if (!placed) loose.push_back(i);
    }
    for (int r = 0; r < r_count; ++r) {
      const QPointF centre = on_circle(r, r_count, QPointF(0, 0), inner);
      out.positions[routers[r]] = centre;
      const int m = static_cast<int>(members[r].size());
      const double cluster = 110.0 + 22.0 * m;
      // The cluster sits beyond the router, away from the machine's centre.
      const QPointF outward = r_count == 1 ? QPointF(0, 0) : centre * ((inner + cluster * 1.25) / std::max(1.0, inner));
      for (int k = 0; k < m; ++k) out.positions[members[r][k]] = on_circle(k, m, outward, cluster, std::numbers::pi / std::max(1, m));
    }
    const double outer = inner + 600.0;
    for (std::size_t k = 0; k < loose.size(); ++k) {
      out.positions[loose[k]] = on_circle(static_cast<int>(k), static_cast<int>(loose.size()), QPointF(0, 0), outer);
    }
    return out;
  }
  if (is_ladder(t, edges)) {
    out.kind = LayoutKind::kLadder;
    const int h = n / 2;
    for (int i = 0; i < n; ++i) out.positions[i] = QPointF(300.0 * (i % h), i < h ? 0.0 : 420.0);
    return out;
  }
  if (const int d = hypercube_dimensions(t, edges); d >= 2) {
    out.kind = LayoutKind::kHypercube;
    for (int i = 0; i < n; ++i) out.positions[i] = hypercube_point(i, d);
    return out;
  }
  out.kind = LayoutKind::kCircle;
  const double radius = n <= 1 ? 0.0 : std::max(220.0, 150.0 * n / std::numbers::pi);
  for (int i = 0; i < n; ++i) out.positions[i] = on_circle(i, n, QPointF(0, 0), radius);
  return out;
}

QString layout_kind_name(LayoutKind kind) {
  switch (kind) {
    case LayoutKind::kFile: return QStringLiteral("file positions");
    case LayoutKind::kLadder: return QStringLiteral("ladder");
    case LayoutKind::kHypercube: return QStringLiteral("hypercube");
    case LayoutKind::kChassis: return QStringLiteral("chassis around routers");
    case LayoutKind::kCircle: return QStringLiteral("circle");
  }
  return QStringLiteral("circle");
}

}  // namespace numatwin::gui
