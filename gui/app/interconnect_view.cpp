#include "interconnect_view.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace numatwin::gui {

InterconnectView::InterconnectView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAutoFillBackground(false);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  placeholder_ = tr("Open a machine: pick a bundled one or File > Open topology...");
}

void InterconnectView::set_renderer(std::shared_ptr<InterconnectRenderer> renderer) {
  renderer_ = std::move(renderer);
  update();
}

void InterconnectView::set_placeholder(const QString& text) {
  placeholder_ = text;
  update();
}

void InterconnectView::paintEvent(QPaintEvent* /*event*/) {
  QPainter painter(this);
  if (renderer_) {
    renderer_->paint(painter, QRectF(rect()));
    return;
  }
  painter.fillRect(rect(), Qt::white);
  painter.setPen(QColor(110, 110, 120));
  painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
}

void InterconnectView::mousePressEvent(QMouseEvent* event) {
  if (!renderer_ || event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  const QPointF at = event->position();
  const int node = renderer_->node_at(at, QRectF(rect()));
  if (node >= 0) {
    emit nodeClicked(node);
    return;
  }
  emit linkClicked(renderer_->link_at(at, QRectF(rect())));
}

bool InterconnectView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip && renderer_) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QPointF at = help->pos();
    QString text;
    if (const int node = renderer_->node_at(at, QRectF(rect())); node >= 0) {
      text = renderer_->describe_node(node);
    } else if (const int link = renderer_->link_at(at, QRectF(rect())); link >= 0) {
      text = renderer_->describe_link(link) + tr("\n(click to select for what-if editing)");
    }
    if (text.isEmpty()) {
      QToolTip::hideText();
      event->ignore();
    } else {
      QToolTip::showText(help->globalPos(), text, this);
    }
    return true;
  }
  return QWidget::event(event);
}

}  // namespace numatwin::gui
