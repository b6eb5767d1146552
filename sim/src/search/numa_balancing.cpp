// Automatic NUMA balancing over back-to-back executions (numa_balancing.hpp has the model).
#include "numatwin/sim/search/numa_balancing.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/tlb.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

// One placement of the run: the plan's datasets and threads, its time and local share.
struct Snapshot {
  PlanReport report;
  double time_s = 0.0;
  double local_access_ratio = 1.0;
};

// Bytes that move from `before` to `after` over [begin, end) of one dataset, by destination node:
// into[d][s] = bytes from node s to node d.
void add_moves(const DataPlacement& before, const DataPlacement& after, double begin, double end,
               std::map<model::NodeIndex, std::map<model::NodeIndex, double>>& into) {
  for (const Segment& seg : after.segments) {
    const double a = std::max(begin, seg.begin_bytes);
    const double b = std::min(end, seg.end_bytes);
    if (!(b > a)) continue;
    const std::vector<model::NodeShare> old = before.spread(a, b);
    for (const model::NodeShare& now : seg.spread) {
      // Bytes of this piece on `now.node` after, minus those there before: what moved in, taken
      // from the nodes that lost bytes in proportion to what they lost.
      double was = 0.0;
      for (const model::NodeShare& o : old)
        if (o.node == now.node) was = o.fraction;
      const double gained = (b - a) * std::max(0.0, now.fraction - was);
      if (gained <= 0.0) continue;
      double lost_total = 0.0;
      for (const model::NodeShare& o : old) {
        double stays = 0.0;
        for (const model::NodeShare& n : seg.spread)
          if (n.node == o.node) stays = n.fraction;
        lost_total += std::max(0.0, o.fraction - stays);
      }
      for (const model::NodeShare& o : old) {
        double stays = 0.0;
        for (const model::NodeShare& n : seg.spread)
          if (n.node == o.node) stays = n.fraction;
        const double lost = std::max(0.0, o.fraction - stays);
        if (lost > 0.0 && lost_total > 0.0) into[now.node][o.node] += gained * lost / lost_total;
      }
    }
  }
}

}  // namespace

void check_numa_balancing(const NumaBalancingParameters& p) {
  const std::pair<const char*, double> all[] = {{"--balancing-scan-delay-ms", p.scan_delay_ms},
                                                {"--balancing-scan-period-ms", p.scan_period_min_ms},
                                                {"--balancing-scan-size-mb", p.scan_size_mb},
                                                {"--balancing-max-scan-mb-per-s", p.max_scan_mb_per_s},
                                                {"--balancing-fault-us", p.hinting_fault_us}};
  for (const auto& [name, value] : all) {
    if (!(value > 0.0) || !std::isfinite(value)) throw std::invalid_argument(std::string(name) + " must be > 0");
  }
  if (!(p.page_bytes >= 0.0) || !std::isfinite(p.page_bytes)) {
    throw std::invalid_argument("--balancing-page-bytes must be > 0 (or 0: the run's pages)");
  }
}

double balancing_page_bytes(const NumaBalancingParameters& p, const WorkloadSpec& spec) {
  if (p.page_bytes > 0.0) return p.page_bytes;
  return model::page_size_bytes(model::page_size_of(spec.huge_pages, model::BufferKind::kPlaced));
}

double numa_scan_period_ms(const NumaBalancingParameters& p, double rss_bytes) {
  const double scan_bytes = p.scan_size_mb * 1048576.0;
  const double floor_ms = p.scan_size_mb < p.max_scan_mb_per_s ? 1000.0 * p.scan_size_mb / p.max_scan_mb_per_s : 1000.0;
  const double windows = std::max(1.0, std::ceil(rss_bytes / scan_bytes));
  return std::max(floor_ms, p.scan_period_min_ms / windows);
}

double NumaBalancingRun::migrated_bytes() const {
  double sum = 0.0;
  for (const BalancedExecution& e : executions) sum += e.migrated_bytes;
  return sum;
}

double NumaBalancingRun::total_time_s() const {
  return executions.empty() ? 0.0 : executions.back().start_s + executions.back().time_s;
}

