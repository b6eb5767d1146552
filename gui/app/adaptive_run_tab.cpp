#include "adaptive_run_tab.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace numatwin::gui {
namespace {

QString seconds(double s) { return s < 0.0 ? QObject::tr("still running") : QString::number(s, 'f', 2); }

QString gib(double bytes) { return QStringLiteral("%1 GiB").arg(bytes / 1073741824.0, 0, 'g', 3); }

}  // namespace

AdaptiveTimelineWidget::AdaptiveTimelineWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(400, 300);
  setAutoFillBackground(false);
}

void AdaptiveTimelineWidget::set_view(const AdaptiveTimelineView& view) {
  view_ = view;
  update();
}

void AdaptiveTimelineWidget::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  if (!view_) {
    painter.fillRect(rect(), palette().window());
    painter.drawText(rect(), Qt::AlignCenter,
                     tr("No adaptive run open. Write one with\n"
                        "numatwin adaptive --topology T --scenario S --json > run.json\n"
                        "and open it (File > Open adaptive run...)."));
    return;
  }
  paint_adaptive_timeline(painter, QRectF(rect()), *view_);
}

AdaptiveRunTab::AdaptiveRunTab(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* top = new QHBoxLayout();
  auto* open = new QPushButton(tr("Open adaptive run..."), this);
  connect(open, &QPushButton::clicked, this, &AdaptiveRunTab::openRequested);
  source_label_ = new QLabel(tr("the JSON output of numatwin adaptive ... --json"), this);
  top->addWidget(open);
  top->addWidget(source_label_, 1);
  layout->addLayout(top);
  auto* split = new QSplitter(Qt::Vertical, this);
  timeline_ = new AdaptiveTimelineWidget(split);
  decisions_ = new QTableWidget(0, 8, split);
  decisions_->setHorizontalHeaderLabels({tr("decided s"), tr("action"), tr("group"), tr("tables"), tr("from"), tr("to"),
                                         tr("copied"), tr("done s")});
  decisions_->horizontalHeader()->setStretchLastSection(true);
  decisions_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  decisions_->verticalHeader()->setVisible(false);
  split->addWidget(timeline_);
  split->addWidget(decisions_);
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
}

void AdaptiveRunTab::load(const QString& path) {
  const AdaptiveTimelineView view = read_adaptive_timeline(path.toStdString());  // throws: nothing changes
  source_ = path;
  timeline_->set_view(view);
  fill_decisions(view);
  source_label_->setText(tr("%1 (%2 bins, %3 placer decisions)")
                             .arg(path)
                             .arg(view.bins.size())
                             .arg(view.decisions.size()));
}

void AdaptiveRunTab::fill_decisions(const AdaptiveTimelineView& view) {
  decisions_->setRowCount(static_cast<int>(view.decisions.size()));
  for (int row = 0; row < static_cast<int>(view.decisions.size()); ++row) {
    const AdaptiveTimelineView::Decision& d = view.decisions[static_cast<std::size_t>(row)];
    QString tables;
    for (const auto& [table, bytes] : d.tables)
      tables += (tables.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(table) + QLatin1Char(' ') + gib(bytes);
    if (tables.isEmpty()) tables = QString::fromStdString(d.table);
    const QString cells[] = {seconds(d.decided_s),
                             QString::fromStdString(d.action),
                             QString::fromStdString(d.group),
                             tables,
                             QString::fromStdString(d.from),
                             QString::fromStdString(d.to),
                             d.bytes_copied > 0.0 ? gib(d.bytes_copied) : QString(),
                             seconds(d.done_s)};
    for (int col = 0; col < 8; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (col == 1) item->setForeground(adaptive_decision_colour(d.action));
      decisions_->setItem(row, col, item);
    }
  }
  decisions_->resizeColumnsToContents();
}

}  // namespace numatwin::gui
