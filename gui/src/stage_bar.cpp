#include "numatwin/gui/stage_bar.hpp"

#include <QFontMetricsF>
#include <algorithm>

#include "numatwin/gui/simulation_run.hpp"

namespace numatwin::gui {
namespace {

constexpr double kTitleHeight = 18.0;
constexpr double kBarHeight = 20.0;
constexpr double kLegendHeight = 16.0;
constexpr double kRowGap = 6.0;
constexpr double kLabelWidth = 120.0;
constexpr double kRightMargin = 8.0;

}  // namespace

double StageBarLayout::x_of(int row, double t_s) const {
  const QRectF& bar = bars.at(static_cast<std::size_t>(row));
  if (!(scale_s > 0.0)) return bar.left();
  return bar.left() + bar.width() * std::clamp(t_s / scale_s, 0.0, 1.0);
}

double stage_bar_height(int row_count) { return kTitleHeight + row_count * (kBarHeight + kLegendHeight + kRowGap) + 4.0; }

StageBarLayout stage_bar_layout(const std::vector<StageBarRow>& rows, const QRectF& area) {
  StageBarLayout l;
  l.title = QRectF(area.left() + 4.0, area.top(), area.width() - 8.0, kTitleHeight);
  for (const StageBarRow& r : rows) l.scale_s = std::max(l.scale_s, r.time_s);
  double y = area.top() + kTitleHeight;
  const double bar_width = std::max(10.0, area.width() - kLabelWidth - kRightMargin);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    l.labels.emplace_back(area.left() + 4.0, y, kLabelWidth - 8.0, kBarHeight);
    l.bars.emplace_back(area.left() + kLabelWidth, y, bar_width, kBarHeight);
    l.legends.emplace_back(area.left() + kLabelWidth, y + kBarHeight, bar_width, kLegendHeight);
    std::vector<QRectF> segments;
    for (const sim::StageSpan& st : rows[i].stages) {
      const double x0 = l.x_of(static_cast<int>(i), st.begin_s);
      const double right = l.bars.back().right();
      const double x1 = std::min(right, std::max(l.x_of(static_cast<int>(i), st.end_s), x0 + kMinSegmentPx));
      segments.emplace_back(std::min(x0, right - kMinSegmentPx), y, std::max(kMinSegmentPx, x1 - x0), kBarHeight);
    }
    l.segments.push_back(std::move(segments));
    y += kBarHeight + kLegendHeight + kRowGap;
  }
  return l;
}

QColor stage_colour(int index) {
  // From Paul Tol's muted scheme: none on the utilisation scale (pale yellow to dark red) nor
  // close to the throughput chart's series colours (the screenshot test counts these pixels).
  static constexpr int kRgb[6][3] = {{51, 34, 136}, {153, 153, 51}, {68, 170, 153}, {136, 34, 85}, {136, 204, 238}, {204, 102, 119}};
  const auto& c = kRgb[static_cast<std::size_t>(std::max(0, index)) % 6];
  return {c[0], c[1], c[2]};
}

QString stage_legend_text(const sim::StageSpan& stage, double time_s) {
  const double seconds = stage.end_s - stage.begin_s;
  return QStringLiteral("%1 %2 (%3 %)")
      .arg(QString::fromStdString(stage.name), format_seconds(seconds))
      .arg(time_s > 0.0 ? 100.0 * seconds / time_s : 0.0, 0, 'f', 1);
}

StageBarRow stage_bar_row(const SimulationRun& run, const QString& label, int step) {
  StageBarRow row;
  row.label = label;
  row.stages = run.result.stages;
  row.time_s = run.result.time_s;
  if (step >= 0 && run.step_count() > 0) row.marker_s = frame_for_step(run, std::min(step, run.step_count() - 1)).begin_s;
  return row;
}

void paint_stage_bar(QPainter& painter, const QRectF& area, const std::vector<StageBarRow>& rows) {
  const StageBarLayout l = stage_bar_layout(rows, area);
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  QFont font = painter.font();
  font.setPointSizeF(8.5);
  painter.setFont(font);
  painter.setPen(QColor(40, 40, 40));
  painter.drawText(l.title, Qt::AlignLeft | Qt::AlignVCenter,
                   QStringLiteral("Phases (stages ended by barriers; bar length: the run's time on one scale of %1; "
                                  "line: the step on screen)")
                       .arg(format_seconds(l.scale_s)));
  const QFontMetricsF metrics(font);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const StageBarRow& row = rows[i];
    painter.setPen(QColor(40, 40, 40));
    painter.drawText(l.labels[i], Qt::AlignRight | Qt::AlignVCenter, metrics.elidedText(row.label, Qt::ElideRight, l.labels[i].width()));
    painter.fillRect(l.bars[i], QColor(245, 245, 245));
    painter.setPen(QColor(200, 200, 200));
    painter.drawRect(l.bars[i].adjusted(0, 0, -1, -1));
    if (row.stages.empty()) {
      painter.setPen(QColor(110, 110, 110));
      painter.drawText(l.bars[i].adjusted(6, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                       QStringLiteral("no phases to show (the sort-merge join with all phases has them)"));
      continue;
    }
    // Segments, with the stage's name inside where it fits.
    for (std::size_t s = 0; s < row.stages.size(); ++s) {
      const QRectF& seg = l.segments[i][s];
      const QColor colour = stage_colour(static_cast<int>(s));
      painter.fillRect(seg, colour);
      const QString name = QString::fromStdString(row.stages[s].name);
      if (metrics.horizontalAdvance(name) + 8.0 < seg.width()) {
        painter.setPen(colour.lightness() > 150 ? QColor(30, 30, 30) : QColor(255, 255, 255));
        painter.drawText(seg, Qt::AlignCenter, name);
      }
    }
    // Legend: a swatch, the stage's name, seconds and share, one after another (from under the
    // label column, for room).
    double x = l.labels[i].left();
    for (std::size_t s = 0; s < row.stages.size(); ++s) {
      const QString text = stage_legend_text(row.stages[s], row.time_s);
      const QRectF swatch(x, l.legends[i].center().y() - 4.0, 8.0, 8.0);
      painter.fillRect(swatch, stage_colour(static_cast<int>(s)));
      painter.setPen(QColor(40, 40, 40));
      const double w = metrics.horizontalAdvance(text);
      painter.drawText(QRectF(x + 11.0, l.legends[i].top(), w + 2.0, l.legends[i].height()), Qt::AlignLeft | Qt::AlignVCenter, text);
      x += 11.0 + w + 12.0;
    }
    if (row.marker_s >= 0.0) {
      const double mx = l.x_of(static_cast<int>(i), row.marker_s);
      painter.setPen(QPen(QColor(0, 0, 0), 2.0));
      painter.drawLine(QPointF(mx, l.bars[i].top() - 2.0), QPointF(mx, l.bars[i].bottom() + 2.0));
    }
  }
  painter.restore();
}

}  // namespace numatwin::gui
