#include "throughput_chart.hpp"

#include <QAreaSeries>
#include <QChart>
#include <QLegendMarker>
#include <QPen>
#include <algorithm>

namespace numatwin::gui {

ThroughputChart::ThroughputChart(QWidget* parent)
    : QChartView(new QChart, parent), chart_(chart()), x_(new QValueAxis), y_(new QValueAxis), marker_(new QLineSeries) {
  // The chart is handed to the base constructor: setChart() would release (leak) the default one.
  chart_->setTitle(tr("Memory throughput over time (all controllers)"));
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->setMargins(QMargins(4, 4, 4, 4));
  x_->setTitleText(tr("time (ms)"));
  y_->setTitleText(tr("GB/s"));
  x_->setLabelFormat(QStringLiteral("%.4g"));
  y_->setLabelFormat(QStringLiteral("%.0f"));
  chart_->addAxis(x_, Qt::AlignBottom);
  chart_->addAxis(y_, Qt::AlignLeft);
  marker_->setName(tr("step shown"));
  marker_->setPen(QPen(QColor(90, 90, 90), 1.0, Qt::DashLine));
  chart_->addSeries(marker_);
  marker_->attachAxis(x_);
  marker_->attachAxis(y_);
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(220);
}

void ThroughputChart::set_runs(const std::vector<std::shared_ptr<const SimulationRun>>& runs, const QStringList& names) {
  for (QAbstractSeries* s : chart_->series()) {
    if (s != marker_) {
      chart_->removeSeries(s);
      delete s;
    }
  }
  static const QColor kColours[] = {QColor(31, 119, 180), QColor(214, 39, 40), QColor(44, 160, 44), QColor(148, 103, 189)};
  double x_max = 0.0;
  y_max_ = 1.0;
  run_series_ = 0;
  band_series_ = 0;
  auto name_of = [&names](std::size_t i) {
    return i < static_cast<std::size_t>(names.size()) ? names[static_cast<qsizetype>(i)] : QStringLiteral("run %1").arg(i + 1);
  };
  // The 90 % bands of the runs' cost samples (run_uncertainty.hpp) first, so every line is drawn
  // over every band.
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i] || runs[i]->uncertainty.band.empty()) continue;
    const ThroughputBand& band = runs[i]->uncertainty.band;
    auto* area = new QAreaSeries;
    auto* upper = new QLineSeries(area);
    auto* lower = new QLineSeries(area);
    for (std::size_t g = 0; g < band.time_s.size(); ++g) {
      upper->append(band.time_s[g] * 1e3, band.high_gbps[g]);
      lower->append(band.time_s[g] * 1e3, band.low_gbps[g]);
      y_max_ = std::max(y_max_, band.high_gbps[g]);
    }
    area->setUpperSeries(upper);
    area->setLowerSeries(lower);
    area->setName(tr("%1: 90 % band").arg(name_of(i)));
    QColor fill = kColours[i % 4];
    fill.setAlpha(50);
    area->setBrush(fill);
    area->setPen(QPen(kColours[i % 4].lighter(130), 0.8, Qt::DotLine));
    x_max = std::max(x_max, band.time_s.back() * 1e3);
    chart_->addSeries(area);
    area->attachAxis(x_);
    area->attachAxis(y_);
    // The title explains the shading; a legend entry per band would crowd out the runs' names.
    for (QLegendMarker* marker : chart_->legend()->markers(area)) marker->setVisible(false);
    ++band_series_;
  }
  chart_->setTitle(band_series_ > 0 ? tr("Memory throughput over time (all controllers)<br><small>shaded: where 90 % of the cost samples lie</small>")
                                    : tr("Memory throughput over time (all controllers)"));
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i]) continue;
    auto* series = new QLineSeries;
    series->setName(name_of(i));
    // Later runs drawn thinner, so an earlier run's line shows on both sides where they coincide.
    series->setPen(QPen(kColours[i % 4], i == 0 ? 3.0 : 1.5));
    for (const ThroughputPoint& p : memory_throughput_series(*runs[i])) {
      series->append(p.time_s * 1e3, p.gbps);
      y_max_ = std::max(y_max_, p.gbps);
    }
    x_max = std::max(x_max, runs[i]->result.time_s * 1e3);
    chart_->addSeries(series);
    series->attachAxis(x_);
    series->attachAxis(y_);
    ++run_series_;
  }
  x_->setRange(0.0, std::max(x_max, 1e-3));
  y_->setRange(0.0, y_max_ * 1.1);
  x_->applyNiceNumbers();
  y_->applyNiceNumbers();
  set_marker(-1.0);
}

void ThroughputChart::set_marker(double time_s) {
  marker_->clear();
  if (time_s >= 0.0) {
    marker_->append(time_s * 1e3, 0.0);
    marker_->append(time_s * 1e3, y_max_ * 1.1);
  }
}

int ThroughputChart::series_count() const { return run_series_; }

}  // namespace numatwin::gui
