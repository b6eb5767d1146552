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

#include "interconnect_view.hpp"
#include "numatwin/gui/image_export.hpp"
#include "numatwin/gui/interconnect_renderer.hpp"
#include "numatwin/gui/topology_catalog.hpp"
#include "numatwin/gui/topology_edit.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/gui/validation_report.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/thread_placement.hpp"
#include "throughput_chart.hpp"

namespace numatwin::gui {
namespace {

int slot_index(RunSlot slot) { return static_cast<int>(slot); }

QString machine_title(const model::Topology& t, bool edited) {
  QString title = QString::fromStdString(t.name);
  if (edited) title += QObject::tr(" (edited: what-if)");
  if (!t.description.empty()) title += QStringLiteral("  -  ") + QString::fromStdString(t.description);
  return title;
}

// Colours and captions one view for a run (or for none).
void show_in_view(InterconnectView* view, const std::shared_ptr<const model::Topology>& topology,
                  const std::shared_ptr<const SimulationRun>& run, int step, int selected_link, bool edited, const QString& empty_hint) {
  if (!topology) {
    view->set_renderer(nullptr);
    return;
  }
  auto renderer = view->renderer() != nullptr && &view->renderer()->topology() == topology.get()
                      ? std::shared_ptr<InterconnectRenderer>()  // reuse below
                      : std::make_shared<InterconnectRenderer>(topology, layout_topology(*topology));
  InterconnectRenderer* r = renderer ? renderer.get() : view->renderer();
  RenderOptions options = r->options();
  options.title = machine_title(*topology, edited);
  options.selected_link = selected_link;
  if (run && run->topology == topology) {
    const int s = step < 0 ? -1 : std::min(step, run->step_count() - 1);
    const UtilisationFrame frame = frame_for_step(*run, s);
    r->set_colouring(InterconnectColouring::from_frame(*run, frame));
    options.subtitle = frame_summary(*run, frame);
  } else {
    r->set_colouring(InterconnectColouring::none(*topology));
    options.subtitle = empty_hint;
  }
  r->set_options(options);
  if (renderer) {
    view->set_renderer(renderer);
  } else {
    view->update();
  }
}

}  // namespace

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
  compare_buttons->addWidget(as_a);
  compare_buttons->addWidget(as_b);
  compare_buttons->addWidget(naive_ring);
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

  // Validator report.
  auto* report = new QWidget(tabs_);
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
  tabs_->addTab(report, tr("Validator report"));
  layout->addWidget(tabs_, 1);

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
  for (const auto& file : bundled_topology_files(topology_dir())) machine_combo_->addItem(QString::fromStdString(file.stem().string()));
  connect(machine_combo_, &QComboBox::activated, this, [this](int index) { open_bundled(machine_combo_->itemText(index)); });
  auto* open_file = new QPushButton(tr("Open file..."), panel);
  connect(open_file, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open topology"), QString(), tr("Topology (*.json);;All files (*)"));
    if (!path.isEmpty()) open_topology_file(path);
  });
  form->addRow(tr("Machine"), machine_combo_);
  form->addRow(QString(), open_file);
  workload_combo_ = new QComboBox(panel);
  workload_combo_->addItems({QStringLiteral("shuffle"), QStringLiteral("migration"), QStringLiteral("migration-copy")});
  algorithm_combo_ = new QComboBox(panel);
  algorithm_combo_->addItems({QStringLiteral("naive"), QStringLiteral("ring"), QStringLiteral("random")});
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
    auto t = std::make_shared<const model::Topology>(find_topology(name.toStdString(), topology_dir()));
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
    tabs_->setCurrentIndex(2);
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot open validator report"), QString::fromUtf8(e.what()));
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

// ── workload and runs ───────────────────────────────────────────────────────────────────────

void MainWindow::set_workload(const QString& workload, const QString& algorithm, const QString& sync, int threads) {
  if (!workload.isEmpty()) workload_combo_->setCurrentText(workload);
  if (!algorithm.isEmpty()) algorithm_combo_->setCurrentText(algorithm);
  if (!sync.isEmpty()) sync_combo_->setCurrentText(sync);
  if (threads > 0) threads_spin_->setValue(threads);
}

