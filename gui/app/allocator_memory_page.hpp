// The Validator tab's "Allocator memory" page: a `numatwin validate allocbench --arrivals ...
// --out FILE` result (docs/allocators.md) drawn as resident memory over time, one line per
// allocator (allocator_memory.hpp, as `numatwin-gui --render --allocbench` draws it), with the
// allocators' figures in a table below: queries, throughput, latency p50 and p99, RSS before,
// peak, as the last query ended and after the idle period, and the share returned.
#pragma once

#include <QString>
#include <QWidget>
#include <optional>

#include "numatwin/gui/allocator_memory.hpp"

class QLabel;
class QTableWidget;

namespace numatwin::gui {

// Paints an AllocatorMemoryView over its whole area (paint_allocator_memory); a hint until set.
class AllocatorMemoryWidget : public QWidget {
 public:
  explicit AllocatorMemoryWidget(QWidget* parent = nullptr);
  void set_view(const AllocatorMemoryView& view);
  [[nodiscard]] const std::optional<AllocatorMemoryView>& view() const { return view_; }

 protected:
  void paintEvent(QPaintEvent* event) override;

 private:
  std::optional<AllocatorMemoryView> view_;
};

class AllocatorMemoryPage : public QWidget {
  Q_OBJECT

 public:
  explicit AllocatorMemoryPage(QWidget* parent = nullptr);

  // Reads the result; throws model::InputError (file, JSON pointer, expectation) for a bad file,
  // leaving the result shown before.
  void load(const QString& path);

  [[nodiscard]] AllocatorMemoryWidget* plot() const { return plot_; }
  [[nodiscard]] QTableWidget* table() const { return table_; }
  [[nodiscard]] QString source() const { return source_; }

 signals:
  void openRequested();  // the page's "Open allocbench arrivals..." button

 private:
  void fill_table(const AllocatorMemoryView& view);

  QString source_;
  QLabel* source_label_ = nullptr;
  AllocatorMemoryWidget* plot_ = nullptr;
  QTableWidget* table_ = nullptr;
};

}  // namespace numatwin::gui
