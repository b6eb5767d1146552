#include "report/schedule_comparison.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "numatwin/shuffle/schedule_file.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"

namespace numatwin::cli {
namespace {

std::string cpu_list(const std::vector<int>& cpus) {
  std::string text;
  for (int c : cpus) text += fmt::format("{}{}", text.empty() ? "" : ",", c);
  return text;
}

}  // namespace

ScheduleComparison schedule_comparison(const model::Topology& topology, const sim::WorkloadSpec& spec, const std::string& file,
                                       bool threads_given) {
  if (!sim::is_shuffle_family(spec.kind))
    throw std::invalid_argument("--schedule runs a schedule file's order: it needs --workload shuffle, migration or migration-copy, not " +
                                sim::workload_kind_name(spec.kind));
  const shuffle::ScheduleFile schedule = shuffle::read_schedule_file(file);
  const shuffle::Workload wanted = spec.kind == sim::WorkloadKind::kShuffle     ? shuffle::Workload::kShuffle
                                   : spec.kind == sim::WorkloadKind::kMigration ? shuffle::Workload::kMigration
                                                                                : shuffle::Workload::kMigrationCopy;
  if (schedule.workload != wanted)
    throw shuffle::ScheduleFileError(file, "/workload",
                                     fmt::format("expected \"{}\", as --workload says, found {}", shuffle::workload_name(wanted),
                                                 schedule.workload == shuffle::Workload::kShuffle
                                                     ? std::string("a shuffle's order (\"shuffle\", or no workload field)")
                                                     : "\"" + shuffle::workload_name(schedule.workload) + "\""));
  sim::WorkloadSpec base = spec;
  if (!threads_given) {
    base.threads = schedule.threads;
  } else if (base.threads != schedule.threads) {
    throw shuffle::ScheduleFileError(file, "/threads",
                                     fmt::format("expected {} threads, as --threads says, found {}", base.threads, schedule.threads));
  }
  ScheduleComparison out;
  if (!schedule.topology.empty() && schedule.topology != topology.name)
    out.notes.push_back(fmt::format("{} was designed for {}; it runs here on {}", file, schedule.topology, topology.name));
  if (!schedule.cpus.empty()) {
    std::vector<int> placed;
    for (const sim::PlacedThread& p : sim::place_threads(topology, base.threads, base.placement)) placed.push_back(p.cpu);
    if (placed != schedule.cpus)
      out.notes.push_back(fmt::format("{} places its threads on CPUs {}; this run places them on {} (--placement {})", file,
                                      cpu_list(schedule.cpus), cpu_list(placed), sim::placement_name(base.placement)));
  }
  for (sim::ShuffleAlgorithm a : {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing, sim::ShuffleAlgorithm::kCoordinatedRandom,
                                  sim::ShuffleAlgorithm::kScheduled}) {
    sim::WorkloadSpec s = base;
    s.algorithm = a;
    s.producer_orders.clear();
    if (a == sim::ShuffleAlgorithm::kScheduled) {
      for (int t = 0; t < schedule.threads; ++t) s.producer_orders.push_back(schedule.schedule.order(t));
    }
    out.specs.push_back(std::move(s));
  }
  return out;
}

}  // namespace numatwin::cli
