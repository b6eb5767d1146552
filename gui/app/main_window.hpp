// The numatwin-gui main window: open a machine, choose a workload, simulate it on a worker
// thread, step through the shuffle with a timeline, compare two runs, edit the machine (what-if),
// read a validator report and an allocbench arrivals result (memory over time per allocator), show an adaptive engine run over time, export pictures. Errors go to non-blocking dialogs; the window and
// the app keep running whatever file is opened.
#pragma once

#include <QFutureWatcher>
#include <QMainWindow>
#include <QPointer>
#include <QTimer>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "numatwin/gui/simulation_run.hpp"
#include "numatwin/gui/table_models.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTabWidget;
class QTableView;
class QToolButton;

namespace numatwin::gui {

class AdaptiveRunTab;
class AllocatorMemoryPage;
class InterconnectView;
class StageBarView;
class ThroughputChart;

// Where a finished run goes.
enum class RunSlot { kMain, kCompareA, kCompareB };

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loading. Both return false (and show an error dialog) on failure; the previous machine stays.
  bool open_bundled(const QString& name);
  bool open_topology_file(const QString& path);
  bool open_validation_report(const QString& path);
  // A `numatwin validate allocbench --arrivals ... --out FILE` result: memory over time per
  // allocator, on the Validator tab's "Allocator memory over time" page (brought to the front).
  bool open_allocbench_arrivals(const QString& path);
  // A `numatwin adaptive --json` run, shown in the "Adaptive run" tab (which it brings to the front).
  bool open_adaptive_run(const QString& path);

  // The workload form.
  void set_workload(const QString& workload, const QString& algorithm, const QString& sync, int threads);
  // Operators (partitioned aggregation, count, hash join, sort-merge join): empty / <= 0 keeps
  // the form's value. records and groups are counts (records in tuples, not millions).
  void set_operator(const QString& strategy, double records, double groups);
  // The sort-merge join's phases: "merge" (the merge alone, on prebuilt runs) or "all" (the four
  // phases, drawn as a phase bar under the tabs); empty keeps the form's value.
  void set_sort_merge_phases(const QString& phases);
  [[nodiscard]] std::optional<sim::WorkloadSpec> workload_from_form(QString* error) const;

  // Starts a simulation of the form's workload on the current machine (worker thread).
  void start_run(RunSlot slot = RunSlot::kMain);
  // Runs the form's workload twice into the compare slots, with a and b each an algorithm
  // (naive, ring, random) or, for partitioned aggregation, a strategy (shuffle, migration,
  // migration-copy).
  void start_compare(const QString& algorithm_a, const QString& algorithm_b);
  [[nodiscard]] bool busy() const { return running_ > 0; }

  // Timeline: -1 shows the whole run's mean.
  void show_step(int step);
  [[nodiscard]] int step() const { return step_; }

  // What-if editing of the selected link; each returns false with the error shown.
  void select_link(int link);
  bool edit_selected_bandwidth(double gbps, bool both_directions);
  bool remove_selected_link(bool both_directions);
  bool add_link_between(const QString& a, const QString& b, double gbps, double latency_ns);
  bool save_topology_to(const QString& path);

  bool export_view(const QString& path);   // the interconnect of the tab on screen
  bool export_chart(const QString& path);  // the compare chart

  // Test hooks.
  [[nodiscard]] std::shared_ptr<const model::Topology> topology() const { return topology_; }
  [[nodiscard]] std::shared_ptr<const SimulationRun> current_run() const { return run_; }
  [[nodiscard]] std::shared_ptr<const SimulationRun> compare_run(int which) const { return which == 0 ? compare_a_ : compare_b_; }
  [[nodiscard]] QString last_error() const { return last_error_; }
  [[nodiscard]] InterconnectView* main_view() const { return view_; }
  [[nodiscard]] QTabWidget* tabs() const { return tabs_; }
  [[nodiscard]] ResourceTableModel* resource_model() const { return resource_model_; }
  [[nodiscard]] RunSummaryModel* summary_model() const { return summary_model_; }
  [[nodiscard]] ThroughputChart* chart() const { return chart_; }
  [[nodiscard]] StageBarView* stage_bar() const { return stage_bar_; }
  // What-if weighted interleave: weights per memory node in file order (0 leaves a node out);
  // an empty vector switches it off. A valid change re-runs the form's workload at once.
  void set_interleave_weights(const std::vector<int>& weights);
  [[nodiscard]] QString weights_result_text() const;
  [[nodiscard]] ReportTableModel* report_model() const { return report_model_; }
  [[nodiscard]] AdaptiveRunTab* adaptive_tab() const { return adaptive_tab_; }
  [[nodiscard]] QTabWidget* validator_pages() const { return validator_pages_; }
  [[nodiscard]] AllocatorMemoryPage* allocator_memory_page() const { return allocator_memory_page_; }
  // Called once each time a run lands (after the views are updated).
  void set_run_finished_callback(std::function<void()> callback) { run_finished_ = std::move(callback); }

