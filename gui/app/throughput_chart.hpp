// Bandwidth over time of one or more runs (Qt Charts): the memory controllers' total throughput
// as a step function per run, under it the run's 90 % band over its cost samples where it has
// one (run_uncertainty.hpp), and a vertical marker at the step on screen.
#pragma once

#include <QChartView>
#include <QLineSeries>
#include <QValueAxis>
#include <memory>
#include <vector>

#include "numatwin/gui/simulation_run.hpp"

namespace numatwin::gui {

class ThroughputChart : public QChartView {
  Q_OBJECT

 public:
  explicit ThroughputChart(QWidget* parent = nullptr);

  // Null runs are skipped; names label the series.
  void set_runs(const std::vector<std::shared_ptr<const SimulationRun>>& runs, const QStringList& names);
  // Marker at this time (seconds); negative hides it.
  void set_marker(double time_s);
  [[nodiscard]] int series_count() const;       // runs drawn
  [[nodiscard]] int band_count() const { return band_series_; }  // of those, with a band

 private:
  QChart* chart_;
  QValueAxis* x_;
  QValueAxis* y_;
  QLineSeries* marker_;
  double y_max_ = 1.0;
  int run_series_ = 0;
  int band_series_ = 0;
};

}  // namespace numatwin::gui