std::optional<sim::WorkloadSpec> MainWindow::workload_from_form(QString* error) const {
  if (!topology_) {
    if (error) *error = tr("open a machine first");
    return std::nullopt;
  }
  try {
    sim::WorkloadSpec spec;
    spec.kind = sim::parse_workload_kind(workload_combo_->currentText().toStdString());
    spec.algorithm = sim::parse_algorithm(algorithm_combo_->currentText().toStdString());
    spec.sync = sim::parse_sync(sync_combo_->currentText().toStdString());
    spec.threads = threads_spin_->value();
    spec.placement = sim::parse_placement(placement_combo_->currentText().trimmed().toStdString());
    spec.total_bytes = bytes_spin_->value() * 1e9;
    sim::check_workload(*topology_, spec);
    return spec;
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return std::nullopt;
  }
}

void MainWindow::start_run(RunSlot slot) {
  QString error;
  const std::optional<sim::WorkloadSpec> spec = workload_from_form(&error);
  if (!spec) {
    show_error(tr("Cannot run"), error);
    return;
  }
  if (const auto problem = check_edited_topology(*topology_)) {
    show_error(tr("Cannot run"), QString::fromStdString(*problem));
    return;
  }
  const std::uint64_t generation = ++generation_[slot_index(slot)];
  ++running_;
  run_status_->setText(tr("simulating %1 on a worker thread...").arg(QString::fromStdString(sim::algorithm_name(spec->algorithm))));
  auto* watcher = new QFutureWatcher<Outcome>(this);
  connect(watcher, &QFutureWatcher<Outcome>::finished, this, [this, watcher, slot, generation] {
    const Outcome outcome = watcher->result();
    watcher->deleteLater();
    on_run_finished(slot, generation, outcome);
  });
  std::shared_ptr<const model::Topology> topology = topology_;
  const sim::WorkloadSpec s = *spec;
  watcher->setFuture(QtConcurrent::run([topology, s]() -> Outcome {
    try {
      return Outcome{std::make_shared<const SimulationRun>(run_simulation(topology, s)), QString()};
    } catch (const std::exception& e) {
      return Outcome{nullptr, QString::fromUtf8(e.what())};
    }
  }));
}

void MainWindow::start_compare(const QString& algorithm_a, const QString& algorithm_b) {
  const QString keep = algorithm_combo_->currentText();
  algorithm_combo_->setCurrentText(algorithm_a);
  start_run(RunSlot::kCompareA);
  algorithm_combo_->setCurrentText(algorithm_b);
  start_run(RunSlot::kCompareB);
  algorithm_combo_->setCurrentText(keep);
  tabs_->setCurrentIndex(1);
}

void MainWindow::on_run_finished(RunSlot slot, std::uint64_t generation, const Outcome& outcome) {
  running_ = std::max(0, running_ - 1);
  run_status_->setText(running_ > 0 ? tr("%1 run(s) still simulating...").arg(running_) : tr("idle"));
  if (generation != generation_[slot_index(slot)]) return;  // a newer request replaced it
  if (!outcome.run) {
    show_error(tr("Simulation failed"), outcome.error);
    return;
  }
  const SimulationRun& r = *outcome.run;
  statusBar()->showMessage(tr("%1: %2 in %3, %4 GB/s").arg(QString::fromStdString(r.topology->name), r.label(), format_seconds(r.result.time_s))
                               .arg(r.shuffle_gbps(), 0, 'f', 2));
  if (slot == RunSlot::kMain) {
    run_ = outcome.run;
    slider_->blockSignals(true);
    slider_->setRange(0, std::max(0, run_->step_count() - 1));
    slider_->blockSignals(false);
    const int s = whole_run_check_->isChecked() ? -1 : std::clamp(step_, 0, std::max(0, run_->step_count() - 1));
    resource_model_->set_run(run_, frame_for_step(*run_, s));
    show_step(s);
  } else {
    (slot == RunSlot::kCompareA ? compare_a_ : compare_b_) = outcome.run;
    if (!run_ && topology_ == outcome.run->topology) {
      slider_->setRange(0, std::max(0, outcome.run->step_count() - 1));
    }
    auto short_name = [](const QString& name, const std::shared_ptr<const SimulationRun>& which) {
      return which ? QStringLiteral("%1: %2 %3").arg(name, QString::fromStdString(sim::algorithm_name(which->spec.algorithm)),
                                                     QString::fromStdString(sim::sync_name(which->spec.sync)))
                   : name;
    };
    chart_->set_runs({compare_a_, compare_b_}, {short_name(QStringLiteral("A"), compare_a_), short_name(QStringLiteral("B"), compare_b_)});
    summary_model_->set_runs({compare_a_, compare_b_}, {tr("A"), tr("B")});
    if (!run_) slider_->setRange(0, std::max(compare_a_ ? compare_a_->step_count() - 1 : 0, compare_b_ ? compare_b_->step_count() - 1 : 0));
    refresh_views();
  }
  emit runFinished();
  if (run_finished_) run_finished_();
}

