// MainWindow, part 1 of 3: building the window (docks, tabs, menus) and loading machines,
// validator reports, allocbench arrivals results and adaptive runs (runs and views: main_window_runs.cpp; what-if edits and export:
// main_window_edit.cpp).
#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QSlider>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QTableView>
#include <QThreadPool>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <cmath>

#include "adaptive_run_tab.hpp"
#include "allocator_memory_page.hpp"
#include "interconnect_view.hpp"
#include "stage_bar_view.hpp"
#include "numatwin/gui/image_export.hpp"
#include "numatwin/gui/interconnect_renderer.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "numatwin/gui/topology_edit.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/gui/validation_report.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "throughput_chart.hpp"

namespace numatwin::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("numatwin - NUMA interconnect twin"));
  build_central();
  build_workload_dock();
  build_edit_dock();
  build_menus();
  play_timer_.setInterval(450);
  connect(&play_timer_, &QTimer::timeout, this, [this] {
    if (!run_ || step_ + 1 >= run_->step_count()) {
      toggle_play();
      return;
    }
    show_step(step_ + 1);
  });
  statusBar()->showMessage(tr("Pick a machine and a workload, then Run. Click a lane to select its link."));
  refresh_title();
  resize(1500, 940);
}

MainWindow::~MainWindow() {
  play_timer_.stop();
  // Runs in flight hold their own copies of the topology; wait so none outlives the app.
  QThreadPool::globalInstance()->waitForDone();
}

// ── construction ────────────────────────────────────────────────────────────────────────────

