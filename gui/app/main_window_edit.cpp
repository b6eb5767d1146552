// MainWindow, part 3 of 3: what-if editing of the machine, saving it, and exporting the views
// and the chart (construction and loading: main_window.cpp; runs: main_window_runs.cpp).
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QPainter>
#include <QStatusBar>
#include <QTabWidget>

#include "interconnect_view.hpp"
#include "main_window.hpp"
#include "numatwin/gui/image_export.hpp"
#include "numatwin/gui/interconnect_renderer.hpp"
#include "numatwin/gui/topology_edit.hpp"
#include "numatwin/model/topology_json.hpp"
#include "throughput_chart.hpp"

namespace numatwin::gui {

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
