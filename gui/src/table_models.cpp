#include "numatwin/gui/table_models.hpp"

#include <QColor>
#include <cmath>

#include "numatwin/gui/utilisation_colour.hpp"
#include "numatwin/sim/workload/workload_input.hpp"

namespace numatwin::gui {
namespace {

QString kind_name(model::ResourceKind kind) {
  switch (kind) {
    case model::ResourceKind::kMemoryController: return QStringLiteral("memory controller");
    case model::ResourceKind::kLink: return QStringLiteral("link");
    case model::ResourceKind::kForwarding: return QStringLiteral("forwarding");
  }
  return {};
}

QString percent(double fraction) { return QString::number(100.0 * fraction, 'f', 1); }

QVariant text_colour_for(const QColor& background) {
  const double y = 0.2126 * background.red() + 0.7152 * background.green() + 0.0722 * background.blue();
  return y > 110 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace

// ── ResourceTableModel ──────────────────────────────────────────────────────────────────────

ResourceTableModel::ResourceTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ResourceTableModel::set_run(std::shared_ptr<const SimulationRun> run, const UtilisationFrame& frame) {
  beginResetModel();
  run_ = std::move(run);
  frame_ = frame;
  endResetModel();
}

void ResourceTableModel::set_frame(const UtilisationFrame& frame) {
  frame_ = frame;
  if (rowCount() > 0) emit dataChanged(index(0, kFrameUtilisation), index(rowCount() - 1, kFrameLoad));
}

void ResourceTableModel::clear() {
  beginResetModel();
  run_.reset();
  frame_ = {};
  endResetModel();
}

int ResourceTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !run_ ? 0 : static_cast<int>(run_->result.resources.size());
}

int ResourceTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant ResourceTableModel::data(const QModelIndex& index, int role) const {
  if (!run_ || !index.isValid() || index.row() >= rowCount()) return {};
  const int r = index.row();
  const sim::ResourceInfo& info = run_->result.resources[r];
  const double capacity = info.capacity_bytes_per_s / 1e9;
  const double u = r < static_cast<int>(frame_.utilisation.size()) ? frame_.utilisation[r] : std::nan("");
  const double mean = r < static_cast<int>(run_->result.mean_utilisation.size()) ? run_->result.mean_utilisation[r] : 0.0;
  const double saturated = r < static_cast<int>(run_->result.saturated_fraction.size()) ? run_->result.saturated_fraction[r] : 0.0;
  if (role == Qt::UserRole) {
    switch (index.column()) {
      case kResource: return QString::fromStdString(info.name);
      case kKind: return kind_name(info.kind);
      case kCapacity: return capacity;
      case kFrameUtilisation: return u;
      case kFrameLoad: return u * capacity;
      case kMeanUtilisation: return mean;
      case kSaturated: return saturated;
      default: return {};
    }
  }
  if (role == Qt::DisplayRole) {
    switch (index.column()) {
      case kResource: return QString::fromStdString(info.name);
      case kKind: return kind_name(info.kind);
      case kCapacity: return QString::number(capacity, 'g', 4);
      case kFrameUtilisation: return std::isnan(u) ? QStringLiteral("-") : percent(u);
      case kFrameLoad: return std::isnan(u) ? QStringLiteral("-") : QString::number(u * capacity, 'f', 2);
      case kMeanUtilisation: return percent(mean);
      case kSaturated: return percent(saturated);
      default: return {};
    }
  }
  if (role == Qt::BackgroundRole && (index.column() == kFrameUtilisation || index.column() == kMeanUtilisation)) {
    return utilisation_colour(index.column() == kFrameUtilisation ? u : mean);
  }
  if (role == Qt::ForegroundRole && (index.column() == kFrameUtilisation || index.column() == kMeanUtilisation)) {
    return text_colour_for(utilisation_colour(index.column() == kFrameUtilisation ? u : mean));
  }
  if (role == Qt::TextAlignmentRole && index.column() >= kCapacity) return int(Qt::AlignRight | Qt::AlignVCenter);
  return {};
}

QVariant ResourceTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kResource: return QStringLiteral("resource");
    case kKind: return QStringLiteral("kind");
    case kCapacity: return QStringLiteral("capacity GB/s");
    case kFrameUtilisation: return QStringLiteral("util % (shown)");
    case kFrameLoad: return QStringLiteral("GB/s (shown)");
    case kMeanUtilisation: return QStringLiteral("mean util %");
    case kSaturated: return QStringLiteral("saturated %");
    default: return {};
  }
}

// ── RunSummaryModel ─────────────────────────────────────────────────────────────────────────

RunSummaryModel::RunSummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void RunSummaryModel::set_runs(std::vector<std::shared_ptr<const SimulationRun>> runs, QStringList names) {
  beginResetModel();
  runs_ = std::move(runs);
  names_ = std::move(names);
  endResetModel();
}

int RunSummaryModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kRowCount; }
int RunSummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(runs_.size()); }