void MainWindow::build_central() {
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(4, 4, 4, 4);
  tabs_ = new QTabWidget(central);

  view_ = new InterconnectView(tabs_);
  tabs_->addTab(view_, tr("Interconnect"));
  connect(view_, &InterconnectView::linkClicked, this, [this](int link) { select_link(link); });
  connect(view_, &InterconnectView::nodeClicked, this, [this](int node) {
    if (view_->renderer() != nullptr) statusBar()->showMessage(view_->renderer()->describe_node(node));
  });

  // Compare: two views side by side, the chart and the summary table below.
  auto* compare = new QWidget(tabs_);
  auto* compare_layout = new QVBoxLayout(compare);
  auto* compare_buttons = new QHBoxLayout;
  auto* as_a = new QPushButton(tr("Run form as A"), compare);
  auto* as_b = new QPushButton(tr("Run form as B"), compare);
  auto* naive_ring = new QPushButton(tr("Naive vs ring"), compare);
  as_a->setToolTip(tr("Simulate the workload form on the machine shown into slot A (e.g. before a what-if edit)"));
  as_b->setToolTip(tr("Simulate the workload form on the machine shown into slot B (e.g. after a what-if edit)"));
  naive_ring->setToolTip(tr("Simulate the form's workload with the naive and the ring algorithm"));
  connect(as_a, &QPushButton::clicked, this, [this] { start_run(RunSlot::kCompareA); });
  connect(as_b, &QPushButton::clicked, this, [this] { start_run(RunSlot::kCompareB); });
  connect(naive_ring, &QPushButton::clicked, this, [this] { start_compare(QStringLiteral("naive"), QStringLiteral("ring")); });
  auto* ring_designed = new QPushButton(tr("Ring vs designed"), compare);
  ring_designed->setToolTip(tr("Simulate the form's workload with the ring and with the order numatwin designs for this machine"));
  connect(ring_designed, &QPushButton::clicked, this, [this] { start_compare(QStringLiteral("ring"), QStringLiteral("scheduled")); });
  compare_buttons->addWidget(as_a);
  compare_buttons->addWidget(as_b);
  compare_buttons->addWidget(naive_ring);
  compare_buttons->addWidget(ring_designed);
  auto* strategies = new QPushButton(tr("Shuffle vs migration"), compare);
  strategies->setToolTip(tr("Partitioned aggregation: simulate the form's workload with the shuffle and the migration strategy"));
  connect(strategies, &QPushButton::clicked, this, [this] {
    workload_combo_->setCurrentText(QStringLiteral("partitioned-aggregation"));
    start_compare(QStringLiteral("shuffle"), QStringLiteral("migration"));
  });
  compare_buttons->addWidget(strategies);
  compare_buttons->addStretch(1);
  compare_layout->addLayout(compare_buttons);
  auto* vertical = new QSplitter(Qt::Vertical, compare);
  auto* views = new QSplitter(Qt::Horizontal, vertical);
  compare_view_a_ = new InterconnectView(views);
  compare_view_b_ = new InterconnectView(views);
  compare_view_a_->set_placeholder(tr("A: no run yet (Run form as A, or Naive vs ring)"));
  compare_view_b_->set_placeholder(tr("B: no run yet (Run form as B, or Naive vs ring)"));
  auto* bottom = new QSplitter(Qt::Horizontal, vertical);
  chart_ = new ThroughputChart(bottom);
  summary_model_ = new RunSummaryModel(this);
  summary_table_ = new QTableView(bottom);
  summary_table_->setModel(summary_model_);
  summary_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  summary_table_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  chart_->setMinimumWidth(460);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 2);
  bottom->setSizes({620, 420});
  vertical->setStretchFactor(0, 3);
  vertical->setStretchFactor(1, 2);
  vertical->setSizes({560, 330});
  compare_layout->addWidget(vertical, 1);
  tabs_->addTab(compare, tr("Compare"));

  // Validator: the report's kernels, and allocators' memory over time (allocator_memory_page.hpp).
  validator_pages_ = new QTabWidget(tabs_);
  validator_pages_->setDocumentMode(true);
  auto* report = new QWidget(validator_pages_);
  auto* report_layout = new QVBoxLayout(report);
  auto* report_top = new QHBoxLayout;
  auto* open_report = new QPushButton(tr("Open validator report..."), report);
  connect(open_report, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open validator report"), QString(), tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) open_validation_report(path);
  });
  report_top->addWidget(open_report);
  report_label_ = new QLabel(tr("Measured next to predicted, per kernel: the report `numatwin validate suite` writes "
                                "(\"numatwin-validation-report\", version 1; docs/gui.md, docs/validation.md)."),
                             report);
  report_label_->setWordWrap(true);
  report_top->addWidget(report_label_, 1);
  report_layout->addLayout(report_top);
  auto* report_split = new QSplitter(Qt::Vertical, report);
  report_model_ = new ReportTableModel(this);
  auto* kernels = new QTableView(report_split);
  kernels->setModel(report_model_);
  kernels->setSelectionBehavior(QAbstractItemView::SelectRows);
  kernels->setSelectionMode(QAbstractItemView::SingleSelection);
  kernels->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  link_traffic_model_ = new LinkTrafficModel(this);
  auto* links = new QTableView(report_split);
  links->setModel(link_traffic_model_);
  links->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  connect(kernels->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    const auto& ks = report_model_->report().kernels;
    link_traffic_model_->set_links(current.isValid() && current.row() < static_cast<int>(ks.size()) ? ks[current.row()].links
                                                                                                    : std::vector<LinkTraffic>{});
  });
  report_layout->addWidget(report_split, 1);
  validator_pages_->addTab(report, tr("Kernels (validator report)"));
  allocator_memory_page_ = new AllocatorMemoryPage(validator_pages_);
  connect(allocator_memory_page_, &AllocatorMemoryPage::openRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open allocbench arrivals result"), QString(), tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) open_allocbench_arrivals(path);
  });
  validator_pages_->addTab(allocator_memory_page_, tr("Allocator memory over time"));
  tabs_->addTab(validator_pages_, tr("Validator"));

  // Adaptive run: a `numatwin adaptive --json` run over time (adaptive_run_tab.hpp).
  adaptive_tab_ = new AdaptiveRunTab(tabs_);
  connect(adaptive_tab_, &AdaptiveRunTab::openRequested, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open adaptive run"), QString(), tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) open_adaptive_run(path);
  });
  tabs_->addTab(adaptive_tab_, tr("Adaptive run"));
  layout->addWidget(tabs_, 1);
  // The phases of the runs on screen (the whole sort-merge join), hidden when they have none.
  stage_bar_ = new StageBarView(central);
  stage_bar_->hide();
  layout->addWidget(stage_bar_);

  // Timeline.
  auto* timeline = new QHBoxLayout;
  play_button_ = new QToolButton(central);
  play_button_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  play_button_->setToolTip(tr("Play the shuffle steps"));
  connect(play_button_, &QToolButton::clicked, this, [this] { toggle_play(); });
  slider_ = new QSlider(Qt::Horizontal, central);
  slider_->setRange(0, 0);
  slider_->setPageStep(1);
  slider_->setTickPosition(QSlider::TicksBelow);
  connect(slider_, &QSlider::valueChanged, this, [this](int v) {
    if (!whole_run_check_->isChecked()) show_step(v);
  });
  whole_run_check_ = new QCheckBox(tr("whole run (mean)"), central);
  connect(whole_run_check_, &QCheckBox::toggled, this, [this](bool on) { show_step(on ? -1 : slider_->value()); });
  step_label_ = new QLabel(tr("no run"), central);
  step_label_->setMinimumWidth(300);
  timeline->addWidget(new QLabel(tr("Step:"), central));
  timeline->addWidget(play_button_);
  timeline->addWidget(slider_, 1);
  timeline->addWidget(whole_run_check_);
  timeline->addWidget(step_label_);
  layout->addLayout(timeline);
  setCentralWidget(central);
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { refresh_views(); });
}

