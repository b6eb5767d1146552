#include "commands/validate_suite_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include "run/allocator_exec.hpp"
#include "run/interrupt.hpp"
#include "numatwin/model/file_io.hpp"
#include "numatwin/model/operator_costs.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/alloc/allocator_bench.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"
#include "numatwin/validate/host/cpu_contention.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/host/huge_pages_state.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/measure/machine_measurement.hpp"
#include "numatwin/validate/run/run_comparison.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/suite/saved_measurements.hpp"
#include "numatwin/validate/suite/switch_advice.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "numatwin/validate/suite/validation_report.hpp"
#include "numatwin/validate/suite/validation_suite.hpp"
#include "run/operator_cost_refresh.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/run_flags.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

// Discovers, measures and calibrates this machine (for a suite run without --topology).
model::Topology calibrate_this_machine(const std::string& save_as, const ProgressBar& bar, const std::atomic<bool>* stop) {
  const validate::DiscoveredMachine machine = validate::discover_machine();
  const validate::TopologySkeleton skeleton = validate::make_topology_skeleton(machine, "this-machine");
  validate::MeasureOptions measure;
  measure.likwid = false;
  measure.stop = stop;
  measure.progress = [&bar](const validate::MeasureProgress& p) { bar.update(p.done, p.total, p.eta_s, "measure: " + p.label); };
  const Json measurements = validate::measure_machine(measure);
  bar.finish();
  if (!measurements["complete"].get<bool>()) throw std::runtime_error("interrupted while measuring the machine");
  const validate::CalibrationData data =
      validate::calibration_data_from_measurements(measurements, skeleton.topology, "(measurements of this run)");
  const validate::CalibrationResult result = validate::calibrate(skeleton.topology, data);
  std::cerr << fmt::format("calibrated this machine: rms error {:.2f} % over {} points; topology written to {}\n",
                           100.0 * result.rms_relative_error, result.residuals.size(), save_as);
  model::save_topology(result.topology, save_as);
  return result.topology;
}

std::string with_extension(const std::string& path, const std::string& extension) {
  return std::filesystem::path(path).replace_extension(extension).string();
}

struct SuiteCommandOptions {
  std::string topology;
  std::string out = "validation-report.json";
  std::string csv;
  RunFlags flags;
  bool quick = false;
  int max_threads = 0;
  double scale = 1.0;
  bool no_fit = false;
  bool switches = false;
  bool switch_subset = false;  // internal: a child measuring one allocator
  std::string measurements;     // a saved report: predict and fit its runs again, run nothing
  std::string costs;            // a report with the cost microbenchmarks' timings: use them
};