void MainWindow::show_step(int step) {
  step_ = step;
  if (step >= 0 && slider_->value() != step) {
    slider_->blockSignals(true);
    slider_->setValue(step);
    slider_->blockSignals(false);
  }
  if (whole_run_check_->isChecked() != (step < 0)) {
    whole_run_check_->blockSignals(true);
    whole_run_check_->setChecked(step < 0);
    whole_run_check_->blockSignals(false);
  }
  if (run_) resource_model_->set_frame(frame_for_step(*run_, step));
  refresh_views();
}

void MainWindow::toggle_play() {
  if (play_timer_.isActive()) {
    play_timer_.stop();
    play_button_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
    return;
  }
  if (!run_ || run_->step_count() == 0) return;
  if (step_ < 0 || step_ + 1 >= run_->step_count()) show_step(0);
  play_button_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
  play_timer_.start();
}

void MainWindow::refresh_views() {
  const QString hint = edited_ && run_ && run_->topology != topology_ ? tr("machine edited: press Run to simulate it again")
                                                                       : tr("no run yet: choose a workload and press Run");
  show_in_view(view_, topology_, run_, step_, selected_link_, edited_, hint);
  auto compare_view = [this](InterconnectView* view, const std::shared_ptr<const SimulationRun>& run, const QString& name) {
    if (!run) {
      view->set_renderer(nullptr);
      return;
    }
    const bool edited = run->topology != original_;
    show_in_view(view, run->topology, run, step_, -1, edited, QString());
    RenderOptions o = view->renderer()->options();
    o.title = name + QStringLiteral(": ") + machine_title(*run->topology, edited);
    o.subtitle = frame_summary(*run, frame_for_step(*run, step_ < 0 ? -1 : std::min(step_, run->step_count() - 1)));
    o.header = true;
    view->renderer()->set_options(o);
    view->update();
  };
  compare_view(compare_view_a_, compare_a_, tr("A"));
  compare_view(compare_view_b_, compare_b_, tr("B"));
  const std::shared_ptr<const SimulationRun> shown = run_ ? run_ : (compare_a_ ? compare_a_ : compare_b_);
  if (shown) {
    const UtilisationFrame frame = frame_for_step(*shown, step_ < 0 ? -1 : std::min(step_, shown->step_count() - 1));
    step_label_->setText(frame.caption);
    chart_->set_marker(step_ < 0 ? -1.0 : frame.begin_s);
  } else {
    step_label_->setText(tr("no run"));
  }
  play_button_->setEnabled(run_ != nullptr);
  slider_->setEnabled(shown != nullptr);
}

// ── what-if editing ─────────────────────────────────────────────────────────────────────────

void MainWindow::select_link(int link) {
  selected_link_ = topology_ && link >= 0 && link < static_cast<int>(topology_->links.size()) ? link : -1;
  refresh_edit_panel();
  refresh_views();
  if (selected_link_ >= 0 && view_->renderer() != nullptr) statusBar()->showMessage(view_->renderer()->describe_link(selected_link_));
}

void MainWindow::refresh_edit_panel() {
  if (!topology_ || selected_link_ < 0) {
    selected_label_->setText(tr("none: click a lane in the interconnect"));
    return;
  }
  const model::Link& l = topology_->links[selected_link_];
  selected_label_->setText(tr("%1: %2 GB/s, %3 ns").arg(QString::fromStdString(topology_->link_name(selected_link_))).arg(l.bandwidth_gbps).arg(l.latency_ns));
  edit_bandwidth_->setValue(l.bandwidth_gbps);
}

void MainWindow::apply_edit(const std::function<void(model::Topology&)>& edit, const QString& what) {
  auto edited = std::make_shared<model::Topology>(*topology_);
  edit(*edited);
  const bool had_run = run_ != nullptr;
  set_topology(edited, topology_source_, true);
  statusBar()->showMessage(what);
  // Re-simulate at once when the machine is still valid, so the effect is visible.
  if (had_run && !check_edited_topology(*topology_)) start_run(RunSlot::kMain);
}

