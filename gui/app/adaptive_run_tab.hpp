// The main window's "Adaptive run" tab: a `numatwin adaptive ... --json` run (docs/adaptive.md)
// over time, as the headless `--render --adaptive` draws it (adaptive_timeline.hpp: queries/s,
// per socket CPU and memory strips, the Data Placer's decisions marked where they were taken),
// with the decisions listed below it: when, what, which tables (a table group's together), from
// and to, bytes copied, when done.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>

#include "numatwin/gui/adaptive_timeline.hpp"

class QLabel;
class QPushButton;
class QTableWidget;

namespace numatwin::gui {

// Paints an AdaptiveTimelineView over its whole area (paint_adaptive_timeline); blank until set.
class AdaptiveTimelineWidget : public QWidget {
 public:
  explicit AdaptiveTimelineWidget(QWidget* parent = nullptr);
  void set_view(const AdaptiveTimelineView& view);
  [[nodiscard]] const std::optional<AdaptiveTimelineView>& view() const { return view_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::optional<AdaptiveTimelineView> view_;
};

class AdaptiveRunTab : public QWidget {
  Q_OBJECT

 public:
  explicit AdaptiveRunTab(QWidget* parent = nullptr);

  // Reads the run; throws model::InputError (file, JSON pointer, expectation) for a bad file,
  // leaving the run shown before.
  void load(const QString& path);

  [[nodiscard]] AdaptiveTimelineWidget* timeline() const { return timeline_; }
  [[nodiscard]] QTableWidget* decisions() const { return decisions_; }
  [[nodiscard]] QString source() const { return source_; }

 signals:
  void openRequested();  // the tab's "Open adaptive run..." button

 private:
  void fill_decisions(const AdaptiveTimelineView& view);

  QString source_;
  QLabel* source_label_ = nullptr;
  AdaptiveTimelineWidget* timeline_ = nullptr;
  QTableWidget* decisions_ = nullptr;
};

}  // namespace numatwin::gui
