// Qt item models the widgets show in tables (no widgets here): the utilisation of every
// resource in the frame on screen, the side-by-side summary of compared runs, and a validator
// report's kernels and link traffic. Numbers are returned for Qt::UserRole (sorting), text for
// Qt::DisplayRole, the utilisation colour for Qt::BackgroundRole of utilisation cells.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "numatwin/gui/simulation_run.hpp"
#include "numatwin/gui/validation_report.hpp"

namespace numatwin::gui {

class ResourceTableModel : public QAbstractTableModel {
 public:
  enum Column { kResource, kKind, kCapacity, kFrameUtilisation, kFrameLoad, kMeanUtilisation, kSaturated, kColumnCount };

  explicit ResourceTableModel(QObject* parent = nullptr);
  void set_run(std::shared_ptr<const SimulationRun> run, const UtilisationFrame& frame);
  void set_frame(const UtilisationFrame& frame);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const SimulationRun> run_;
  UtilisationFrame frame_;
};

// Rows are metrics, columns are runs (A, B, ...).
class RunSummaryModel : public QAbstractTableModel {
 public:
  enum Row {
    kMachine, kWorkload, kThreads, kBytes, kTime, kTimeInterval, kBandwidth, kRateInterval, kCosts, kPairedWins, kLocalAccess, kBusiest, kBottleneck, kSteps,
    kRowCount
  };

  explicit RunSummaryModel(QObject* parent = nullptr);
  // A null entry leaves that column empty.
  void set_runs(std::vector<std::shared_ptr<const SimulationRun>> runs, QStringList names);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<std::shared_ptr<const SimulationRun>> runs_;
  QStringList names_;
};

class ReportTableModel : public QAbstractTableModel {
 public:
  enum Column { kKernel, kWorkload, kThreads, kPredicted, kMeasured, kError, kAfterFit, kLinks, kColumnCount };

  explicit ReportTableModel(QObject* parent = nullptr);
  void set_report(ValidationReport report);
  [[nodiscard]] const ValidationReport& report() const { return report_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  ValidationReport report_;
};

class LinkTrafficModel : public QAbstractTableModel {
 public:
  enum Column { kLink, kPredicted, kMeasured, kNote, kColumnCount };

  explicit LinkTrafficModel(QObject* parent = nullptr);
  void set_links(std::vector<LinkTraffic> links);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<LinkTraffic> links_;
};

}  // namespace numatwin::gui