 signals:
  void runFinished();

 private:
  struct Outcome {
    std::shared_ptr<const SimulationRun> run;
    QString error;
  };

  void build_menus();
  void build_workload_dock();
  void build_edit_dock();
  void build_central();
  void show_error(const QString& title, const QString& text);
  void set_topology(std::shared_ptr<const model::Topology> topology, const QString& source, bool edited);
  void apply_edit(const std::function<void(model::Topology&)>& edit, const QString& what);
  void on_run_finished(RunSlot slot, std::uint64_t generation, const Outcome& outcome);
  void refresh_views();
  void refresh_compare();
  void refresh_edit_panel();
  void refresh_title();
  void refresh_workload_fields();
  void rebuild_weights_panel();
  [[nodiscard]] QString weights_policy_text() const;  // "weighted-interleave:s0n0=3,..." or empty
  void toggle_play();
  void export_dialog(bool chart);

  std::shared_ptr<const model::Topology> topology_;
  std::shared_ptr<const model::Topology> original_;  // as loaded, for "revert"
  QString topology_source_;
  bool edited_ = false;
  std::shared_ptr<const SimulationRun> run_;
  std::shared_ptr<const SimulationRun> compare_a_;
  std::shared_ptr<const SimulationRun> compare_b_;
  std::uint64_t generation_[3] = {0, 0, 0};
  int running_ = 0;
  int step_ = 0;
  int selected_link_ = -1;
  QString last_error_;
  std::function<void()> run_finished_;

  // Widgets (owned by Qt's parent chain).
  QTabWidget* tabs_ = nullptr;
  InterconnectView* view_ = nullptr;
  InterconnectView* compare_view_a_ = nullptr;
  InterconnectView* compare_view_b_ = nullptr;
  ThroughputChart* chart_ = nullptr;
  QTableView* summary_table_ = nullptr;
  QComboBox* machine_combo_ = nullptr;
  QComboBox* workload_combo_ = nullptr;
  QComboBox* algorithm_combo_ = nullptr;
  QComboBox* sync_combo_ = nullptr;
  QSpinBox* threads_spin_ = nullptr;
  QComboBox* placement_combo_ = nullptr;
  QDoubleSpinBox* bytes_spin_ = nullptr;
  QComboBox* strategy_combo_ = nullptr;
  QDoubleSpinBox* records_spin_ = nullptr;  // millions of tuples
  QDoubleSpinBox* groups_spin_ = nullptr;
  QComboBox* join_phases_combo_ = nullptr;  // sort-merge join: merge | all
  StageBarView* stage_bar_ = nullptr;       // the phases of the runs on screen
  // What-if: weighted interleave of the operators' data (one weight per memory node, 0 = none).
  QCheckBox* weights_on_ = nullptr;
  QWidget* weights_panel_ = nullptr;
  std::vector<QSpinBox*> weight_spins_;
  std::vector<int> weight_nodes_;
  QLabel* weights_result_ = nullptr;
  QPushButton* run_button_ = nullptr;
  QLabel* run_status_ = nullptr;
  QToolButton* play_button_ = nullptr;
  QSlider* slider_ = nullptr;
  QCheckBox* whole_run_check_ = nullptr;
  QLabel* step_label_ = nullptr;
  QTimer play_timer_;
  QLabel* selected_label_ = nullptr;
  QDoubleSpinBox* edit_bandwidth_ = nullptr;
  QCheckBox* edit_both_ = nullptr;
  QComboBox* add_from_ = nullptr;
  QComboBox* add_to_ = nullptr;
  QDoubleSpinBox* add_bandwidth_ = nullptr;
  QDoubleSpinBox* add_latency_ = nullptr;
  QLabel* check_label_ = nullptr;
  ResourceTableModel* resource_model_ = nullptr;
  RunSummaryModel* summary_model_ = nullptr;
  ReportTableModel* report_model_ = nullptr;
  LinkTrafficModel* link_traffic_model_ = nullptr;
  QLabel* report_label_ = nullptr;
  AdaptiveRunTab* adaptive_tab_ = nullptr;
  QTabWidget* validator_pages_ = nullptr;  // the Validator tab: report kernels, allocator memory
  AllocatorMemoryPage* allocator_memory_page_ = nullptr;
};

}  // namespace numatwin::gui
