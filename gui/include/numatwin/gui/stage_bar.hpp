// The phase bar: a run's named stages (sim::SimulationResult::stages; the whole sort-merge join's
// four phases: sort facts, partition dimension, gather + sort dimension, merge) as
// one horizontal bar per run. Every row shares one time scale (the longest row's run), so two
// runs side by side (naive vs ring) compare by length; each stage is a segment as wide as its
// span, in its own colour, and under the bar a legend gives each stage's seconds and share of the
// run (stages too short to see on the scale still get a sliver of kMinSegmentPx). A marker shows
// the time on screen (the merge step the interconnect view shows).
#pragma once

#include <QColor>
#include <QPainter>
#include <QRectF>
#include <QString>
#include <vector>

#include "numatwin/sim/plan/result.hpp"

namespace numatwin::gui {

struct StageBarRow {
  QString label;                       // "A: naive", or the run's label
  std::vector<sim::StageSpan> stages;  // in time order
  double time_s = 0.0;                 // the run's time
  double marker_s = -1.0;              // < 0: no marker
};

constexpr double kMinSegmentPx = 3.0;

// Geometry of paint_stage_bar in `area`: per row its bar and per stage its segment.
struct StageBarLayout {
  QRectF title;
  std::vector<QRectF> labels;                 // per row, left of its bar
  std::vector<QRectF> bars;                   // per row, the whole scale (0 .. scale_s)
  std::vector<std::vector<QRectF>> segments;  // per row, per stage
  std::vector<QRectF> legends;                // per row, under its bar
  double scale_s = 0.0;                       // the longest row's time
  // x of a time on row `row`'s bar.
  [[nodiscard]] double x_of(int row, double t_s) const;
};

// Every row gets a bar (a row without stages draws its label and says it has no phases).
StageBarLayout stage_bar_layout(const std::vector<StageBarRow>& rows, const QRectF& area);

// Height paint_stage_bar needs for `row_count` rows.
double stage_bar_height(int row_count);

// Colour of the stage at `index` in its row (the join's four phases in order; repeats after six).
QColor stage_colour(int index);

// "sort facts 6.98 s (93.4 %)".
QString stage_legend_text(const sim::StageSpan& stage, double time_s);

struct SimulationRun;
// A run's row: its stages and time, the marker at the start of `step` (< 0: none, the whole run).
StageBarRow stage_bar_row(const SimulationRun& run, const QString& label, int step);

void paint_stage_bar(QPainter& painter, const QRectF& area, const std::vector<StageBarRow>& rows);

}  // namespace numatwin::gui