void MainWindow::build_workload_dock() {
  auto* dock = new QDockWidget(tr("Machine and workload"), this);
  dock->setObjectName(QStringLiteral("workload_dock"));
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  auto* panel = new QWidget(dock);
  auto* form = new QFormLayout(panel);
  machine_combo_ = new QComboBox(panel);
  machine_combo_->setPlaceholderText(tr("bundled machines"));
  for (const auto& file : model::bundled_json_files(model::topology_dir())) machine_combo_->addItem(QString::fromStdString(file.stem().string()));
  connect(machine_combo_, &QComboBox::activated, this, [this](int index) { open_bundled(machine_combo_->itemText(index)); });
  auto* open_file = new QPushButton(tr("Open file..."), panel);
  connect(open_file, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open topology"), QString(), tr("Topology (*.json);;All files (*)"));
    if (!path.isEmpty()) open_topology_file(path);
  });
  form->addRow(tr("Machine"), machine_combo_);
  form->addRow(QString(), open_file);
  workload_combo_ = new QComboBox(panel);
  workload_combo_->addItems({QStringLiteral("shuffle"), QStringLiteral("migration"), QStringLiteral("migration-copy"),
                             QStringLiteral("partitioned-aggregation"), QStringLiteral("count"), QStringLiteral("hash-join"),
                             QStringLiteral("sort-merge-join")});
  workload_combo_->setToolTip(tr("Shuffles move bytes only; the operators also rest on the machine's operator costs, "
                                 "so their figures carry a 90 % interval (a band in the Compare chart)"));
  algorithm_combo_ = new QComboBox(panel);
  algorithm_combo_->addItems({QStringLiteral("naive"), QStringLiteral("ring"), QStringLiteral("random"), QStringLiteral("scheduled")});
  algorithm_combo_->setToolTip(tr("scheduled: the order numatwin designs for this machine and placement "
                                  "(numatwin schedule); step through it to see which links each step loads"));
  sync_combo_ = new QComboBox(panel);
  sync_combo_->addItems({QStringLiteral("tight"), QStringLiteral("loose")});
  threads_spin_ = new QSpinBox(panel);
  threads_spin_->setRange(1, 1);
  placement_combo_ = new QComboBox(panel);
  placement_combo_->setEditable(true);
  placement_combo_->addItems({QStringLiteral("dense"), QStringLiteral("sparse")});
  placement_combo_->setToolTip(tr("dense, sparse, or a CPU list such as 0-7,16-23 (Linux numbering)"));
  bytes_spin_ = new QDoubleSpinBox(panel);
  bytes_spin_->setRange(0.001, 1e6);
  bytes_spin_->setDecimals(3);
  bytes_spin_->setValue(12.8);
  bytes_spin_->setSuffix(tr(" GB"));
  form->addRow(tr("Workload"), workload_combo_);
  form->addRow(tr("Algorithm"), algorithm_combo_);
  form->addRow(tr("Sync"), sync_combo_);
  form->addRow(tr("Threads"), threads_spin_);
  form->addRow(tr("Placement"), placement_combo_);
  form->addRow(tr("Bytes shuffled"), bytes_spin_);
  strategy_combo_ = new QComboBox(panel);
  strategy_combo_->addItems({QStringLiteral("shuffle"), QStringLiteral("migration"), QStringLiteral("migration-copy")});
  strategy_combo_->setToolTip(tr("Partitioned aggregation: bring the partitions to the threads (shuffle) or the threads to them"));
  records_spin_ = new QDoubleSpinBox(panel);
  records_spin_->setRange(0.001, 1e5);
  records_spin_->setDecimals(3);
  records_spin_->setValue(100.0);
  records_spin_->setSuffix(tr(" M tuples"));
  records_spin_->setToolTip(tr("Operators: input tuples (the probe side of joins, the fact table of the sort-merge join)"));
  groups_spin_ = new QDoubleSpinBox(panel);
  groups_spin_->setRange(1.0, 1e12);
  groups_spin_->setDecimals(0);
  groups_spin_->setValue(1e6);
  groups_spin_->setToolTip(tr("Operators: distinct keys (groups)"));
  join_phases_combo_ = new QComboBox(panel);
  join_phases_combo_->addItems({QStringLiteral("merge"), QStringLiteral("all")});
  join_phases_combo_->setToolTip(tr("Sort-merge join: the merge phase alone on prebuilt runs, or all four phases "
                                    "(sort facts, partition dimension, gather + sort dimension runs, merge), drawn as a phase bar"));
  form->addRow(tr("Strategy"), strategy_combo_);
  form->addRow(tr("Records"), records_spin_);
  form->addRow(tr("Groups"), groups_spin_);
  form->addRow(tr("Join phases"), join_phases_combo_);
  connect(workload_combo_, &QComboBox::currentTextChanged, this, [this] { refresh_workload_fields(); });
  refresh_workload_fields();
  run_button_ = new QPushButton(tr("Run"), panel);
  run_button_->setDefault(true);
  connect(run_button_, &QPushButton::clicked, this, [this] { start_run(RunSlot::kMain); });
  form->addRow(QString(), run_button_);
  run_status_ = new QLabel(tr("idle"), panel);
  run_status_->setWordWrap(true);
  form->addRow(tr("Status"), run_status_);
  auto* table_box = new QGroupBox(tr("Resources (step on screen)"), panel);
  auto* table_layout = new QVBoxLayout(table_box);
  resource_model_ = new ResourceTableModel(this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(resource_model_);
  proxy->setSortRole(Qt::UserRole);
  auto* table = new QTableView(table_box);
  table->setModel(proxy);
  table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);  // model order until a header is clicked
  table->setSortingEnabled(true);
  table->verticalHeader()->hide();
  table->verticalHeader()->setDefaultSectionSize(22);
  table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table->setColumnHidden(ResourceTableModel::kKind, true);
  table->setColumnHidden(ResourceTableModel::kSaturated, true);
  table_box->setMinimumWidth(400);
  table_layout->addWidget(table);
  form->addRow(table_box);
  dock->setWidget(panel);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
}

