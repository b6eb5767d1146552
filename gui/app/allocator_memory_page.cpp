#include "allocator_memory_page.hpp"

#include <QFileInfo>
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

QString mib(double bytes) { return QString::number(bytes / 1048576.0, 'f', 1); }
QString ms(double seconds) { return QString::number(seconds * 1e3, 'f', 1); }

}  // namespace

AllocatorMemoryWidget::AllocatorMemoryWidget(QWidget* parent) : QWidget(parent) {
  setMinimumSize(400, 300);
  setAutoFillBackground(false);
}

void AllocatorMemoryWidget::set_view(const AllocatorMemoryView& view) {
  view_ = view;
  update();
}

void AllocatorMemoryWidget::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  if (!view_) {
    painter.fillRect(rect(), palette().window());
    painter.drawText(rect(), Qt::AlignCenter,
                     tr("No allocbench arrivals result open. Write one with\n"
                        "numatwin validate allocbench --allocator all --arrivals 50 --out arrivals.json\n"
                        "and open it (File > Open allocbench arrivals...)."));
    return;
  }
  paint_allocator_memory(painter, QRectF(rect()), *view_);
}

AllocatorMemoryPage::AllocatorMemoryPage(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* top = new QHBoxLayout();
  auto* open = new QPushButton(tr("Open allocbench arrivals..."), this);
  connect(open, &QPushButton::clicked, this, &AllocatorMemoryPage::openRequested);
  source_label_ = new QLabel(tr("Resident memory over time per allocator: the JSON of numatwin validate allocbench --arrivals RATE --out FILE "
                                "(docs/allocators.md)."),
                             this);
  source_label_->setWordWrap(true);
  top->addWidget(open);
  top->addWidget(source_label_, 1);
  layout->addLayout(top);
  auto* split = new QSplitter(Qt::Vertical, this);
  plot_ = new AllocatorMemoryWidget(split);
  table_ = new QTableWidget(0, 10, split);
  table_->setHorizontalHeaderLabels({tr("allocator"), tr("queries"), tr("queries/s"), tr("p50 ms"), tr("p99 ms"), tr("before MiB"),
                                     tr("peak MiB"), tr("last end MiB"), tr("after idle MiB"), tr("returned")});
  table_->horizontalHeaderItem(5)->setToolTip(tr("RSS before the first arrival"));
  table_->horizontalHeaderItem(7)->setToolTip(tr("RSS as the last query ended (its thread still running)"));
  table_->horizontalHeaderItem(8)->setToolTip(tr("RSS after the idle period that follows the queries"));
  table_->horizontalHeaderItem(9)->setToolTip(tr("(peak - after idle) / (peak - before)"));
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  split->addWidget(plot_);
  split->addWidget(table_);
  split->setStretchFactor(0, 5);
  split->setStretchFactor(1, 1);
  layout->addWidget(split, 1);
}

void AllocatorMemoryPage::load(const QString& path) {
  const AllocatorMemoryView view = read_allocator_memory(path.toStdString());  // throws: nothing changes
  source_ = path;
  plot_->set_view(view);
  fill_table(view);
  QString names;
  for (const AllocatorMemoryView::Series& s : view.series)
    names += (names.isEmpty() ? QString() : QStringLiteral(", ")) + QString::fromStdString(s.allocator);
  source_label_->setText(tr("%1: %2 allocators (%3)").arg(QFileInfo(path).fileName()).arg(view.series.size()).arg(names));
}

void AllocatorMemoryPage::fill_table(const AllocatorMemoryView& view) {
  table_->setRowCount(static_cast<int>(view.series.size()));
  for (int row = 0; row < static_cast<int>(view.series.size()); ++row) {
    const AllocatorMemoryView::Series& s = view.series[static_cast<std::size_t>(row)];
    const QString cells[] = {QString::fromStdString(s.allocator),
                             QString::number(s.queries),
                             QString::number(s.queries_per_second, 'f', 1),
                             ms(s.p50_s),
                             ms(s.p99_s),
                             mib(s.rss_before_bytes),
                             mib(s.rss_peak_bytes),
                             mib(s.rss_end_of_queries_bytes),
                             mib(s.rss_after_idle_bytes),
                             QStringLiteral("%1 %").arg(100.0 * s.returned_share, 0, 'f', 0)};
    for (int col = 0; col < 10; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (col == 0) item->setForeground(allocator_colour(s.allocator, static_cast<std::size_t>(row)));
      if (col > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(row, col, item);
    }
  }
  // Room for every allocator's row (the plot takes the rest).
  table_->resizeRowsToContents();
  int height = table_->horizontalHeader()->height() + 2 * table_->frameWidth() + 4;
  for (int row = 0; row < table_->rowCount(); ++row) height += table_->rowHeight(row);
  table_->setMinimumHeight(height);
}

}  // namespace numatwin::gui
