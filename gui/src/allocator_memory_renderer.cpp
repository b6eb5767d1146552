// Drawing the memory-over-time view (allocator_memory.hpp). Top to bottom inside the area: a
// title and the stream's description, the plot (RSS MiB up, seconds after the stream's origin
// across; round-numbered grid; each allocator's idle period shaded grey behind the lines, a
// dashed line in the allocator's colour where its last query ended, its samples joined by a
// 2-px line), the time axis' labels, one row per allocator (its name, then a tinted bar from the
// first arrival to the last query's end and a solid bar over the idle period), and the legend:
// per allocator its line's colour, peak and share returned after the idle period, then a key.
#include <QFontMetricsF>
#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>

#include "numatwin/gui/allocator_memory.hpp"

namespace numatwin::gui {
namespace {

constexpr double kMiB = 1048576.0;
constexpr double kMargin = 8.0;
constexpr double kLine = 18.0;     // a line of text
constexpr double kAxisLabels = 60.0;  // left of the plot: RSS labels
constexpr double kRow = 12.0;
constexpr double kRowGap = 4.0;

// The smallest of 1, 2, 2.5, 5 x 10^k at or above range / ticks.
double nice_step(double range, double ticks) {
  if (!(range > 0.0)) return 1.0;
  const double raw = range / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw * (1.0 - 1e-9)) return m * magnitude;
  }
  return 10.0 * magnitude;
}

double axis_top(double largest, double ticks) {
  const double step = nice_step(largest, ticks);
  return std::max(step, std::ceil(largest / step - 1e-9) * step);
}

QColor tint(const QColor& c, double white_share) {
  const auto mix = [white_share](int x) { return static_cast<int>(std::lround(x + white_share * (255 - x))); };
  return QColor(mix(c.red()), mix(c.green()), mix(c.blue()));
}

// x with as many decimals as the step needs (0.25 -> 2, 5 -> 0).
QString number_text(double x, double step) {
  int decimals = 0;
  while (decimals < 3 && std::abs(step * std::pow(10.0, decimals) - std::round(step * std::pow(10.0, decimals))) > 1e-6) ++decimals;
  return QString::number(x, 'f', decimals);
}

}  // namespace

QString allocator_memory_legend(const AllocatorMemoryView::Series& s) {
  return QStringLiteral("%1: peak %2 MiB, %3 % returned after the idle period (before %4 MiB, after idle %5 MiB)")
      .arg(QString::fromStdString(s.allocator))
      .arg(s.rss_peak_bytes / kMiB, 0, 'f', 1)
      .arg(100.0 * s.returned_share, 0, 'f', 0)
      .arg(s.rss_before_bytes / kMiB, 0, 'f', 1)
      .arg(s.rss_after_idle_bytes / kMiB, 0, 'f', 1);
}

QColor allocator_colour(const std::string& allocator, std::size_t index) {
  if (allocator == "glibc") return QColor(31, 119, 180);
  if (allocator == "jemalloc") return QColor(214, 39, 40);
  if (allocator == "tcmalloc") return QColor(44, 160, 44);
  if (allocator == "tbbmalloc") return QColor(148, 103, 189);
  static constexpr std::array<std::array<int, 3>, 4> kOthers = {{{255, 127, 14}, {140, 86, 75}, {227, 119, 194}, {23, 190, 207}}};
  const auto& c = kOthers[index % kOthers.size()];
  return QColor(c[0], c[1], c[2]);
}

QColor allocator_idle_shade() { return QColor(232, 232, 232); }

double AllocatorMemoryLayout::x_of(double t_s) const {
  if (!(end_s > 0.0)) return plot.left();
  return plot.left() + plot.width() * std::clamp(t_s / end_s, 0.0, 1.0);
}

double AllocatorMemoryLayout::y_of(double mib) const {
  if (!(top_mib > 0.0)) return plot.bottom();
  return plot.bottom() - plot.height() * std::clamp(mib / top_mib, 0.0, 1.0);
}