void MainWindow::build_edit_dock() {
  auto* dock = new QDockWidget(tr("What-if editing"), this);
  dock->setObjectName(QStringLiteral("edit_dock"));
  dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
  auto* panel = new QWidget(dock);
  auto* layout = new QVBoxLayout(panel);
  auto* selected = new QGroupBox(tr("Selected link (click a lane)"), panel);
  auto* sel_form = new QFormLayout(selected);
  selected_label_ = new QLabel(tr("none"), selected);
  selected_label_->setWordWrap(true);
  edit_bandwidth_ = new QDoubleSpinBox(selected);
  edit_bandwidth_->setRange(0.01, 10000.0);
  edit_bandwidth_->setDecimals(2);
  edit_bandwidth_->setSuffix(tr(" GB/s"));
  edit_both_ = new QCheckBox(tr("both directions"), selected);
  edit_both_->setChecked(true);
  auto* apply = new QPushButton(tr("Set bandwidth"), selected);
  auto* remove = new QPushButton(tr("Remove link"), selected);
  connect(apply, &QPushButton::clicked, this, [this] { edit_selected_bandwidth(edit_bandwidth_->value(), edit_both_->isChecked()); });
  connect(remove, &QPushButton::clicked, this, [this] { remove_selected_link(edit_both_->isChecked()); });
  sel_form->addRow(selected_label_);
  sel_form->addRow(tr("Bandwidth"), edit_bandwidth_);
  sel_form->addRow(edit_both_);
  auto* sel_buttons = new QHBoxLayout;
  sel_buttons->addWidget(apply);
  sel_buttons->addWidget(remove);
  sel_form->addRow(sel_buttons);
  layout->addWidget(selected);

  auto* add = new QGroupBox(tr("Add a link (both directions)"), panel);
  auto* add_form = new QFormLayout(add);
  add_from_ = new QComboBox(add);
  add_to_ = new QComboBox(add);
  add_bandwidth_ = new QDoubleSpinBox(add);
  add_bandwidth_->setRange(0.01, 10000.0);
  add_bandwidth_->setValue(10.0);
  add_bandwidth_->setSuffix(tr(" GB/s"));
  add_latency_ = new QDoubleSpinBox(add);
  add_latency_->setRange(0.0, 100000.0);
  add_latency_->setValue(40.0);
  add_latency_->setSuffix(tr(" ns"));
  auto* add_button = new QPushButton(tr("Add link"), add);
  connect(add_button, &QPushButton::clicked, this, [this] {
    add_link_between(add_from_->currentText(), add_to_->currentText(), add_bandwidth_->value(), add_latency_->value());
  });
  add_form->addRow(tr("From"), add_from_);
  add_form->addRow(tr("To"), add_to_);
  add_form->addRow(tr("Bandwidth"), add_bandwidth_);
  add_form->addRow(tr("Latency"), add_latency_);
  add_form->addRow(add_button);
  layout->addWidget(add);

  // Weighted interleave (Linux 6.9+ MPOL_WEIGHTED_INTERLEAVE) of the operators' data: change a
  // weight and the form's workload runs again with it (sim/workload/memory_policy.hpp).
  auto* weights = new QGroupBox(tr("Weighted interleave (operators' data)"), panel);
  auto* weights_layout = new QVBoxLayout(weights);
  weights_on_ = new QCheckBox(tr("spread the data by these weights"), weights);
  weights_on_->setToolTip(tr("Pages go to each memory node in proportion to its weight (0: none), as "
                             "/sys/kernel/mm/mempolicy/weighted_interleave/nodeN does; `numatwin weights` recommends them"));
  weights_panel_ = new QWidget(weights);
  new QFormLayout(weights_panel_);
  weights_result_ = new QLabel(tr("no weighted run yet"), weights);
  weights_result_->setWordWrap(true);
  weights_layout->addWidget(weights_on_);
  weights_layout->addWidget(weights_panel_);
  weights_layout->addWidget(weights_result_);
  connect(weights_on_, &QCheckBox::toggled, this, [this] {
    if (run_) start_run(RunSlot::kMain);
  });
  layout->addWidget(weights);

  check_label_ = new QLabel(panel);
  check_label_->setWordWrap(true);
  layout->addWidget(check_label_);
  auto* revert = new QPushButton(tr("Revert to the file"), panel);
  connect(revert, &QPushButton::clicked, this, [this] {
    if (original_) set_topology(original_, topology_source_, false);
  });
  auto* save = new QPushButton(tr("Save topology as..."), panel);
  connect(save, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save topology"), QString(), tr("Topology (*.json)"));
    if (!path.isEmpty()) save_topology_to(path);
  });
  layout->addWidget(revert);
  layout->addWidget(save);
  layout->addStretch(1);
  dock->setWidget(panel);
  addDockWidget(Qt::RightDockWidgetArea, dock);
}

