// MainWindow, part 2 of 3: the workload form, runs on worker threads, the timeline and the views
// that show a run (construction and loading: main_window.cpp; what-if edits and export:
// main_window_edit.cpp).
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "interconnect_view.hpp"
#include "main_window.hpp"
#include "stage_bar_view.hpp"
#include "numatwin/gui/interconnect_renderer.hpp"
#include "numatwin/gui/topology_edit.hpp"
#include "numatwin/gui/topology_layout.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/search/scheduled_orders.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
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

// ── workload and runs ───────────────────────────────────────────────────────────────────────

void MainWindow::set_workload(const QString& workload, const QString& algorithm, const QString& sync, int threads) {
  if (!workload.isEmpty()) workload_combo_->setCurrentText(workload);
  if (!algorithm.isEmpty()) algorithm_combo_->setCurrentText(algorithm);
  if (!sync.isEmpty()) sync_combo_->setCurrentText(sync);
  if (threads > 0) threads_spin_->setValue(threads);
}

void MainWindow::set_operator(const QString& strategy, double records, double groups) {
  if (!strategy.isEmpty()) strategy_combo_->setCurrentText(strategy);
  if (records > 0.0) records_spin_->setValue(records / 1e6);
  if (groups > 0.0) groups_spin_->setValue(groups);
}

void MainWindow::set_sort_merge_phases(const QString& phases) {
  if (!phases.isEmpty()) join_phases_combo_->setCurrentText(phases);
}

void MainWindow::refresh_workload_fields() {
  sim::WorkloadKind kind = sim::WorkloadKind::kShuffle;
  try {
    kind = sim::parse_workload_kind(workload_combo_->currentText().toStdString());
  } catch (const std::exception&) {
    return;
  }
  const bool shuffle = sim::is_shuffle_family(kind);
  const bool ordered = shuffle || kind == sim::WorkloadKind::kPartitionedAggregation || kind == sim::WorkloadKind::kSortMergeJoin;
  algorithm_combo_->setEnabled(ordered);
  sync_combo_->setEnabled(ordered);
  bytes_spin_->setEnabled(shuffle);
  strategy_combo_->setEnabled(kind == sim::WorkloadKind::kPartitionedAggregation);
  records_spin_->setEnabled(!shuffle);
  groups_spin_->setEnabled(!shuffle && kind != sim::WorkloadKind::kHashJoin && kind != sim::WorkloadKind::kSortMergeJoin);
  join_phases_combo_->setEnabled(kind == sim::WorkloadKind::kSortMergeJoin);
}

void MainWindow::rebuild_weights_panel() {
  auto* form = static_cast<QFormLayout*>(weights_panel_->layout());
  while (form->rowCount() > 0) form->removeRow(0);
  weight_spins_.clear();
  weight_nodes_.clear();
  if (!topology_) return;
  for (std::size_t n = 0; n < topology_->nodes.size(); ++n) {
    const model::Node& node = topology_->nodes[n];
    if (!node.has_memory()) continue;
    auto* spin = new QSpinBox(weights_panel_);
    spin->setRange(0, 255);
    spin->setValue(1);
    spin->setToolTip(tr("weight of %1 (0: no pages there)").arg(QString::fromStdString(node.id)));
    connect(spin, &QSpinBox::valueChanged, this, [this] {
      if (weights_on_->isChecked() && run_) start_run(RunSlot::kMain);
    });
    form->addRow(QString::fromStdString(node.id), spin);
    weight_spins_.push_back(spin);
    weight_nodes_.push_back(static_cast<int>(n));
  }
}

QString MainWindow::weights_policy_text() const {
  if (!weights_on_->isChecked() || !topology_) return {};
  QStringList parts;
  for (std::size_t i = 0; i < weight_spins_.size(); ++i) {
    if (weight_spins_[i]->value() > 0) {
      parts << QStringLiteral("%1=%2").arg(QString::fromStdString(topology_->nodes[weight_nodes_[i]].id)).arg(weight_spins_[i]->value());
    }
  }
  return QStringLiteral("weighted-interleave:") + parts.join(QLatin1Char(','));
}

void MainWindow::set_interleave_weights(const std::vector<int>& weights) {
  for (std::size_t i = 0; i < weights.size() && i < weight_spins_.size(); ++i) {
    weight_spins_[i]->blockSignals(true);
    weight_spins_[i]->setValue(weights[i]);
    weight_spins_[i]->blockSignals(false);
  }
  weights_on_->blockSignals(true);
  weights_on_->setChecked(!weights.empty());
  weights_on_->blockSignals(false);
  if (run_) start_run(RunSlot::kMain);
}