// The fit's "before" costs on every spec of `suite`: the cost microbenchmarks' (their timings
// from the saved report, from --costs, or measured now), else (a saved report from before the
// microbenchmarks) OperatorCosts' defaults with the saved shared-line transfer. Fills the
// report's cost fields.
void set_before_costs(const model::Topology& t, const validate::HostMap& host, const SuiteCommandOptions& o,
                      const std::optional<validate::SavedMeasurements>& saved, const ProgressBar& bar,
                      const std::atomic<bool>* stop, std::vector<sim::WorkloadSpec>& suite, validate::ValidationReport& report) {
  std::optional<validate::CostTimings> timings;
  std::string how;
  if (!o.costs.empty()) {
    timings = validate::read_cost_timings(o.costs);
    how = "timings read from " + o.costs;
  } else if (saved && saved->cost_timings) {
    timings = saved->cost_timings;
    how = "timings read from the saved report " + saved->file;
  } else if (!saved) {
    validate::CostBenchmarkOptions options = validate::cost_benchmark_options(t, host.node_cpus.front(), o.quick);
    options.stop = stop;
    options.progress = [&bar](int done, int total, const std::string& label) {
      bar.update(done, total, 0.0, "cost microbenchmarks: " + label);
    };
    timings = validate::run_cost_microbenchmarks(options);
    bar.finish();
    if (stop != nullptr && stop->load()) throw std::runtime_error("interrupted while measuring the operator costs");
    how = fmt::format("measured now on CPU {}", timings->cpu);
  }
  if (timings) {
    const double f = validate::cost_frequency_ghz(t);
    report.derived_costs = validate::derive_operator_costs(*timings, f, validate::cost_miss_buffers(t));
    for (sim::WorkloadSpec& spec : suite) validate::apply_derived_costs(report.derived_costs, spec.costs, spec.cycles_per_element);
    report.operator_costs = validate::operator_costs_json(*timings, report.derived_costs, f,
                                                          fmt::format("frequency_ghz of {}'s first node with cores", t.name));
    (*report.operator_costs)["how"] = how;
    report.before_costs_source = fmt::format("the cost microbenchmarks ({}; cycles = ns x {} GHz)", how, f);
    const bool shared = timings->has("shared_line");
    report.measured_costs = Json{{"shared_line_transfer_ns", suite.front().costs.shared_line_transfer_ns},
                                 {"how", shared ? "the cost microbenchmarks' ping-pong (" + how + ")"
                                                : "not measured (one usable CPU): the model's default"}};
    return;
  }
  // A saved report from before the cost microbenchmarks.
  const std::string shared_how = saved->shared_line_transfer_ns ? "from the saved report " + saved->file : "the model's default";
  for (sim::WorkloadSpec& spec : suite)
    if (saved->shared_line_transfer_ns) spec.costs.shared_line_transfer_ns = *saved->shared_line_transfer_ns;
  report.measured_costs = Json{{"shared_line_transfer_ns", suite.front().costs.shared_line_transfer_ns}, {"how", shared_how}};
  report.before_costs_source = "OperatorCosts' defaults (sim/include/numatwin/sim/workload/workload_spec.hpp; calibrated nowhere) with the "
                               "shared-line transfer " + shared_how + ": the saved report has no cost microbenchmarks";
}

std::string cost_moves_text(const validate::ValidationReport& report) {
  TextTable table({"cost", "before fit", "measured range", "after fit", "after / before"});
  for (const validate::CostMove& m : validate::cost_moves(report)) {
    table.add_row({m.name, fmt::format("{:.4g}", m.before), m.measured ? fmt::format("{:.3g} .. {:.3g}", m.low, m.high) : "-",
                   fmt::format("{:.4g}", m.after), fmt::format("{:.2f}", m.factor())});
  }
  return "costs before the fit: " + report.before_costs_source + "\n" + table.render();
}