void MainWindow::build_menus() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  file->addAction(tr("Open &topology..."), QKeySequence::Open, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open topology"), QString(), tr("Topology (*.json);;All files (*)"));
    if (!path.isEmpty()) open_topology_file(path);
  });
  file->addAction(tr("Open validator &report..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open validator report"), QString(), tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) open_validation_report(path);
  });
  file->addAction(tr("Open allocbench a&rrivals (memory over time)..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open allocbench arrivals result"), QString(), tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) open_allocbench_arrivals(path);
  });
  file->addAction(tr("Open &adaptive run..."), this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open adaptive run"), QString(), tr("JSON (*.json);;All files (*)"));
    if (!path.isEmpty()) open_adaptive_run(path);
  });
  file->addAction(tr("&Save topology as..."), QKeySequence::SaveAs, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save topology"), QString(), tr("Topology (*.json)"));
    if (!path.isEmpty()) save_topology_to(path);
  });
  file->addSeparator();
  file->addAction(tr("&Export view (PNG/SVG)..."), this, [this] { export_dialog(false); });
  file->addAction(tr("Export &chart (PNG/SVG)..."), this, [this] { export_dialog(true); });
  file->addSeparator();
  file->addAction(tr("&Quit"), QKeySequence::Quit, this, [this] { close(); });
  QMenu* run = menuBar()->addMenu(tr("&Run"));
  run->addAction(tr("&Run"), QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] { start_run(RunSlot::kMain); });
  run->addAction(tr("Compare &naive vs ring"), this, [this] { start_compare(QStringLiteral("naive"), QStringLiteral("ring")); });
  run->addAction(tr("&Play / pause steps"), QKeySequence(Qt::Key_Space), this, [this] { toggle_play(); });
}

