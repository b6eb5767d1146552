#include "numatwin/gui/run_uncertainty.hpp"

#include "numatwin/model/operator_costs.hpp"

#include <algorithm>
#include <stdexcept>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/workload/workload_input.hpp"

namespace numatwin::gui {

QString RunUncertainty::time_text() const {
  if (samples > 0) {
    return QStringLiteral("90 %: %1-%2 s (median %3 s, %4 samples%5)")
        .arg(time_s.low, 0, 'g', 3)
        .arg(time_s.high, 0, 'g', 3)
        .arg(time_s.median, 0, 'g', 3)
        .arg(samples)
        .arg(point_short.isEmpty() ? QString() : QStringLiteral("; ") + point_short);
  }
  if (depends_on.empty()) return QStringLiteral("exact: rests on no operator cost");
  return QStringLiteral("exact: every cost it rests on is given");
}

std::optional<PairedWins> paired_wins(const RunUncertainty& a, const RunUncertainty& b) {
  if (a.samples == 0 || a.samples != b.samples || a.uncertain != b.uncertain || a.drawn != b.drawn) return std::nullopt;
  PairedWins w;
  w.samples = a.samples;
  for (std::size_t i = 0; i < a.sample_time_s.size() && i < b.sample_time_s.size(); ++i) {
    if (a.sample_time_s[i] < b.sample_time_s[i]) ++w.a_faster;
    if (b.sample_time_s[i] < a.sample_time_s[i]) ++w.b_faster;
  }
  return w;
}

double headline_rate(const sim::WorkloadSpec& spec, const sim::SimulationResult& result) { return sim::headline_rate(spec, result.time_s); }

QString headline_rate_unit(const sim::WorkloadSpec& spec) {
  return sim::is_shuffle_family(spec.kind) ? QStringLiteral("GB/s") : QStringLiteral("M tuples/s");
}

std::vector<ThroughputPoint> memory_throughput_series(const sim::SimulationResult& r) {
  std::vector<ThroughputPoint> out;
  out.reserve(2 * r.timeline.size());
  for (const sim::TimelineSegment& seg : r.timeline) {
    double load = 0.0;
    for (std::size_t i = 0; i < r.resources.size() && i < seg.utilisation.size(); ++i) {
      if (r.resources[i].kind == model::ResourceKind::kMemoryController) load += seg.utilisation[i] * r.resources[i].capacity_bytes_per_s;
    }
    out.push_back({seg.begin_s, load / 1e9});
    out.push_back({seg.end_s, load / 1e9});
  }
  return out;
}

double throughput_at(const std::vector<ThroughputPoint>& series, double t_s) {
  // Points come in pairs (begin, end) per segment; the segment with begin <= t < end holds t.
  auto it = std::upper_bound(series.begin(), series.end(), t_s, [](double t, const ThroughputPoint& p) { return t < p.time_s; });
  const auto index = static_cast<std::size_t>(it - series.begin());
  if (index == 0 || index >= series.size()) return 0.0;  // before the start or at/after the end
  // index is the first point after t: inside a segment when it is that segment's end (odd index).
  return index % 2 == 1 ? series[index].gbps : 0.0;
}

RunUncertainty run_uncertainty(const model::Topology& topology, const sim::WorkloadSpec& spec, const sim::CostBasis& basis,
                               int samples, int grid_points) {
  if (samples < 0 || samples == 1) throw std::invalid_argument("samples must be 0 (no interval) or >= 2");
  if (grid_points < 2) throw std::invalid_argument("the band needs at least 2 grid points");
  RunUncertainty u;
  u.rate_unit = headline_rate_unit(spec);
  u.depends_on = sim::costs_depended_on(topology, spec);
  // Drawn: every uncertain cost of the machine, not only those this run depends on, so that two
  // runs on one machine are sampled alike (paired_wins) even when one strategy depends on a cost
  // the other does not (a shuffle's scan on table_stream_share, migration's not); a cost a run
  // does not depend on changes nothing in its samples.
  u.uncertain = sim::uncertain_costs(basis, u.depends_on);
  u.basis = u.depends_on.empty() ? QStringLiteral("rests on no operator cost: only on the machine's bandwidths and latencies, taken as exact")
                                 : QString::fromStdString(sim::cost_basis_summary(basis, u.depends_on));
  if (samples == 0 || u.uncertain.empty()) return u;  // nothing uncertain that matters: the figures are points
  std::vector<std::string> every_cost;
  for (const model::OperatorCostInfo& info : model::operator_cost_table()) every_cost.emplace_back(info.name);
  u.uncertain = sim::uncertain_costs(basis, every_cost);

  sim::IntervalOptions options;
  options.samples = samples;
  const std::vector<sim::WorkloadSpec> specs = sim::cost_samples(spec, basis, u.uncertain, options);
  std::vector<double> times(specs.size());
  std::vector<double> rates(specs.size());
  std::vector<std::vector<ThroughputPoint>> series(specs.size());
  sim::SimulationOptions run_options;
  run_options.record_timeline = true;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const sim::SimulationResult r = sim::Simulation(topology).run(sim::build_plan(topology, specs[i]), run_options);
    times[i] = r.time_s;
    rates[i] = headline_rate(specs[i], r);
    series[i] = memory_throughput_series(r);
  }
  u.samples = samples;
  u.sample_time_s = times;
  for (const sim::WorkloadSpec& drawn : specs) {
    std::vector<double> values;
    for (const std::string& name : u.uncertain) values.push_back(sim::cost_field(drawn.costs, name));
    u.drawn.push_back(std::move(values));
  }
  u.time_s = sim::interval_of(times);
  u.rate = sim::interval_of(rates);

  const double end_s = *std::max_element(times.begin(), times.end());
  std::vector<double> at(specs.size());
  for (int g = 0; g < grid_points; ++g) {
    // The last grid time is just inside the slowest sample's last segment, so the band ends on
    // its throughput rather than on 0.
    const double t = g + 1 < grid_points ? end_s * g / (grid_points - 1) : end_s * (1.0 - 1e-9);
    for (std::size_t i = 0; i < series.size(); ++i) at[i] = throughput_at(series[i], t);
    std::sort(at.begin(), at.end());
    u.band.time_s.push_back(t);
    u.band.low_gbps.push_back(sim::quantile(at, 0.05));
    u.band.high_gbps.push_back(sim::quantile(at, 0.95));
  }
  return u;
}

}  // namespace numatwin::gui
