#include "stage_bar_view.hpp"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace numatwin::gui {

StageBarView::StageBarView(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("The run's phases one after another (each ends at a barrier): sort the fact chunks, range-partition the "
                "dimension chunks, gather and sort each worker's dimension run, merge"));
}

void StageBarView::set_rows(std::vector<StageBarRow> rows) {
  rows_ = std::move(rows);
  updateGeometry();
  update();
}

bool StageBarView::has_stages() const {
  return std::any_of(rows_.begin(), rows_.end(), [](const StageBarRow& r) { return !r.stages.empty(); });
}

QSize StageBarView::sizeHint() const {
  return {900, static_cast<int>(std::ceil(stage_bar_height(std::max<int>(1, static_cast<int>(rows_.size())))))};
}

QSize StageBarView::minimumSizeHint() const { return {320, sizeHint().height()}; }

void StageBarView::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  painter.fillRect(rect(), palette().window());
  paint_stage_bar(painter, QRectF(rect()), rows_);
}

}  // namespace numatwin::gui