// ── loading ─────────────────────────────────────────────────────────────────────────────────

void MainWindow::show_error(const QString& title, const QString& text) {
  last_error_ = text;
  statusBar()->showMessage(title + QStringLiteral(": ") + text);
  auto* box = new QMessageBox(QMessageBox::Critical, title, text, QMessageBox::Ok, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->open();  // window-modal but not blocking: the event loop (and any run) goes on
}

bool MainWindow::open_bundled(const QString& name) {
  try {
    auto t = std::make_shared<const model::Topology>(model::find_topology(name.toStdString(), model::topology_dir()));
    set_topology(t, name, false);
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot open machine"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::open_topology_file(const QString& path) {
  try {
    auto t = std::make_shared<const model::Topology>(model::load_topology(path.toStdString()));
    set_topology(t, path, false);
    machine_combo_->setCurrentIndex(-1);
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot open topology"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::open_validation_report(const QString& path) {
  try {
    ValidationReport report = load_validation_report(path);
    const QString machine = report.machine;
    report_model_->set_report(std::move(report));
    link_traffic_model_->set_links({});
    report_label_->setText(tr("%1: machine %2, %3 kernels (format in docs/gui.md)")
                               .arg(QFileInfo(path).fileName(), machine)
                               .arg(report_model_->rowCount()));
    tabs_->setCurrentWidget(validator_pages_);
    validator_pages_->setCurrentIndex(0);
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot open validator report"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::open_allocbench_arrivals(const QString& path) {
  try {
    allocator_memory_page_->load(path);
    tabs_->setCurrentWidget(validator_pages_);
    validator_pages_->setCurrentWidget(allocator_memory_page_);
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot open allocbench arrivals result"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::open_adaptive_run(const QString& path) {
  try {
    adaptive_tab_->load(path);
    tabs_->setCurrentWidget(adaptive_tab_);
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot open adaptive run"), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::set_topology(std::shared_ptr<const model::Topology> topology, const QString& source, bool edited) {
  const bool new_machine = !edited;
  topology_ = std::move(topology);
  topology_source_ = source;
  edited_ = edited;
  if (new_machine) {
    original_ = topology_;
    run_.reset();
    threads_spin_->setRange(1, std::max(1, topology_->total_hardware_threads()));
    threads_spin_->setValue(std::max(1, topology_->total_cores()));
    const int index = machine_combo_->findText(source);
    if (index >= 0) machine_combo_->setCurrentIndex(index);
  }
  selected_link_ = -1;
  add_from_->clear();
  add_to_->clear();
  for (const model::Node& n : topology_->nodes) {
    add_from_->addItem(QString::fromStdString(n.id));
    add_to_->addItem(QString::fromStdString(n.id));
  }
  if (add_to_->count() > 1) add_to_->setCurrentIndex(1);
  if (new_machine) rebuild_weights_panel();
  if (!run_ || run_->topology != topology_) resource_model_->clear();
  const auto problem = check_edited_topology(*topology_);
  check_label_->setText(problem ? tr("<span style='color:#b00020'>This machine cannot be simulated or saved: %1</span>")
                                      .arg(QString::fromStdString(*problem).toHtmlEscaped())
                                : (edited_ ? tr("Edited machine passes every check: Run to re-simulate, or save it.") : QString()));
  refresh_edit_panel();
  refresh_views();
  refresh_title();
}

void MainWindow::refresh_title() {
  setWindowTitle(topology_ ? tr("numatwin - %1%2").arg(QString::fromStdString(topology_->name), edited_ ? tr(" (edited)") : QString())
                           : tr("numatwin - NUMA interconnect twin"));
}

}  // namespace numatwin::gui