NumaBalancingRun simulate_numa_balancing(const model::Topology& topology, const WorkloadSpec& spec,
                                         const NumaBalancingParameters& parameters, int executions) {
  check_numa_balancing(parameters);
  if (is_shuffle_family(spec.kind)) {
    throw std::invalid_argument("--numa-balancing on is modelled for the operators, not for " + workload_kind_name(spec.kind));
  }
  if (executions < 1) throw std::invalid_argument("--executions must be >= 1");
  const double page_bytes = balancing_page_bytes(parameters, spec);

  std::map<double, Snapshot> snapshots;  // by scanned prefix: each placement simulated once
  auto at = [&](double prefix) -> const Snapshot& {
    auto found = snapshots.find(prefix);
    if (found != snapshots.end()) return found->second;
    WorkloadSpec s = spec;
    s.numa_balanced_prefix_bytes = prefix;
    Snapshot snap;
    const Plan plan = build_plan(topology, s, &snap.report);
    Simulation simulation(topology);
    SimulationOptions options;
    options.record_timeline = false;
    const SimulationResult r = simulation.run(plan, options);
    snap.time_s = r.time_s;
    snap.local_access_ratio = r.local_access_ratio();
    return snapshots.emplace(prefix, std::move(snap)).first->second;
  };

  NumaBalancingRun run;
  run.page_bytes = page_bytes;
  const Snapshot& start = at(0.0);
  for (const DataPlacement& d : start.report.datasets) run.rss_bytes += d.size_bytes;
  run.unbalanced_execution_s = start.time_s;
  run.scan_period_ms = numa_scan_period_ms(parameters, run.rss_bytes);
  const double scan_bytes = parameters.scan_size_mb * 1048576.0;
  const double threads = static_cast<double>(start.report.threads.size());
  {
    const Snapshot& all = at(run.rss_bytes);
    std::map<model::NodeIndex, std::map<model::NodeIndex, double>> moves;
    for (std::size_t i = 0; i < all.report.datasets.size(); ++i)
      add_moves(start.report.datasets[i], all.report.datasets[i], 0.0, all.report.datasets[i].size_bytes, moves);
    for (const auto& [to, from] : moves)
      for (const auto& [node, bytes] : from) run.movable_bytes += bytes;
  }

  const model::Routing routing(topology);
  // The workers' stall at a scan that passes [from, to) of the address space (to == from: a
  // scan after the first whole pass, which only faults): copies, then faults.
  auto scan_stall = [&](double from, double to, double window_bytes, double& moved) {
    const Snapshot& before = at(from);
    const Snapshot& after = at(to);
    std::map<model::NodeIndex, std::map<model::NodeIndex, double>> moves;
    double offset = 0.0;
    for (std::size_t i = 0; i < after.report.datasets.size(); ++i) {
      const DataPlacement& d = after.report.datasets[i];
      add_moves(before.report.datasets[i], d, std::max(0.0, from - offset), std::min(d.size_bytes, to - offset), moves);
      offset += d.size_bytes;
    }
    double copy_s = 0.0;
    moved = 0.0;
    if (!moves.empty()) {
      std::vector<std::vector<model::NodeShare>> sources;
      sources.reserve(moves.size());
      std::vector<model::Stream> streams;
      std::vector<model::NodeIndex> stream_to;
      for (const auto& [to_node, from_nodes] : moves) {
        double bytes = 0.0;
        for (const auto& [node, b] : from_nodes) bytes += b;
        std::vector<model::NodeShare> spread;
        for (const auto& [node, b] : from_nodes) spread.push_back(model::NodeShare{node, b / bytes});
        sources.push_back(std::move(spread));
        for (const PlacedThread& p : after.report.threads) {
          if (p.node != to_node) continue;
          model::Stream s;
          s.cpu_node = p.node;
          s.core = p.core;
          s.read_spread = sources.back();
          s.write_node = to_node;
          streams.push_back(s);
          stream_to.push_back(to_node);
        }
      }
      model::BandwidthModel bandwidth(topology, routing);
      const model::StreamRates& rates = bandwidth.solve(streams);
      for (const auto& [to_node, from_nodes] : moves) {
        double bytes = 0.0, rate = 0.0;
        for (const auto& [node, b] : from_nodes) bytes += b;
        for (std::size_t k = 0; k < streams.size(); ++k)
          if (stream_to[k] == to_node) rate += rates.rate_bytes_per_s[k];
        if (!(rate > 0.0)) throw std::logic_error("numa balancing: no worker on the node pages move to");
        copy_s = std::max(copy_s, bytes / rate);
        moved += bytes;
      }
    }
    const double faults = window_bytes / page_bytes;
    return std::pair<double, double>{copy_s + faults / threads * parameters.hinting_fault_us * 1e-6, faults};
  };

  double t = 0.0;
  double prefix = 0.0;
  double next_scan = parameters.scan_delay_ms * 1e-3;
  for (int e = 0; e < executions; ++e) {
    BalancedExecution x;
    x.start_s = t;
    double remaining = 1.0;
    double local_weighted = 0.0;
    double run_s = 0.0;
    while (remaining > 0.0) {
      const Snapshot& now = at(prefix);
      if (!(now.time_s > 0.0)) break;  // nothing to run
      if (t + remaining * now.time_s <= next_scan) {
        t += remaining * now.time_s;
        local_weighted += remaining * now.time_s * now.local_access_ratio;
        run_s += remaining * now.time_s;
        remaining = 0.0;
        break;
      }
      const double until = std::max(0.0, next_scan - t);
      remaining = std::max(0.0, remaining - until / now.time_s);
      local_weighted += until * now.local_access_ratio;
      run_s += until;
      t = std::max(t, next_scan);
      // The scan: the next window of the address space.
      const double to = std::min(run.rss_bytes, prefix + scan_bytes);
      const double window = prefix >= run.rss_bytes ? std::min(scan_bytes, run.rss_bytes) : to - prefix;
      double moved = 0.0;
      const auto [stall_s, faults] = scan_stall(prefix, to, window, moved);
      t += stall_s;
      x.migrated_bytes += moved;
      x.hinting_faults += faults;
      prefix = to;
      next_scan += run.scan_period_ms * 1e-3;
    }
    x.time_s = t - x.start_s;
    x.local_access_ratio = run_s > 0.0 ? local_weighted / run_s : at(prefix).local_access_ratio;
    run.executions.push_back(x);
  }
  return run;
}

}  // namespace numatwin::sim
