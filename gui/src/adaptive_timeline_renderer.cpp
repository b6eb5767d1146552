// Drawing the adaptive view (adaptive_timeline.hpp). Layout, top to bottom inside the area: a
// title line, the queries/s chart (a filled step line per timeline bin, its scale's maximum
// written at the top left), then for each socket a CPU strip and a memory strip, each bin a
// rectangle in utilisation_colour of its value; socket labels in a left margin. Every placer
// decision is a vertical line from the chart's top to the last strip's bottom at its decision
// time, in its action's colour (move blue, partition green, merge purple), with a span to its
// end time drawn as a bar under the chart; a legend below names the colours.
#include <QFontMetricsF>
#include <algorithm>

#include "numatwin/gui/adaptive_timeline.hpp"
#include "numatwin/gui/utilisation_colour.hpp"

namespace numatwin::gui {

AdaptiveTimelineView adaptive_timeline_from_result(const sim::AdaptiveResult& result,
                                                   const std::string& title) {
  AdaptiveTimelineView view;
  view.title = title;
  view.sockets = result.sockets;
  for (const sim::AdaptiveTimelinePoint& p : result.timeline) {
    view.bins.push_back(AdaptiveTimelineView::Bin{p.begin_s, p.end_s, p.queries_per_s,
                                                  p.socket_cpu_share, p.socket_memory_utilisation});
  }
  for (const sim::AdaptivePlacerEvent& e : result.placer_events) {
    const sim::PlacerDecision& d = e.decision;
    AdaptiveTimelineView::Decision decision{
        e.decided_s, e.done_s, sim::placer_action_name(d.action), e.table,
        d.from_socket < 0 ? std::string()
                          : result.sockets.at(static_cast<std::size_t>(d.from_socket)),
        result.sockets.at(static_cast<std::size_t>(d.to_socket)), e.group, e.bytes, {}};
    for (const sim::AdaptiveTableCopy& c : e.copies) decision.tables.emplace_back(c.table, c.bytes);
    view.decisions.push_back(std::move(decision));
  }
  return view;
}

double AdaptiveTimelineLayout::x_of(double t_s) const {
  if (!(end_s > 0.0)) return chart.left();
  return chart.left() + chart.width() * std::clamp(t_s / end_s, 0.0, 1.0);
}

AdaptiveTimelineLayout adaptive_timeline_layout(const AdaptiveTimelineView& view,
                                                const QRectF& area) {
  AdaptiveTimelineLayout l;
  const double margin = 8.0;
  const double label_w = std::min(90.0, area.width() * 0.2);
  const double title_h = 22.0;
  const double legend_h = 22.0;
  const double left = area.left() + margin + label_w;
  const double width = std::max(1.0, area.width() - 2.0 * margin - label_w);
  const double top = area.top() + margin + title_h;
  const double height = std::max(1.0, area.height() - 2.0 * margin - title_h - legend_h);
  const double n = static_cast<double>(view.sockets.size());
  // The chart takes a third; the strips (two per socket, a gap after each socket) the rest.
  const double chart_h = height / 3.0;
  l.chart = QRectF(left, top, width, chart_h - 10.0);
  const double strips_top = top + chart_h;
  const double per_socket = n > 0 ? (height - chart_h) / n : 0.0;
  const double strip_h = per_socket * 0.42;
  for (std::size_t s = 0; s < view.sockets.size(); ++s) {
    const double y = strips_top + per_socket * static_cast<double>(s);
    l.cpu.emplace_back(left, y, width, strip_h);
    l.memory.emplace_back(left, y + strip_h, width, strip_h);
  }
  l.end_s = view.bins.empty() ? 0.0 : view.bins.back().end_s;
  return l;
}

QColor adaptive_decision_colour(const std::string& action) {
  if (action == "move") return QColor(30, 90, 220);
  if (action == "partition") return QColor(20, 150, 60);
  return QColor(140, 50, 170);
}

void paint_adaptive_timeline(QPainter& painter, const QRectF& area,
                             const AdaptiveTimelineView& view) {
  const AdaptiveTimelineLayout l = adaptive_timeline_layout(view, area);
  painter.save();
  painter.fillRect(area, Qt::white);
  painter.setPen(Qt::black);
  const QFontMetricsF fm(painter.font());
  // The title, elided to the area's width (a narrow window cuts it with an ellipsis, not mid-word).
  painter.drawText(QPointF(area.left() + 8.0, area.top() + 8.0 + fm.ascent()),
                   fm.elidedText(QString::fromStdString(
                                     view.title + ": queries/s, then per socket CPU (busy workers) and memory "
                                                  "(controller utilisation); lines: placer decisions"),
                                 Qt::ElideRight, std::max(0.0, area.width() - 16.0)));
  // Throughput: filled steps, scaled to the largest bin.
  double peak = 0.0;
  for (const AdaptiveTimelineView::Bin& b : view.bins) peak = std::max(peak, b.queries_per_s);
  painter.setPen(QColor(200, 200, 200));
  painter.drawRect(l.chart);
  if (peak > 0.0) {
    for (const AdaptiveTimelineView::Bin& b : view.bins) {
      const double h = l.chart.height() * b.queries_per_s / peak;
      painter.fillRect(QRectF(QPointF(l.x_of(b.begin_s), l.chart.bottom() - h),
                              QPointF(l.x_of(b.end_s), l.chart.bottom())),
                       QColor(120, 120, 120));
    }
  }
  painter.setPen(Qt::black);
  painter.drawText(QPointF(area.left() + 8.0, l.chart.top() + fm.ascent()),
                   QStringLiteral("%1 q/s").arg(peak, 0, 'f', 1));
  painter.drawText(QPointF(area.left() + 8.0, l.chart.bottom()), QStringLiteral("0"));
  // Per-socket strips.
  for (std::size_t s = 0; s < view.sockets.size(); ++s) {
    for (const AdaptiveTimelineView::Bin& b : view.bins) {
      const double x0 = l.x_of(b.begin_s);
      const double x1 = l.x_of(b.end_s);
      painter.fillRect(QRectF(QPointF(x0, l.cpu[s].top()), QPointF(x1, l.cpu[s].bottom())),
                       utilisation_colour(b.cpu.at(s)));
      painter.fillRect(QRectF(QPointF(x0, l.memory[s].top()), QPointF(x1, l.memory[s].bottom())),
                       utilisation_colour(b.memory.at(s)));
    }
    painter.setPen(Qt::black);
    const QString id = QString::fromStdString(view.sockets[s]);
    painter.drawText(QPointF(area.left() + 8.0, l.cpu[s].center().y() + fm.ascent() / 2.0),
                     id + QStringLiteral(" CPU"));
    painter.drawText(QPointF(area.left() + 8.0, l.memory[s].center().y() + fm.ascent() / 2.0),
                     id + QStringLiteral(" mem"));
  }
  // Placer decisions: a line at the decision, a bar until it was done.
  const double bottom = l.memory.empty() ? l.chart.bottom() : l.memory.back().bottom();
  for (const AdaptiveTimelineView::Decision& d : view.decisions) {
    const QColor c = adaptive_decision_colour(d.action);
    const double x = l.x_of(d.decided_s);
    painter.setPen(QPen(c, 2.0));
    painter.drawLine(QPointF(x, l.chart.top()), QPointF(x, bottom));
    const double end = d.done_s < 0.0 ? l.end_s : d.done_s;
    painter.fillRect(QRectF(QPointF(x, l.chart.bottom() + 2.0),
                            QPointF(std::max(x + 1.0, l.x_of(end)), l.chart.bottom() + 7.0)),
                     c);
  }
  // Legend.
  double x = l.chart.left();
  const double y = bottom + 8.0 + fm.ascent();
  for (const char* action : {"move", "partition", "merge"}) {
    painter.fillRect(QRectF(x, y - fm.ascent() + 2.0, 14.0, fm.ascent() - 2.0),
                     adaptive_decision_colour(action));
    painter.setPen(Qt::black);
    painter.drawText(QPointF(x + 18.0, y), QString::fromLatin1(action));
    x += 26.0 + fm.horizontalAdvance(QString::fromLatin1(action));
  }
  painter.drawText(QPointF(x + 10.0, y),
                   QStringLiteral("time 0 to %1 s; colours: idle blue to saturated red")
                       .arg(l.end_s, 0, 'f', 0));
  painter.restore();
}

}  // namespace numatwin::gui