QVariant RunSummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.column() >= columnCount()) return {};
  const auto& run = runs_[index.column()];
  if (!run) return role == Qt::DisplayRole ? QVariant(QStringLiteral("-")) : QVariant();
  const sim::SimulationResult& r = run->result;
  if (role == Qt::UserRole) {
    switch (index.row()) {
      case kThreads: return run->spec.threads;
      case kBytes: return sim::workload_input(run->spec).bytes;
      case kTime: return r.time_s;
      case kBandwidth: return run->rate();
      case kLocalAccess: return r.local_access_ratio();
      case kSteps: return run->step_count();
      default: break;
    }
  }
  if (role == Qt::ToolTipRole) {
    // The long texts in full (the cells elide them).
    if (index.row() == kCosts) return run->uncertainty.basis;
    if (index.row() == kTimeInterval) {
      const RunUncertainty& u = run->uncertainty;
      return u.point_note.isEmpty() ? u.time_text() : u.time_text() + QStringLiteral("\n* ") + u.point_note;
    }
    return {};
  }
  if (role != Qt::DisplayRole && role != Qt::UserRole) return {};
  switch (index.row()) {
    case kMachine: return QString::fromStdString(run->topology->name);
    case kWorkload: {
      const sim::WorkloadSpec& s = run->spec;
      QString text = QString::fromStdString(sim::workload_kind_name(s.kind));
      if (s.kind == sim::WorkloadKind::kPartitionedAggregation) text += QStringLiteral(" ") + QString::fromStdString(sim::strategy_name(s.strategy));
      if (sim::is_shuffle_family(s.kind) || s.kind == sim::WorkloadKind::kPartitionedAggregation || s.kind == sim::WorkloadKind::kSortMergeJoin) {
        text += QStringLiteral(" %1 %2").arg(QString::fromStdString(sim::algorithm_name(s.algorithm)), QString::fromStdString(sim::sync_name(s.sync)));
      }
      return text;
    }
    case kThreads: return QStringLiteral("%1 (%2)").arg(run->spec.threads).arg(QString::fromStdString(sim::placement_name(run->spec.placement)));
    case kBytes: return format_bytes(sim::workload_input(run->spec).bytes);
    case kTime: return format_seconds(r.time_s);
    case kTimeInterval: {
      const RunUncertainty& u = run->uncertainty;
      // A star when the run's time lies outside (the tooltip says why).
      return u.samples > 0 ? QStringLiteral("%1 to %2%3")
                                 .arg(format_seconds(u.time_s.low), format_seconds(u.time_s.high), u.point_note.isEmpty() ? "" : " *")
                           : u.time_text();
    }
    case kBandwidth: return run->rate_text();
    case kRateInterval: {
      const RunUncertainty& u = run->uncertainty;
      return u.samples > 0 ? QStringLiteral("%1 to %2 %3").arg(u.rate.low, 0, 'g', 4).arg(u.rate.high, 0, 'g', 4).arg(u.rate_unit)
                           : QStringLiteral("-");
    }
    case kCosts: return run->uncertainty.basis;
    case kPairedWins: {
      // Against the other run of a pair (columns 0 and 1): how often this one is faster.
      if (runs_.size() != 2 || !runs_[0] || !runs_[1]) return QStringLiteral("-");
      const auto wins = paired_wins(runs_[0]->uncertainty, runs_[1]->uncertainty);
      if (!wins) return QStringLiteral("- (not sampled at the same costs)");
      const int mine = index.column() == 0 ? wins->a_faster : wins->b_faster;
      return QStringLiteral("%1 of %2").arg(mine).arg(wins->samples);
    }
    case kLocalAccess: return QString::number(r.local_access_ratio(), 'f', 3);
    case kBusiest: {
      const int b = r.busiest_resource();
      return b < 0 ? QStringLiteral("-")
                   : QStringLiteral("%1 (%2% mean)").arg(QString::fromStdString(r.resources[b].name), percent(r.mean_utilisation[b]));
    }
    case kBottleneck: {
      const int b = r.bottleneck_resource();
      return b < 0 ? QStringLiteral("none saturated")
                   : QStringLiteral("%1 (saturated %2% of the time)").arg(QString::fromStdString(r.resources[b].name), percent(r.saturated_fraction[b]));
    }
    case kSteps: return run->step_count();
    default: return {};
  }
}

QVariant RunSummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (role != Qt::DisplayRole) return {};
  if (orientation == Qt::Horizontal) return section < names_.size() ? names_[section] : QStringLiteral("run %1").arg(section + 1);
  switch (section) {
    case kMachine: return QStringLiteral("machine");
    case kWorkload: return QStringLiteral("workload");
    case kThreads: return QStringLiteral("threads");
    case kBytes: return QStringLiteral("input bytes");
    case kTime: return QStringLiteral("time");
    case kTimeInterval: return QStringLiteral("time, 90 % interval");
    case kBandwidth: return QStringLiteral("rate");
    case kRateInterval: return QStringLiteral("rate, 90 % interval");
    case kCosts: return QStringLiteral("rests on");
    case kPairedWins: return QStringLiteral("faster in cost samples");
    case kLocalAccess: return QStringLiteral("local access ratio");
    case kBusiest: return QStringLiteral("busiest resource");
    case kBottleneck: return QStringLiteral("bottleneck");
    case kSteps: return QStringLiteral("steps");
    default: return {};
  }
}