// Allocators (children, one per installed allocator) and huge pages (here) on the switch subset.
Json measure_switches(const model::Topology& t, const validate::HostMap& host,
                      const std::string& topology_file, const validate::SuiteOptions& suite_options,
                      const validate::RunOptions& run_options, const validate::ValidationReport& report, const ProgressBar& bar) {
  const std::vector<sim::WorkloadSpec> subset =
      validate::switch_subset(validate::standard_suite(t, suite_options), suite_options.threads);
  std::vector<validate::SwitchRun> runs;
  std::map<std::string, std::string> not_measured;
  const std::string allocator_here = validate::active_allocator();
  auto base_of = [&](const std::string& id) -> const validate::KernelComparison* {
    for (const validate::KernelComparison& k : report.kernels)
      if (k.id == id) return &k;
    return nullptr;
  };
  int done = 0;
  const int total = static_cast<int>(subset.size() * 2 + validate::known_allocators().size());
  for (const sim::WorkloadSpec& spec : subset) {
    const std::string id = validate::comparison_id(t, spec);
    const validate::KernelComparison* base = base_of(id);
    if (base == nullptr) continue;
    const std::string workload = sim::workload_kind_name(spec.kind);
    runs.push_back({id, workload, "allocator", allocator_here, base->measured.seconds, base->measured.repetition_seconds});
    runs.push_back({id, workload, "huge_pages", run_options.huge_pages ? "on" : "off", base->measured.seconds,
                    base->measured.repetition_seconds});
    validate::RunOptions other = run_options;
    other.huge_pages = !run_options.huge_pages;
    other.huge_pages_setting = other.huge_pages ? model::HugePages::kOn : model::HugePages::kOff;
    bar.update(done++, total, 0.0, id + (other.huge_pages ? " with huge pages" : " without huge pages"));
    const validate::RealRun run = validate::run_workload(t, host, spec, other);
    runs.push_back({id, workload, "huge_pages", other.huge_pages ? "on" : "off", run.seconds, run.repetition_seconds});
  }
  const Json system = validate::host_state();
  if (system.value("thp_enabled", std::string()) == "never")
    not_measured["huge_pages"] = "transparent huge pages are disabled system-wide (never): madvise has no effect";
  not_measured["numa_balancing"] =
      host.memory_os_nodes.size() < 2
          ? "one NUMA node: automatic NUMA balancing has nothing to migrate"
          : "not switched: a system-wide setting (/proc/sys/kernel/numa_balancing); compare suite runs with it on and off";
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("numatwin-switches-{}", ::getpid());
  std::filesystem::create_directories(dir);
  for (const validate::AllocatorInfo& a : validate::known_allocators()) {
    bar.update(done++, total, 0.0, "allocator " + a.name);
    if (a.name == allocator_here) continue;
    if (validate::built_with_address_sanitizer()) {
      not_measured["allocator " + a.name] = "this numatwin is an AddressSanitizer build (its own malloc); use a release build";
      continue;
    }
    if (!validate::find_allocator_library(a)) {
      not_measured["allocator " + a.name] = a.library + " is not installed (Debian package " + a.package + ")";
      continue;
    }
    const std::string file = (dir / (a.name + ".json")).string();
    std::vector<std::string> args = {own_arguments().front(), "validate", "suite", "--topology", topology_file, "--switch-subset",
                                     "--allocator", a.name, "--out", file, "--no-fit",
                                     "--repetitions", std::to_string(run_options.repetitions),
                                     "--memory-fraction", fmt::format("{}", run_options.memory_fraction),
                                     "--scale", fmt::format("{}", suite_options.scale), "--max-threads",
                                     std::to_string(suite_options.threads)};
    args.emplace_back("--huge-pages");
    args.emplace_back(run_options.huge_pages ? "on" : "off");
    const int status = run_in_child(a.name, args);
    if (status != 0) {
      not_measured["allocator " + a.name] = "its run failed (exit status " + std::to_string(status) + ")";
      continue;
    }
    std::ifstream in(file);
    const Json child = Json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    for (const Json& k : child["kernels"]) {
      if (!k["details"]["verified"].get<bool>()) {
        not_measured["allocator " + a.name] = "kernel " + k["id"].get<std::string>() + " did not verify under it";
        continue;
      }
      runs.push_back({k["id"].get<std::string>(), k["workload"].get<std::string>(), "allocator", a.name,
                      k["details"]["measured_s"].get<double>(), k["details"]["repetition_s"].get<std::vector<double>>()});
    }
  }
  std::filesystem::remove_all(dir);
  bar.update(total, total, 0.0, "switches done");
  bar.finish();
  return validate::switches_json(runs, system, not_measured);
}