bool MainWindow::edit_selected_bandwidth(double gbps, bool both_directions) {
  if (!topology_ || selected_link_ < 0) {
    show_error(tr("Cannot edit"), tr("select a link first: click one of its lanes"));
    return false;
  }
  try {
    const int link = selected_link_;
    const QString name = QString::fromStdString(topology_->link_name(link));
    apply_edit([&](model::Topology& t) { set_link_bandwidth(t, link, gbps, both_directions); },
               tr("%1 set to %2 GB/s").arg(name).arg(gbps));
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot edit"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::remove_selected_link(bool both_directions) {
  if (!topology_ || selected_link_ < 0) {
    show_error(tr("Cannot remove"), tr("select a link first: click one of its lanes"));
    return false;
  }
  try {
    const int link = selected_link_;
    const QString name = QString::fromStdString(topology_->link_name(link));
    apply_edit([&](model::Topology& t) { remove_link(t, link, both_directions); }, tr("removed %1").arg(name));
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot remove"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::add_link_between(const QString& a, const QString& b, double gbps, double latency_ns) {
  if (!topology_) {
    show_error(tr("Cannot add a link"), tr("open a machine first"));
    return false;
  }
  try {
    const auto ia = topology_->find_node(a.toStdString());
    const auto ib = topology_->find_node(b.toStdString());
    if (!ia || !ib) throw std::invalid_argument("both ends must be nodes of the machine");
    apply_edit([&](model::Topology& t) { add_link(t, *ia, *ib, gbps, latency_ns); }, tr("added %1<->%2").arg(a, b));
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot add a link"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::save_topology_to(const QString& path) {
  if (!topology_) {
    show_error(tr("Cannot save"), tr("open a machine first"));
    return false;
  }
  if (const auto problem = check_edited_topology(*topology_)) {
    show_error(tr("Cannot save: the machine fails a check"), QString::fromStdString(*problem));
    return false;
  }
  try {
    model::save_topology(*topology_, path.toStdString());
    statusBar()->showMessage(tr("saved %1").arg(path));
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot save"), QString::fromUtf8(e.what()));
    return false;
  }
}

// ── export ──────────────────────────────────────────────────────────────────────────────────

bool MainWindow::export_view(const QString& path) {
  try {
    if (tabs_->currentIndex() == 1 && (compare_view_a_->renderer() != nullptr || compare_view_b_->renderer() != nullptr)) {
      InterconnectRenderer* a = compare_view_a_->renderer();
      InterconnectRenderer* b = compare_view_b_->renderer();
      save_picture(
          [a, b](QPainter& p, const QRectF& r) {
            p.fillRect(r, Qt::white);
            const QRectF left(r.left(), r.top(), r.width() / 2, r.height());
            const QRectF right(r.left() + r.width() / 2, r.top(), r.width() / 2, r.height());
            if (a != nullptr) a->paint(p, left);
            if (b != nullptr) b->paint(p, right);
            p.setPen(QColor(180, 180, 180));
            p.drawLine(QPointF(right.left(), r.top()), QPointF(right.left(), r.bottom()));
          },
          QSize(2000, 860), path, tr("numatwin compare"));
    } else {
      if (view_->renderer() == nullptr) throw std::runtime_error("nothing to export: open a machine first");
      save_picture(*view_->renderer(), QSize(1400, 940), path);
    }
    statusBar()->showMessage(tr("exported %1").arg(path));
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot export"), QString::fromUtf8(e.what()));
    return false;
  }
}

bool MainWindow::export_chart(const QString& path) {
  try {
    if (chart_->series_count() == 0) throw std::runtime_error("nothing to export: compare two runs first (Compare tab)");
    const QSize size = chart_->size().width() > 300 ? chart_->size() : QSize(1000, 480);
    if (chart_->size().width() <= 300) chart_->resize(size);
    save_picture([this](QPainter& p, const QRectF& r) { chart_->render(&p, r); }, size, path, tr("numatwin throughput"));
    statusBar()->showMessage(tr("exported %1").arg(path));
    return true;
  } catch (const std::exception& e) {
    show_error(tr("Cannot export"), QString::fromUtf8(e.what()));
    return false;
  }
}

void MainWindow::export_dialog(bool chart) {
  QString filter;
  QString path = QFileDialog::getSaveFileName(this, chart ? tr("Export chart") : tr("Export view"), QString(),
                                              tr("PNG image (*.png);;SVG drawing (*.svg)"), &filter);
  if (path.isEmpty()) return;
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix != QStringLiteral("png") && suffix != QStringLiteral("svg")) path += filter.contains(QStringLiteral("svg")) ? QStringLiteral(".svg") : QStringLiteral(".png");
  if (chart) {
    export_chart(path);
  } else {
    export_view(path);
  }
}

}  // namespace numatwin::gui