// ── ReportTableModel ────────────────────────────────────────────────────────────────────────

ReportTableModel::ReportTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void ReportTableModel::set_report(ValidationReport report) {
  beginResetModel();
  report_ = std::move(report);
  endResetModel();
}

int ReportTableModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(report_.kernels.size()); }
int ReportTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant ReportTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const KernelComparison& k = report_.kernels[index.row()];
  const auto error = k.relative_error();
  const auto after_fit = k.relative_error_after_fit();
  if (role == Qt::UserRole) {
    switch (index.column()) {
      case kThreads: return k.threads;
      case kPredicted: return k.predicted_gbps;
      case kMeasured: return k.measured_gbps ? QVariant(*k.measured_gbps) : QVariant();
      case kError: return error ? QVariant(*error) : QVariant();
      case kAfterFit: return after_fit ? QVariant(*after_fit) : QVariant();
      default: break;
    }
  }
  if (role == Qt::DisplayRole || role == Qt::UserRole) {
    switch (index.column()) {
      case kKernel: return k.id;
      case kWorkload: {
        QStringList parts{k.workload};
        if (!k.algorithm.isEmpty()) parts << k.algorithm;
        if (!k.sync.isEmpty()) parts << k.sync;
        return parts.join(QLatin1Char(' '));
      }
      case kThreads: return k.threads;
      case kPredicted: return QString::number(k.predicted_gbps, 'f', 2);
      case kMeasured: return k.measured_gbps ? QString::number(*k.measured_gbps, 'f', 2) : QStringLiteral("not measured");
      case kError: return error ? QStringLiteral("%1%2%").arg(*error >= 0 ? QStringLiteral("+") : QString()).arg(100.0 * *error, 0, 'f', 1) : QStringLiteral("-");
      case kAfterFit:
        return after_fit ? QStringLiteral("%1%2%").arg(*after_fit >= 0 ? QStringLiteral("+") : QString()).arg(100.0 * *after_fit, 0, 'f', 1)
                         : QStringLiteral("-");
      case kLinks: {
        int measured = 0;
        for (const LinkTraffic& l : k.links) measured += l.measured_gbps ? 1 : 0;
        return k.links.empty() ? QStringLiteral("-") : QStringLiteral("%1 of %2 measured").arg(measured).arg(k.links.size());
      }
      default: return {};
    }
  }
  if (role == Qt::ToolTipRole && !k.measured_gbps) return k.not_measured;
  if (role == Qt::BackgroundRole && index.column() == kError && error) {
    return utilisation_colour(std::min(1.0, std::abs(*error) / 0.25));  // 25 % off reads as saturated red
  }
  if (role == Qt::BackgroundRole && index.column() == kAfterFit && after_fit) {
    return utilisation_colour(std::min(1.0, std::abs(*after_fit) / 0.25));
  }
  return {};
}

QVariant ReportTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kKernel: return QStringLiteral("kernel");
    case kWorkload: return QStringLiteral("workload");
    case kThreads: return QStringLiteral("threads");
    case kPredicted: return QStringLiteral("predicted GB/s");
    case kMeasured: return QStringLiteral("measured GB/s");
    case kError: return QStringLiteral("error");
    case kAfterFit: return QStringLiteral("after cost fit");
    case kLinks: return QStringLiteral("link traffic");
    default: return {};
  }
}

// ── LinkTrafficModel ────────────────────────────────────────────────────────────────────────

LinkTrafficModel::LinkTrafficModel(QObject* parent) : QAbstractTableModel(parent) {}

void LinkTrafficModel::set_links(std::vector<LinkTraffic> links) {
  beginResetModel();
  links_ = std::move(links);
  endResetModel();
}

int LinkTrafficModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : static_cast<int>(links_.size()); }
int LinkTrafficModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant LinkTrafficModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || role != Qt::DisplayRole) return {};
  const LinkTraffic& l = links_[index.row()];
  switch (index.column()) {
    case kLink: return l.link;
    case kPredicted: return QString::number(l.predicted_gbps, 'f', 2);
    case kMeasured: return l.measured_gbps ? QString::number(*l.measured_gbps, 'f', 2) : QStringLiteral("not measured");
    case kNote: return l.not_measured;
    default: return {};
  }
}

QVariant LinkTrafficModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kLink: return QStringLiteral("link");
    case kPredicted: return QStringLiteral("predicted GB/s");
    case kMeasured: return QStringLiteral("measured GB/s");
    case kNote: return QStringLiteral("why not measured");
    default: return {};
  }
}

}  // namespace numatwin::gui