void register_suite(CLI::App& validate_app) {
  using Options = SuiteCommandOptions;
  auto o = std::make_shared<Options>();
  CLI::App* cmd = validate_app.add_subcommand(
      "suite", "Run the standard suite for real and in the model, fit the kernel costs, write a report the GUI opens");
  cmd->add_option("--topology", o->topology,
                  "Calibrated topology of this machine (default: discover, measure and calibrate it first, ~40 s)");
  cmd->add_option("--out", o->out, "Report (JSON, the GUI's validation report), written atomically")->capture_default_str();
  cmd->add_option("--csv", o->csv, "CSV report (default: the --out path with .csv)");
  o->flags.add(cmd);
  cmd->add_flag("--quick", o->quick, "Sizes / 16 and one repetition: checks the mechanics in seconds");
  cmd->add_option("--max-threads", o->max_threads, "Largest thread count (default: the usable CPUs of the first node)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--scale", o->scale, "Multiply every size")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_flag("--no-fit", o->no_fit, "Do not fit the kernel costs");
  cmd->add_flag("--switches", o->switches,
                "Also measure allocators (every installed one, each in its own process) and transparent huge pages "
                "on COUNT, MEDIAN and hash join: what `advise --validation-report` recommends from");
  cmd->add_flag("--switch-subset", o->switch_subset, "(internal) run only the switch subset")->group("");
  cmd->add_option("--measurements", o->measurements,
                  "Run no kernel: take the measured runs of this saved report (matched by kernel id), predict and fit "
                  "them again, e.g. after a model change (needs --topology: the topology they were measured on)");
  cmd->add_option("--costs", o->costs,
                  "Take the cost microbenchmarks' timings from this report (validate measure or suite) instead of "
                  "measuring them (default: measure, ~5 s; with --measurements: the saved report's, if it has them)");
  cmd->callback([o] {
    if (!o->measurements.empty()) {
      if (o->topology.empty())
        throw std::invalid_argument("--measurements needs --topology: the calibrated topology the saved runs were measured on");
      if (o->switches || o->switch_subset) throw std::invalid_argument("--measurements refits saved runs: --switches measures, it cannot be combined");
    }
    ensure_allocator(o->flags.allocator);
    const InterruptScope interrupt;
    const ProgressBar bar(o->switch_subset);  // a child of --switches reports through its file only
    const model::Topology t = o->topology.empty()
                                  ? calibrate_this_machine(with_extension(o->out, ".topology.json"), bar, interrupt.flag())
                                  : model::find_topology(o->topology);
    const validate::HostMap host = validate::map_this_host(t);
    validate::SuiteOptions suite_options;
    suite_options.threads = o->max_threads > 0 ? o->max_threads : std::max<int>(1, static_cast<int>(host.node_cpus.front().size()));
    suite_options.scale = o->scale * (o->quick ? 1.0 / 16.0 : 1.0);
    validate::RunOptions run_options = o->flags.options(interrupt.flag());
    if (o->quick) run_options.repetitions = 1;
    const std::string topology_file = o->topology.empty() ? with_extension(o->out, ".topology.json") : o->topology;
    std::vector<sim::WorkloadSpec> suite = validate::standard_suite(t, suite_options);
    if (o->switch_subset) suite = validate::switch_subset(suite, suite_options.threads);
    std::optional<validate::SavedMeasurements> saved;
    if (!o->measurements.empty()) saved = validate::read_saved_measurements(o->measurements);
    validate::ValidationReport report;
    report.machine = t.name;
    report.host = host_text();
    if (!o->switch_subset) set_before_costs(t, host, *o, saved, bar, interrupt.flag(), suite, report);
    // The calibrated topology this command wrote gets the measured costs (origin "measured"), so
    // that predictions on it, and `topo transfer-costs --from` it, rest on them.
    if (o->topology.empty() && !saved && !report.derived_costs.empty()) {
      model::save_topology(
          with_measured_operator_costs(t, report.derived_costs, "numatwin validate suite's cost microbenchmarks on " + host_text()),
          topology_file);
    }
    // Every run's memory first: a suite that cannot finish says so before the first run.
    if (!saved)
      for (const sim::WorkloadSpec& spec : suite) validate::check_free_memory(validate::workload_memory_bytes(spec), run_options);

    const double start = validate::now_seconds();
    // Other work on the machine while the kernels run (validate/cpu_contention.hpp): said with the
    // errors, since it lengthens the measured times and not the predicted ones.
    const std::optional<validate::CpuSample> cpu_at_start = saved ? std::nullopt : validate::sample_cpu();
    for (std::size_t i = 0; i < suite.size(); ++i) {
      if (interrupt.requested()) break;
      const std::string id = validate::comparison_id(t, suite[i]);
      const double elapsed = validate::now_seconds() - start;
      bar.update(static_cast<int>(i), static_cast<int>(suite.size()), i == 0 ? 0.0 : elapsed / static_cast<double>(i) * static_cast<double>(suite.size() - i), id);
      if (saved) {
        const auto found = saved->runs.find(id);
        if (found == saved->runs.end()) {
          std::cerr << "not in " << saved->file << ", left out: " << id << "\n";
          continue;
        }
        validate::KernelComparison c;
        c.id = id;
        c.spec = suite[i];
        c.predicted = validate::predict_workload(t, suite[i]);
        c.allocator = found->second.allocator;
        c.measured = found->second.measured;
        report.kernels.push_back(std::move(c));
        continue;
      }
      report.kernels.push_back(validate::compare_workload(t, host, suite[i], run_options));
      write_report(t, report, o->out, "");  // a checkpoint after every kernel
    }
    const std::optional<validate::CpuSample> cpu_at_end = cpu_at_start ? validate::sample_cpu() : std::nullopt;
    bar.update(static_cast<int>(report.kernels.size()), static_cast<int>(suite.size()), 0.0, "done");
    bar.finish();
    if (o->switches && !o->switch_subset && !interrupt.requested())
      report.switches = measure_switches(t, host, topology_file, suite_options, run_options, report, bar);
    if (!o->no_fit && !o->switch_subset && !report.kernels.empty()) {
      bar.update(0, 1, 0.0, "fitting the kernel costs (and 4-fold cross-validation)");
      // The calibrated costs are fitted on every run; cross-validation says how well they predict.
      // The fit and the folds are independent: they run at once. --quick checks the mechanics
      // with one restart instead of kCostFitRestarts.
      const int restarts = o->quick ? 1 : validate::kCostFitRestarts;
      std::future<std::vector<double>> folds;
      if (report.kernels.size() >= 4)
        folds = std::async(std::launch::async, [&] {
          return validate::cross_validated_errors(t, report.kernels, 4, validate::predict_workload, restarts);
        });
      report.cost_fit = validate::fit_kernel_costs(t, report.kernels, std::vector<bool>(report.kernels.size(), true),
                                                   validate::predict_workload, restarts);
      if (folds.valid()) report.cross_validated = folds.get();
      bar.finish();
    }
    const std::string csv = o->csv.empty() ? with_extension(o->out, ".csv") : o->csv;
    write_report(t, report, o->out, csv);
    if (o->switch_subset) return;

    TextTable table({"kernel", "measured s", "predicted s", "error %", "after fit %", "cross-validated %", "verified"});
    for (std::size_t i = 0; i < report.kernels.size(); ++i) {
      const validate::KernelComparison& c = report.kernels[i];
      table.add_row({c.id, fmt::format("{:.4g}", c.measured.seconds), fmt::format("{:.4g}", c.predicted.seconds),
                     fmt::format("{:+.1f}", 100.0 * c.error()),
                     report.cost_fit ? fmt::format("{:+.1f}", 100.0 * report.cost_fit->errors_after[i]) : "-",
                     i < report.cross_validated.size() ? fmt::format("{:+.1f}", 100.0 * report.cross_validated[i]) : "-",
                     c.measured.verified ? "yes" : "NO"});
    }
    std::cout << table.render();
    const Json summary = validate::to_json(t, report)["summary"];
    std::cout << fmt::format("median |error|: {:.1f} % before the cost fit", 100.0 * summary["median_abs_error"].get<double>());
    if (report.cost_fit) std::cout << fmt::format(", {:.1f} % after it", 100.0 * summary["median_abs_error_after_fit"].get<double>());
    if (summary.contains("median_abs_error_cross_validated"))
      std::cout << fmt::format(", {:.1f} % cross-validated (each run predicted by costs fitted without it)",
                               100.0 * summary["median_abs_error_cross_validated"].get<double>());
    std::cout << "\n";
    if (cpu_at_start && cpu_at_end) {
      const double other = validate::other_work_share(*cpu_at_start, *cpu_at_end);
      std::cout << fmt::format("other work on this machine while the kernels ran: {:.0f} % of its {} CPUs (/proc/stat)", 100.0 * other,
                               cpu_at_end->cpus);
      if (other > 0.1)
        std::cout << ": the measured times include waiting for the CPUs, so the errors above say more about the load than "
                     "about the model; run the suite again on a quiet machine";
      std::cout << "\n";
    }
    if (report.cost_fit) std::cout << cost_moves_text(report);
    std::cout << "report: " << o->out << ", " << csv << "\n";
    if (interrupt.requested()) throw std::runtime_error("suite interrupted; the finished kernels are in " + o->out);
    for (const validate::KernelComparison& c : report.kernels)
      if (!c.measured.verified) throw std::runtime_error("kernel " + c.id + " did not verify");
  });
}

}  // namespace

void register_validate_suite(CLI::App& validate_app) { register_suite(validate_app); }

}  // namespace numatwin::cli
