#include "commands/validate_run_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands/allocbench_command.hpp"
#include "run/allocator_exec.hpp"
#include "run/interrupt.hpp"
#include "numatwin/model/tlb.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/validate/measure/core_to_core.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/host/huge_pages_state.hpp"
#include "numatwin/validate/run/run_comparison.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "numatwin/validate/suite/validation_report.hpp"
#include "run/operator_cost_refresh.hpp"
#include "options/run_flags.hpp"
#include "report/schedule_comparison.hpp"
#include "run/sim_outcome.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "commands/validate_suite_command.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {
namespace {

std::string placement_text(const validate::RealRun& run) {
  std::string cpus;
  for (const validate::ThreadObservation& t : run.threads)
    cpus += fmt::format("{}{}", cpus.empty() ? "" : ",", t.cpu_at_end);
  return "threads ran on CPUs " + cpus;
}

// "numa balancing 1: 120 hint faults (40 local), 80 pages migrated, 4096 PTEs marked" or why not.
std::string numa_balancing_text(const validate::RealRun& m) {
  std::string setting = m.numa_balancing == "0" ? "off (0)" : m.numa_balancing.size() == 1 ? "on (" + m.numa_balancing + ")" : m.numa_balancing;
  if (!m.numa_counters) return "automatic NUMA balancing " + setting + "; its counters not measured: " + m.numa_counters_why;
  const validate::NumaBalancingCounters& n = *m.numa_counters;
  return fmt::format("automatic NUMA balancing {}: during the run {} PTEs marked, {} hint faults ({} local), {} pages migrated",
                     setting, n.pte_updates, n.hint_faults, n.hint_faults_local, n.pages_migrated);
}

void print_comparison(const validate::KernelComparison& c) {
  const validate::RealRun& m = c.measured;
  std::cout << fmt::format("{} ({} allocator{})\n", c.id, c.allocator, m.huge_pages ? ", huge pages" : "");
  TextTable table({"", "seconds", "GB/s of work", m.work_unit == "tuples" ? "M tuples/s" : "GB/s"});
  const double unit = m.work_unit == "tuples" ? 1e6 : 1e9;
  table.add_row({"measured", fmt::format("{:.4g}", m.seconds), fmt::format("{:.3f}", c.measured_gbps()),
                 fmt::format("{:.2f}", m.work / m.seconds / unit)});
  table.add_row({"predicted", fmt::format("{:.4g}", c.predicted.seconds), fmt::format("{:.3f}", c.predicted_gbps()),
                 fmt::format("{:.2f}", m.work / c.predicted.seconds / unit)});
  std::cout << table.render();
  std::cout << fmt::format("  error (predicted - measured) / measured: {:+.1f} %\n", 100.0 * c.error());
  std::cout << fmt::format("  model bottleneck: {}; local access ratio {:.3f}\n", c.predicted.bottleneck, c.predicted.local_access_ratio);
  std::string reps;
  for (double s : m.repetition_seconds) reps += fmt::format("{}{:.4g}", reps.empty() ? "" : ", ", s);
  std::cout << "  repetitions (s): " << reps << " (median reported)\n";
  for (const validate::PhaseTime& p : m.phases) std::cout << fmt::format("  phase {}: {:.4g} s\n", p.name, p.seconds);
  for (const validate::PredictedPhase& p : c.predicted.phases)
    std::cout << fmt::format("  predicted phase {}: {:.4g} s (wall)\n", p.name, p.wall_s);
  std::cout << "  " << placement_text(m) << "\n";
  for (const validate::DatasetObservation& d : m.datasets)
    std::cout << fmt::format("  {}: {:.3g} MB, pages {}\n", d.name, d.bytes / 1e6, d.pages.text());
  std::cout << "  verified: " << (m.verified ? "yes, " : "NO, ") << m.verification << "\n";
  std::cout << "  " << numa_balancing_text(m) << "\n";
  if (!m.weighted_interleave.empty()) std::cout << "  weighted interleave: " << m.weighted_interleave << "\n";
}

// One row per order of a --schedule run: what was measured and predicted side by side.
void print_order_summary(const std::vector<validate::KernelComparison>& kernels) {
  TextTable table({"order", "measured GB/s", "predicted GB/s", "error", "verified"});
  for (const validate::KernelComparison& c : kernels) {
    const sim::ShuffleAlgorithm a = c.spec.algorithm;
    table.add_row({a == sim::ShuffleAlgorithm::kScheduled ? "schedule file" : sim::algorithm_name(a),
                   fmt::format("{:.3f}", c.measured_gbps()), fmt::format("{:.3f}", c.predicted_gbps()),
                   fmt::format("{:+.1f} %", 100.0 * c.error()), c.measured.verified ? "yes" : "NO"});
  }
  std::cout << "orders side by side (" << sim::sync_name(kernels.front().spec.sync) << "):\n" << table.render();
}

// The core-to-core handover latency between the first two usable CPUs of the first node, which
// the model's shared-table updates use (OperatorCosts::shared_line_transfer_ns); nullopt with a
// reason when the node has fewer than two CPUs.
std::optional<double> measure_shared_line_ns(const validate::HostMap& host, std::string& how) {
  for (std::size_t n = 0; n < host.node_cpus.size(); ++n) {
    const std::vector<int>& cpus = host.node_cpus[n];
    if (cpus.size() < 2) continue;
    const double ns = validate::core_to_core_latency_ns(cpus[0], cpus[1]);
    // No cache-line handover takes microseconds: the two threads did not run at the same time.
    if (ns > 2000.0) {
      how = fmt::format("not measured: the ping-pong between CPUs {} and {} took {:.0f} ns per handover, so the two threads "
                        "were not running at once (a busy machine); the model's default is kept",
                        cpus[0], cpus[1], ns);
      return std::nullopt;
    }
    how = fmt::format("measured: core-to-core ping-pong between CPUs {} and {}, fastest of 21 x 2000 round trips", cpus[0], cpus[1]);
    return ns;
  }
  how = "not measured: no node has two usable CPUs; the model's default is kept";
  return std::nullopt;
}


void register_run(CLI::App& validate_app) {
  struct Options {
    WorkloadOptions workload;
    RunFlags flags;
    bool json = false;
    std::string out;
    std::string csv;
    std::string schedule;
  };
  auto o = std::make_shared<Options>();
  o->workload.bytes = 1.0 * 1024 * 1024 * 1024;
  o->workload.records = 2e7;
  o->workload.build_records = 2e6;
  o->workload.groups = 1e5;
  CLI::App* cmd = validate_app.add_subcommand(
      "run", "Run one workload for real (pinned threads, placed pages) and simulate it: measured vs predicted");
  o->workload.add_common(cmd);
  o->workload.add_algorithm(cmd);
  cmd->add_option("--threads", o->workload.threads, "Threads (default: one per core of the topology)")->check(CLI::Range(1, 1 << 20));
  o->flags.add(cmd);
  cmd->add_flag("--json", o->json, "Print the comparison as JSON");
  cmd->add_option("--out", o->out, "Write a validation report (the GUI's format) here, atomically");
  cmd->add_option("--csv", o->csv, "Write the comparison as CSV here, atomically");
  cmd->add_option("--schedule", o->schedule,
                  "Shuffle, migration or migration-copy: measure this schedule file's order (numatwin schedule --out) next to naive, ring and random");
  // Given on the command line: kept; otherwise measured on this machine.
  CLI::Option* shared_line_option = cmd->get_option("--shared-line-transfer-ns");
  CLI::Option* threads_option = cmd->get_option("--threads");
  cmd->callback([o, shared_line_option, threads_option] {
    const bool shared_line_given = shared_line_option->count() > 0;
    ensure_allocator(o->flags.allocator);
    const model::Topology t = model::find_topology(o->workload.topology);
    o->workload.allocator = o->flags.allocator;  // the prediction uses the costs of the allocator that runs
    // The pages the run gets, as the system's transparent huge pages make them (huge_pages_state.hpp).
    const validate::TransparentHugePages thp = validate::read_transparent_huge_pages();
    const model::HugePages run_pages = validate::effective_huge_pages(*model::parse_huge_pages(o->flags.huge_pages), thp.enabled);
    o->workload.huge_pages = std::string(model::huge_pages_name(run_pages));
    std::cerr << fmt::format("numatwin: huge pages {} asked; transparent_hugepage enabled [{}], defrag [{}]{}; the prediction uses {}\n",
                             o->flags.huge_pages, thp.enabled.empty() ? "unknown" : thp.enabled,
                             thp.defrag.empty() ? "unknown" : thp.defrag, thp.why.empty() ? "" : " (" + thp.why + ")",
                             pages_text(t, run_pages));
    sim::WorkloadSpec spec = o->workload.spec(t, o->workload.threads);
    if (o->flags.weighted_interleave_by == "kernel" && spec.memory.kind != sim::MemoryPolicyKind::kWeightedInterleave) {
      throw std::invalid_argument("--weighted-interleave-by kernel needs --memory-policy weighted-interleave:NODE=W,... (the "
                                  "run's policy is " + sim::memory_policy_name(spec.memory, t) + ")");
    }
    const validate::HostMap host = validate::map_this_host(t);
    if (!shared_line_given) {
      std::string how;
      if (const std::optional<double> ns = measure_shared_line_ns(host, how)) spec.costs.shared_line_transfer_ns = *ns;
      std::cerr << fmt::format("numatwin: shared-line transfer {:.1f} ns ({})\n", spec.costs.shared_line_transfer_ns, how);
    }
    if (const std::string basis = sim::allocator_cost_basis(spec, t); !basis.empty()) std::cerr << "numatwin: " << basis << "\n";
    const InterruptScope interrupt;
    validate::ValidationReport report;
    report.machine = t.name;
    report.host = host_text();
    const std::vector<std::string> placeholders = validate::placeholders_of(t);
    if (!placeholders.empty())
      std::cerr << fmt::format("numatwin: note: {} of {}'s parameters are placeholders, not measured ({}{})\n", placeholders.size(),
                               t.name, placeholders.front(), placeholders.size() > 1 ? ", ..." : "");
    std::vector<sim::WorkloadSpec> specs{spec};
    if (!o->schedule.empty()) {
      ScheduleComparison side_by_side = schedule_comparison(t, spec, o->schedule, threads_option->count() > 0);
      for (const std::string& note : side_by_side.notes) std::cerr << "numatwin: note: " << note << "\n";
      specs = std::move(side_by_side.specs);
    }
    for (const sim::WorkloadSpec& s : specs)
      report.kernels.push_back(validate::compare_workload(t, host, s, o->flags.options(interrupt.flag())));
    write_report(t, report, o->out, o->csv);
    if (o->json) {
      std::cout << validate::to_json(t, report).dump(2) << "\n";
    } else {
      for (const validate::KernelComparison& c : report.kernels) print_comparison(c);
      if (report.kernels.size() > 1) print_order_summary(report.kernels);
    }
    for (const validate::KernelComparison& c : report.kernels)
      if (!c.measured.verified) throw std::runtime_error(c.id + ": the kernel's result did not verify");
  });
}

}  // namespace

void register_validate_run_commands(CLI::App& validate_app) {
  register_run(validate_app);
  register_validate_suite(validate_app);
  register_allocbench(validate_app);
}

}  // namespace numatwin::cli
