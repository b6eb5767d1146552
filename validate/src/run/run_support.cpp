#include "numatwin/validate/run/run_support.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace numatwin::validate {

TeamPlan plan_team(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec) {
  TeamPlan plan;
  plan.model_threads = sim::place_threads(topology, spec.threads, spec.placement);
  for (const sim::PlacedThread& t : plan.model_threads)
    plan.os_cpus.push_back(spec.placement.kind == sim::PlacementKind::kNone ? kUnpinned : host.os_cpu(t));
  return plan;
}

double available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      double kib = 0.0;
      fields >> kib;
      return kib * 1024.0;
    }
  }
  return 0.0;
}

void check_free_memory(double bytes, const RunOptions& options) {
  const double available = available_memory_bytes();
  if (available <= 0.0) return;  // unknown: the allocation itself will fail clearly
  const double allowed = options.memory_fraction * available;
  if (bytes > allowed) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the run needs %.2f GiB, but %.2f GiB is free and at most %.0f %% of it (%.2f GiB) may be used; "
                  "use smaller sizes or --memory-fraction",
                  bytes / 1073741824.0, available / 1073741824.0, 100.0 * options.memory_fraction, allowed / 1073741824.0);
    throw std::invalid_argument(text);
  }
}

void time_repetitions(const RunOptions& options, RealRun& run,
                      const std::function<double(std::vector<PhaseTime>& phases)>& repetition) {
  if (options.repetitions < 1) throw std::invalid_argument("repetitions must be >= 1");
  std::vector<PhaseTime> warmup;
  repetition(warmup);
  std::vector<std::pair<double, std::vector<PhaseTime>>> timed;
  for (int r = 0; r < options.repetitions; ++r) {
    if (r > 0 && options.stop != nullptr && options.stop->load()) break;
    std::vector<PhaseTime> phases;
    const double seconds = repetition(phases);
    timed.emplace_back(seconds, std::move(phases));
  }
  run.repetition_seconds.clear();
  for (const auto& t : timed) run.repetition_seconds.push_back(t.first);
  std::vector<std::size_t> order(timed.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return timed[a].first < timed[b].first; });
  const auto& median = timed[order[(order.size() - 1) / 2]];
  run.seconds = median.first;
  run.phases = median.second;
}

void record_observations(const TeamPlan& plan, const ThreadTeam& team, const std::vector<const PlacedDataset*>& datasets,
                         RealRun& run) {
  run.threads.clear();
  for (int w = 0; w < team.size(); ++w) {
    const auto i = static_cast<std::size_t>(w);
    ThreadObservation t;
    t.worker = w;
    t.model_cpu = plan.model_threads[i].cpu;
    t.intended_cpu = plan.os_cpus[i];
    t.cpu_at_start = team.cpu_at_start()[i];
    t.cpu_at_end = team.cpu_at_end()[i];
    t.node_at_end = t.cpu_at_end >= 0 ? node_of_cpu(t.cpu_at_end) : -1;
    run.threads.push_back(t);
  }
  run.datasets.clear();
  for (const PlacedDataset* d : datasets) run.datasets.push_back({d->name(), static_cast<double>(d->bytes()), d->placement()});
}

}  // namespace numatwin::validate