AllocatorMemoryLayout allocator_memory_layout(const AllocatorMemoryView& view, const QRectF& area) {
  AllocatorMemoryLayout l;
  const auto n = static_cast<double>(view.series.size());
  const double left = area.left() + kMargin + kAxisLabels;
  const double width = std::max(1.0, area.right() - kMargin - 12.0 - left);
  const double legend_h = (n + 2.0) * kLine;
  const double rows_h = n * (kRow + kRowGap);
  const double top = area.top() + kMargin + 3.0 * kLine;  // title, stream, the RSS axis' caption
  const double bottom = area.bottom() - kMargin - legend_h - 6.0 - rows_h - kLine;
  l.plot = QRectF(left, top, width, std::max(1.0, bottom - top));
  const double rows_top = l.plot.bottom() + kLine;
  for (std::size_t i = 0; i < view.series.size(); ++i)
    l.rows.emplace_back(left, rows_top + static_cast<double>(i) * (kRow + kRowGap), width, kRow);
  l.legend = QRectF(area.left() + kMargin, rows_top + rows_h + 6.0, area.width() - 2.0 * kMargin, legend_h);
  double end = 0.0;
  double largest = 0.0;
  for (const AllocatorMemoryView::Series& s : view.series) {
    end = std::max({end, s.idle_end_s, s.last_query_end_s});
    largest = std::max(largest, s.rss_peak_bytes / kMiB);
    for (const AllocatorMemoryView::Sample& p : s.samples) {
      end = std::max(end, p.seconds);
      largest = std::max(largest, p.rss_bytes / kMiB);
    }
  }
  l.end_s = end > 0.0 ? end : 1.0;  // the data's end: rounding up could leave a fifth of the plot empty
  l.top_mib = axis_top(largest, 5.0);
  return l;
}