QString MainWindow::weights_result_text() const { return weights_result_->text(); }

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
    if (!sim::is_shuffle_family(spec.kind)) {
      spec.strategy = sim::parse_strategy(strategy_combo_->currentText().toStdString());
      spec.data.records = records_spin_->value() * 1e6;
      spec.data.keys.groups = groups_spin_->value();
      spec.sort_merge_phases = sim::parse_sort_merge_phases(join_phases_combo_->currentText().toStdString());
      const QString weights = weights_policy_text();
      if (!weights.isEmpty()) spec.memory = sim::parse_memory_policy(weights.toStdString(), *topology_);
    }
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
  const sim::WorkloadSpec form_spec = *spec;
  watcher->setFuture(QtConcurrent::run([topology, form_spec]() -> Outcome {
    try {
      sim::WorkloadSpec s = form_spec;
      // The designed order is searched here, off the GUI thread (large machines take seconds).
      // A migration's is what `numatwin predict --algorithm scheduled` runs for the form's sync
      // (sim/search/migration_schedule.hpp: the blocked order where the fluid model keeps it, else the ring).
      // sim/search/scheduled_orders.hpp decides it for the CLI and the suite too, with the spec's seed.
      if (s.algorithm == sim::ShuffleAlgorithm::kScheduled && s.producer_orders.empty()) {
        s.producer_orders = sim::scheduled_orders(*topology, s).producer_orders;
      }
      return Outcome{std::make_shared<const SimulationRun>(run_simulation(topology, s)), QString()};
    } catch (const std::exception& e) {
      return Outcome{nullptr, QString::fromUtf8(e.what())};
    }
  }));
}

void MainWindow::start_compare(const QString& algorithm_a, const QString& algorithm_b) {
  const QString keep_algorithm = algorithm_combo_->currentText();
  const QString keep_strategy = strategy_combo_->currentText();
  // An algorithm name goes to the algorithm field, a strategy name to the strategy field.
  auto choose = [this](const QString& which) {
    if (algorithm_combo_->findText(which) >= 0) {
      algorithm_combo_->setCurrentText(which);
    } else if (strategy_combo_->findText(which) >= 0) {
      strategy_combo_->setCurrentText(which);
    }
  };
  choose(algorithm_a);
  start_run(RunSlot::kCompareA);
  algorithm_combo_->setCurrentText(keep_algorithm);
  strategy_combo_->setCurrentText(keep_strategy);
  choose(algorithm_b);
  start_run(RunSlot::kCompareB);
  algorithm_combo_->setCurrentText(keep_algorithm);
  strategy_combo_->setCurrentText(keep_strategy);
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
  statusBar()->showMessage(tr("%1: %2 in %3 (%4), %5; %6")
                               .arg(QString::fromStdString(r.topology->name), r.label(), format_seconds(r.result.time_s),
                                    r.uncertainty.time_text(), r.rate_text(), r.uncertainty.basis));
  if (slot == RunSlot::kMain) {
    run_ = outcome.run;
    const sim::MemoryPolicy& memory = run_->spec.memory;
    if (memory.kind == sim::MemoryPolicyKind::kWeightedInterleave) {
      weights_result_->setText(tr("%1: %2 (%3)").arg(QString::fromStdString(sim::memory_policy_name(memory, *run_->topology)), r.rate_text(),
                                                    r.uncertainty.time_text()));
    } else if (weights_on_->isChecked() && sim::is_shuffle_family(run_->spec.kind)) {
      weights_result_->setText(tr("shuffles place their buffers by thread, not by a memory policy: choose an operator"));
    } else {
      weights_result_->setText(tr("%1: %2").arg(QString::fromStdString(sim::memory_policy_name(memory, *run_->topology)), r.rate_text()));
    }
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
      if (!which) return name;
      QString text = QStringLiteral("%1: ").arg(name);
      if (which->spec.kind == sim::WorkloadKind::kPartitionedAggregation) text += QString::fromStdString(sim::strategy_name(which->spec.strategy)) + QStringLiteral(" ");
      return text + QStringLiteral("%1 %2").arg(QString::fromStdString(sim::algorithm_name(which->spec.algorithm)),
                                                QString::fromStdString(sim::sync_name(which->spec.sync)));
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
  // The phase bar: the main run's phases, or on the Compare tab A's and B's on one time scale.
  std::vector<StageBarRow> rows;
  if (tabs_->currentIndex() == 1) {
    for (const auto& [name, run] : {std::pair{tr("A"), compare_a_}, std::pair{tr("B"), compare_b_}}) {
      if (run) rows.push_back(stage_bar_row(*run, name + QStringLiteral(": ") + QString::fromStdString(sim::algorithm_name(run->spec.algorithm)), step_));
    }
  } else if (tabs_->currentIndex() == 0 && run_) {
    rows.push_back(stage_bar_row(*run_, QString::fromStdString(sim::algorithm_name(run_->spec.algorithm)) + QStringLiteral(" ") +
                                            QString::fromStdString(sim::sync_name(run_->spec.sync)),
                                 step_));
  }
  stage_bar_->set_rows(std::move(rows));
  stage_bar_->setVisible(stage_bar_->has_stages());
  play_button_->setEnabled(run_ != nullptr);
  slider_->setEnabled(shown != nullptr);
}

}  // namespace numatwin::gui
