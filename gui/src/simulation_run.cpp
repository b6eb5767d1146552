#include "numatwin/gui/simulation_run.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "numatwin/model/topology_check.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/uncertainty/point_and_interval.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/workload/workload_input.hpp"

namespace numatwin::gui {

QString SimulationRun::label() const {
  if (!sim::is_shuffle_family(spec.kind)) {
    QString variant;
    if (spec.kind == sim::WorkloadKind::kPartitionedAggregation) {
      variant = QStringLiteral(" %1 %2 %3").arg(QString::fromStdString(sim::strategy_name(spec.strategy)),
                                               QString::fromStdString(sim::algorithm_name(spec.algorithm)),
                                               QString::fromStdString(sim::sync_name(spec.sync)));
    } else if (spec.kind == sim::WorkloadKind::kSortMergeJoin) {
      variant = QStringLiteral(" %1%2").arg(QString::fromStdString(sim::algorithm_name(spec.algorithm)),
                                           spec.sort_merge_phases == sim::SortMergePhases::kAll ? QStringLiteral(" all phases") : QString());
    }
    return QStringLiteral("%1%2, %3 threads %4, %5 M records, %6 groups")
        .arg(QString::fromStdString(sim::workload_kind_name(spec.kind)), variant)
        .arg(spec.threads)
        .arg(QString::fromStdString(sim::placement_name(spec.placement)))
        .arg(spec.data.records / 1e6, 0, 'g', 4)
        .arg(spec.data.keys.groups, 0, 'g', 4);
  }
  return QStringLiteral("%1 %2 %3, %4 threads %5, %6")
      .arg(QString::fromStdString(sim::workload_kind_name(spec.kind)), QString::fromStdString(sim::algorithm_name(spec.algorithm)),
           QString::fromStdString(sim::sync_name(spec.sync)))
      .arg(spec.threads)
      .arg(QString::fromStdString(sim::placement_name(spec.placement)), format_bytes(spec.total_bytes));
}

double SimulationRun::shuffle_gbps() const {
  return result.time_s > 0.0 ? sim::workload_input(spec).bytes / result.time_s / 1e9 : 0.0;
}

QString SimulationRun::rate_text() const {
  const bool shuffle = sim::is_shuffle_family(spec.kind);
  return QStringLiteral("%1 %2").arg(rate(), 0, 'f', shuffle ? 2 : 1).arg(headline_rate_unit(spec));
}

SimulationRun run_simulation(std::shared_ptr<const model::Topology> topology, const sim::WorkloadSpec& spec, int interval_samples) {
  model::check_topology(*topology, topology->name);
  SimulationRun run;
  run.topology = std::move(topology);
  const model::Topology& t = *run.topology;
  const sim::CostBasis basis = sim::machine_cost_basis(t);
  run.spec = spec;
  run.spec.costs = sim::operator_costs_of(basis, spec.costs);
  sim::check_workload(t, run.spec);
  sim::Simulation simulation(t);
  sim::SimulationOptions options;
  options.record_timeline = true;
  run.result = simulation.run(sim::build_plan(t, run.spec), options);
  run.uncertainty = run_uncertainty(t, run.spec, basis, interval_samples);
  if (run.uncertainty.samples > 0) {
    // Only the costs this run rests on (the GUI draws every uncertain cost of the machine).
    const sim::PointVersusInterval point = sim::point_versus_interval(run.result.time_s, run.uncertainty.time_s, basis,
                                                                      sim::uncertain_costs(basis, run.uncertainty.depends_on));
    run.uncertainty.point_note = QString::fromStdString(sim::point_outside_note(point, "time", " s"));
    if (point.side != sim::PointSide::kInside) {
      run.uncertainty.point_short = QStringLiteral("the run's time is ") + QString::fromStdString(sim::point_outside_summary(point));
    }
  }
  const model::BandwidthModel& bm = simulation.bandwidth_model();
  run.resources.link_resource.resize(t.links.size());
  for (std::size_t l = 0; l < t.links.size(); ++l) run.resources.link_resource[l] = bm.link_resource(static_cast<int>(l));
  run.resources.memory_resource.resize(t.nodes.size());
  run.resources.forwarding_resource.resize(t.nodes.size());
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    run.resources.memory_resource[n] = bm.memory_resource(static_cast<int>(n));
    run.resources.forwarding_resource[n] = bm.forwarding_resource(static_cast<int>(n));
  }
  return run;
}