void paint_allocator_memory(QPainter& painter, const QRectF& area, const AllocatorMemoryView& view) {
  const AllocatorMemoryLayout l = allocator_memory_layout(view, area);
  painter.save();
  painter.fillRect(area, Qt::white);
  const QFontMetricsF fm(painter.font());
  const double text_w = std::max(0.0, area.width() - 2.0 * kMargin);
  const auto baseline = [&fm](double line_top) { return line_top + (kLine + fm.ascent() - fm.descent()) / 2.0; };
  painter.setPen(Qt::black);
  const QFont normal = painter.font();
  QFont bold = normal;
  bold.setBold(true);
  painter.setFont(bold);
  painter.drawText(QPointF(area.left() + kMargin, baseline(area.top() + kMargin)),
                   QFontMetricsF(bold).elidedText(QStringLiteral("Resident memory over time, per allocator (numatwin validate allocbench --arrivals)"),
                                                  Qt::ElideRight, text_w));
  painter.setFont(normal);
  painter.drawText(QPointF(area.left() + kMargin, baseline(area.top() + kMargin + kLine)),
                   fm.elidedText(QString::fromStdString(view.title), Qt::ElideRight, text_w));
  painter.drawText(QPointF(l.plot.left() + 6.0, baseline(l.plot.top() - kLine)), QStringLiteral("RSS, MiB"));

  // The idle periods, behind everything else in the plot.
  for (const AllocatorMemoryView::Series& s : view.series) {
    painter.fillRect(QRectF(QPointF(l.x_of(s.idle_begin_s), l.plot.top()), QPointF(l.x_of(s.idle_end_s), l.plot.bottom())),
                     allocator_idle_shade());
  }
  // Grid and axis labels.
  const double y_step = nice_step(l.top_mib, 5.0);
  const double x_step = nice_step(l.end_s, 8.0);
  painter.setPen(QPen(QColor(215, 215, 215), 1.0));
  for (double v = 0.0; v <= l.top_mib * (1.0 + 1e-9); v += y_step) {
    const double y = l.y_of(v);
    painter.drawLine(QPointF(l.plot.left(), y), QPointF(l.plot.right(), y));
  }
  painter.setPen(Qt::black);
  for (double v = 0.0; v <= l.top_mib * (1.0 + 1e-9); v += y_step) {
    const QString label = number_text(v, y_step);
    painter.drawText(QPointF(l.plot.left() - 6.0 - fm.horizontalAdvance(label), l.y_of(v) + fm.ascent() / 2.0 - 1.0), label);
  }
  for (double t = 0.0; t <= l.end_s * (1.0 + 1e-9); t += x_step) {
    const double x = l.x_of(t);
    painter.drawLine(QPointF(x, l.plot.bottom()), QPointF(x, l.plot.bottom() + 4.0));
    const QString label = number_text(t, x_step) + QStringLiteral(" s");
    const double w = fm.horizontalAdvance(label);
    painter.drawText(QPointF(std::min(x - w / 2.0, area.right() - kMargin - w), baseline(l.plot.bottom() + 2.0)), label);
  }
  painter.drawLine(l.plot.bottomLeft(), l.plot.bottomRight());
  painter.drawLine(l.plot.bottomLeft(), l.plot.topLeft());

  // The last query's end: a dashed line per allocator (crisp, in the allocator's own colour);
  // then the samples, antialiased.
  for (std::size_t i = 0; i < view.series.size(); ++i) {
    const AllocatorMemoryView::Series& s = view.series[i];
    painter.setPen(QPen(allocator_colour(s.allocator, i), 2.0, Qt::DashLine, Qt::FlatCap));
    const double x = std::round(l.x_of(s.last_query_end_s));
    painter.drawLine(QPointF(x, l.plot.top()), QPointF(x, l.plot.bottom()));
  }
  painter.setRenderHint(QPainter::Antialiasing, true);
  for (std::size_t i = 0; i < view.series.size(); ++i) {
    const AllocatorMemoryView::Series& s = view.series[i];
    QPainterPath path;
    for (std::size_t k = 0; k < s.samples.size(); ++k) {
      const QPointF p(l.x_of(s.samples[k].seconds), l.y_of(s.samples[k].rss_bytes / kMiB));
      if (k == 0) {
        path.moveTo(p);
      } else {
        path.lineTo(p);
      }
    }
    QPen pen(allocator_colour(s.allocator, i), 2.0);
    pen.setJoinStyle(Qt::RoundJoin);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);
  }
  painter.setRenderHint(QPainter::Antialiasing, false);

  // Per allocator: the query period (tinted) and the idle period (solid) on the time axis.
  for (std::size_t i = 0; i < view.series.size(); ++i) {
    const AllocatorMemoryView::Series& s = view.series[i];
    const QColor c = allocator_colour(s.allocator, i);
    const QRectF& row = l.rows[i];
    painter.fillRect(QRectF(QPointF(l.x_of(s.first_arrival_s), row.top()), QPointF(l.x_of(s.last_query_end_s), row.bottom())), tint(c, 0.6));
    painter.fillRect(QRectF(QPointF(l.x_of(s.idle_begin_s), row.top()), QPointF(l.x_of(s.idle_end_s), row.bottom())), c);
    painter.setPen(c);
    const QString name = QString::fromStdString(s.allocator);
    painter.drawText(QPointF(row.left() - 6.0 - fm.horizontalAdvance(name), row.center().y() + fm.ascent() / 2.0 - 1.0), name);
  }

  // Legend: the line's colour, peak and returned share; then what the marks mean.
  for (std::size_t i = 0; i < view.series.size(); ++i) {
    const AllocatorMemoryView::Series& s = view.series[i];
    const double top = l.legend.top() + static_cast<double>(i) * kLine;
    painter.fillRect(QRectF(l.legend.left(), top + kLine / 2.0 - 1.5, 22.0, 3.0), allocator_colour(s.allocator, i));
    painter.setPen(Qt::black);
    const QString text = allocator_memory_legend(s) + (s.idle_recorded ? QString() : QStringLiteral("; idle period estimated from idle_seconds"));
    painter.drawText(QPointF(l.legend.left() + 30.0, baseline(top)), fm.elidedText(text, Qt::ElideRight, std::max(0.0, l.legend.width() - 30.0)));
  }
  painter.setPen(QColor(90, 90, 90));
  const double key_top = l.legend.top() + static_cast<double>(view.series.size()) * kLine;
  painter.drawText(QPointF(l.legend.left(), baseline(key_top)),
                   fm.elidedText(QStringLiteral("Dashed line: the allocator's last query ended. Grey: its idle period (the query threads "
                                                "have exited, nothing runs)."),
                                 Qt::ElideRight, l.legend.width()));
  painter.drawText(QPointF(l.legend.left(), baseline(key_top + kLine)),
                   fm.elidedText(QStringLiteral("Rows under the time axis: first arrival to last query end (tinted), idle period (solid). "
                                                "RSS: /proc/self/statm, resident pages."),
                                 Qt::ElideRight, l.legend.width()));
  painter.restore();
}

}  // namespace numatwin::gui
