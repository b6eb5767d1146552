// Where each node of a topology is drawn: the file's positions when every node has one,
// otherwise an automatic layout chosen from the shape of the link graph (ring, ladder,
// hypercube, chassis around routers, or a circle). Coordinates are layout units, y down.
#pragma once

#include <QPointF>
#include <QRectF>
#include <QString>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::gui {

enum class LayoutKind {
  kFile,       // every node carried a position
  kLadder,     // two rails 0..n/2-1 (top) and n/2..n-1 (bottom), rungs between (also twisted)
  kHypercube,  // n = 2^d: a square, a cube in perspective, or a grid of sub-cubes
  kChassis,    // routers on an inner circle, each router's sockets clustered outside it
  kCircle,     // rings, Moebius ladders, fully connected and anything else: a circle in file order
};

struct TopologyLayout {
  LayoutKind kind = LayoutKind::kCircle;
  std::vector<QPointF> positions;  // per node of the topology

  [[nodiscard]] QRectF bounds() const;
  // Smallest distance between two node positions (0 with fewer than two nodes).
  [[nodiscard]] double min_distance() const;
};

TopologyLayout layout_topology(const model::Topology& topology);
QString layout_kind_name(LayoutKind kind);

}  // namespace numatwin::gui
