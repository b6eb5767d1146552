// The interconnect drawn in a widget: paints with InterconnectRenderer, selects lanes and nodes
// by click (the renderer's own geometry), and shows a tool tip for what is under the mouse.
#pragma once

#include <QWidget>
#include <memory>

#include "numatwin/gui/interconnect_renderer.hpp"

namespace numatwin::gui {

class InterconnectView : public QWidget {
  Q_OBJECT

 public:
  explicit InterconnectView(QWidget* parent = nullptr);

  // Null shows a hint to open a machine.
  void set_renderer(std::shared_ptr<InterconnectRenderer> renderer);
  [[nodiscard]] InterconnectRenderer* renderer() const { return renderer_.get(); }
  void set_placeholder(const QString& text);
  QSize sizeHint() const override { return {900, 640}; }
  QSize minimumSizeHint() const override { return {320, 240}; }

 signals:
  void linkClicked(int link);  // -1 when the click hit nothing
  void nodeClicked(int node);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  std::shared_ptr<InterconnectRenderer> renderer_;
  QString placeholder_;
};

}  // namespace numatwin::gui
