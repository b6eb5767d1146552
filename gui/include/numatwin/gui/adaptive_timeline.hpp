// The adaptive view: a timeline of a `numatwin adaptive` run (docs/adaptive.md) — queries/s on
// top, then per socket a strip of CPU share and one of memory-controller utilisation (colour
// scale of utilisation_colour.hpp), with the Data Placer's decisions marked where they were
// taken. Reads the CLI's `adaptive --json` output (gui never runs scenarios from files itself:
// their reader lives in cli/) or takes a run's sim::AdaptiveResult directly.
#pragma once

#include <QPainter>
#include <QRectF>
#include <QSize>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "numatwin/sim/adaptive/adaptive_engine.hpp"

namespace numatwin::gui {

struct AdaptiveTimelineView {
  struct Bin {
    double begin_s = 0.0;
    double end_s = 0.0;
    double queries_per_s = 0.0;
    std::vector<double> cpu;     // per socket, busy workers share
    std::vector<double> memory;  // per socket, controller utilisation
  };
  struct Decision {
    double decided_s = 0.0;
    double done_s = -1.0;  // -1: still running at the end
    std::string action;    // move | partition | merge
    std::string table;
    std::string from;  // empty for a merge
    std::string to;
    std::string group;  // the table group moved together, empty for a single table
    double bytes_copied = 0.0;
    std::vector<std::pair<std::string, double>> tables;  // per table: bytes copied (a group's every table)
  };
  std::string title;
  std::vector<std::string> sockets;
  std::vector<Bin> bins;
  std::vector<Decision> decisions;
};

AdaptiveTimelineView adaptive_timeline_from_result(const sim::AdaptiveResult& result,
                                                   const std::string& title);

// `numatwin adaptive ... --json` output. Throws model::InputError (file, JSON pointer,
// expectation).
AdaptiveTimelineView read_adaptive_timeline(const std::filesystem::path& path);

// Where things are drawn in `area`: the throughput chart, per socket its CPU and memory strips,
// and x of a time (seconds from 0 to the last bin's end).
struct AdaptiveTimelineLayout {
  QRectF chart;
  std::vector<QRectF> cpu;
  std::vector<QRectF> memory;
  double end_s = 0.0;
  [[nodiscard]] double x_of(double t_s) const;
};

AdaptiveTimelineLayout adaptive_timeline_layout(const AdaptiveTimelineView& view,
                                                const QRectF& area);

// Colour of a placer decision's marker (one per action).
QColor adaptive_decision_colour(const std::string& action);

void paint_adaptive_timeline(QPainter& painter, const QRectF& area,
                             const AdaptiveTimelineView& view);

}  // namespace numatwin::gui
