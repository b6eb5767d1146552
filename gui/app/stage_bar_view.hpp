// The phase bar in a widget (stage_bar.hpp): one row per run shown, under the tabs; the main
// window hides it when no run on screen has named stages.
#pragma once

#include <QWidget>
#include <vector>

#include "numatwin/gui/stage_bar.hpp"

namespace numatwin::gui {

class StageBarView : public QWidget {
  Q_OBJECT

 public:
  explicit StageBarView(QWidget* parent = nullptr);
  void set_rows(std::vector<StageBarRow> rows);
  [[nodiscard]] const std::vector<StageBarRow>& rows() const { return rows_; }
  // True when some row has a stage (what the main window shows the view for).
  [[nodiscard]] bool has_stages() const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::vector<StageBarRow> rows_;
};

}  // namespace numatwin::gui