UtilisationFrame frame_for_step(const SimulationRun& run, int step) {
  UtilisationFrame f;
  const sim::SimulationResult& r = run.result;
  if (step >= 0 && step < run.step_count()) {
    const sim::StepStats& s = r.steps[step];
    f.step = step;
    f.begin_s = s.begin_s;
    f.end_s = s.end_s;
    f.utilisation.assign(s.mean_utilisation.begin(), s.mean_utilisation.end());
    f.caption = QStringLiteral("step %1 (of 0-%2), %3 to %4")
                    .arg(step)
                    .arg(run.step_count() - 1)
                    .arg(format_seconds(s.begin_s), format_seconds(s.end_s));
    return f;
  }
  f.begin_s = 0.0;
  f.end_s = r.time_s;
  f.utilisation = r.mean_utilisation;
  f.caption = QStringLiteral("whole run (mean over %1)").arg(format_seconds(r.time_s));
  return f;
}

UtilisationFrame frame_at_time(const SimulationRun& run, double t_s) {
  const auto& timeline = run.result.timeline;
  if (timeline.empty()) return frame_for_step(run, -1);
  auto it = std::upper_bound(timeline.begin(), timeline.end(), t_s,
                             [](double t, const sim::TimelineSegment& s) { return t < s.end_s; });
  if (it == timeline.end()) --it;
  UtilisationFrame f;
  f.begin_s = it->begin_s;
  f.end_s = it->end_s;
  f.utilisation.assign(it->utilisation.begin(), it->utilisation.end());
  f.caption = QStringLiteral("at %1 (segment %2 to %3)").arg(format_seconds(t_s), format_seconds(it->begin_s), format_seconds(it->end_s));
  return f;
}

std::vector<ThroughputPoint> memory_throughput_series(const SimulationRun& run) { return memory_throughput_series(run.result); }

QString frame_summary(const SimulationRun& run, const UtilisationFrame& frame) {
  QString text = run.label() + QStringLiteral("  |  ") + frame.caption;
  const int hot = hottest_resource(frame);
  if (hot >= 0 && hot < static_cast<int>(run.result.resources.size())) {
    text += QStringLiteral("  |  hottest %1 %2%").arg(QString::fromStdString(run.result.resources[hot].name)).arg(100.0 * frame.utilisation[hot], 0, 'f', 0);
  }
  double memory_gbps = 0.0;
  for (std::size_t i = 0; i < run.result.resources.size() && i < frame.utilisation.size(); ++i) {
    if (run.result.resources[i].kind == model::ResourceKind::kMemoryController) {
      memory_gbps += frame.utilisation[i] * run.result.resources[i].capacity_bytes_per_s / 1e9;
    }
  }
  text += QStringLiteral("  |  memory %1 GB/s").arg(memory_gbps, 0, 'f', 1);
  if (frame.step < 0) text += QStringLiteral("  |  run %1").arg(run.rate_text());
  return text;
}

int hottest_resource(const UtilisationFrame& frame) {
  int best = -1;
  for (std::size_t i = 0; i < frame.utilisation.size(); ++i) {
    if (best < 0 || frame.utilisation[i] > frame.utilisation[best]) best = static_cast<int>(i);
  }
  return best;
}

QString format_bytes(double bytes) {
  const double a = std::abs(bytes);
  if (a >= 1e12) return QStringLiteral("%1 TB").arg(bytes / 1e12, 0, 'g', 3);
  if (a >= 1e9) return QStringLiteral("%1 GB").arg(bytes / 1e9, 0, 'g', 3);
  if (a >= 1e6) return QStringLiteral("%1 MB").arg(bytes / 1e6, 0, 'g', 3);
  if (a >= 1e3) return QStringLiteral("%1 kB").arg(bytes / 1e3, 0, 'g', 3);
  return QStringLiteral("%1 B").arg(bytes, 0, 'g', 3);
}

QString format_seconds(double seconds) {
  const double a = std::abs(seconds);
  if (a == 0.0) return QStringLiteral("0 s");
  if (a >= 1.0) return QStringLiteral("%1 s").arg(seconds, 0, 'g', 3);
  if (a >= 1e-3) return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'g', 3);
  if (a >= 1e-6) return QStringLiteral("%1 us").arg(seconds * 1e6, 0, 'g', 3);
  return QStringLiteral("%1 ns").arg(seconds * 1e9, 0, 'g', 3);
}

}  // namespace numatwin::gui
