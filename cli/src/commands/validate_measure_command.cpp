#include "commands/validate_measure_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <iostream>
#include <memory>
#include <optional>
#include <unistd.h>

#include "numatwin/model/file_io.hpp"
#include "numatwin/validate/measure/cost_microbenchmarks.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/measure/machine_measurement.hpp"
#include "numatwin/validate/discover/report_json.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "run/interrupt.hpp"
#include "run/operator_cost_refresh.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "run/tlb_measure.hpp"

namespace numatwin::cli {
namespace {

using validate::Json;

std::string measure_text(const Json& report) {
  std::string out = fmt::format("host: {} ({}), {}\nTHP {}, numa_balancing {}\n", report["host"].value("hostname", "?"),
                                report["host"].value("machine", "?"), report["host"].value("kernel", "?"),
                                report["host"].value("thp_enabled", "?"), report["host"].value("numa_balancing", "?"));
  TextTable bw({"kernel", "cpu node", "memory node", "threads", "GB/s", "pages on memory node", "cpus observed"});
  for (const Json& p : report["bandwidth"]) {
    std::string cpus;
    for (const Json& t : p["threads_observed"]) cpus += (cpus.empty() ? "" : ",") + std::to_string(t["cpu_end"].get<int>());
    bw.add_row({p["kernel"].get<std::string>(), std::to_string(p["cpu_node"].get<int>()), std::to_string(p["memory_node"].get<int>()),
                std::to_string(p["threads"].get<int>()), fmt::format("{:.2f}", p["bandwidth_gbps"].get<double>()),
                fmt::format("{:.1f} %", 100.0 * p["pages"]["fraction_on_memory_node"].get<double>()), cpus});
  }
  out += "\nbandwidth:\n" + bw.render();
  TextTable lat({"cpu node", "memory node", "latency ns", "buffer", "buffer/LLC", "pages on memory node"});
  for (const Json& p : report["idle_latency"]) {
    lat.add_row({std::to_string(p["cpu_node"].get<int>()), std::to_string(p["memory_node"].get<int>()),
                 fmt::format("{:.1f}", p["latency_ns"].get<double>()),
                 rounded_bytes_text(p["buffer_bytes"].get<std::int64_t>()), fmt::format("{:.1f}", p["buffer_to_llc_ratio"].get<double>()),
                 fmt::format("{:.1f} %", 100.0 * p["pages"]["fraction_on_memory_node"].get<double>())});
  }
  out += "\nidle latency (dependent pointer chase):\n" + lat.render();
  if (!report["loaded_latency"].empty()) {
    TextTable loaded({"cpu node", "memory node", "inject delay", "latency ns", "load threads", "load GB/s"});
    for (const Json& p : report["loaded_latency"]) {
      loaded.add_row({std::to_string(p["cpu_node"].get<int>()), std::to_string(p["memory_node"].get<int>()),
                      std::to_string(p["inject_delay"].get<int>()), fmt::format("{:.1f}", p["latency_ns"].get<double>()),
                      std::to_string(p["load_threads"].get<int>()), fmt::format("{:.2f}", p["load_bandwidth_gbps"].get<double>())});
    }
    out += "\nloaded latency (one chaser, the other CPUs reading):\n" + loaded.render();
  }
  out += "\nlikwid counters: " + report["likwid"]["counters"].get<std::string>() + "\n";
  const Json& bench = report["likwid"]["bench"];
  if (bench.is_string()) {
    out += "likwid-bench: " + bench.get<std::string>() + "\n";
  } else {
    for (const Json& row : bench) {
      out += fmt::format("likwid-bench load {} {} threads: {} GB/s; numatwin read: {:.2f} GB/s\n", row["memory_domain"].get<std::string>(),
                         row["threads"].get<int>(),
                         row["likwid_bench_load_gbps"].is_null() ? std::string("failed")
                                                                 : fmt::format("{:.2f}", row["likwid_bench_load_gbps"].get<double>()),
                         row["numatwin_read_gbps"].get<double>());
      if (row.contains("error")) out += "  " + row["error"].get<std::string>() + "\n";
    }
  }
  for (const Json& note : report["notes"]) out += "note: " + note.get<std::string>() + "\n";
  return out;
}

// The cost microbenchmarks on this machine (discovered: its first node's caches, CPUs and
// frequency), as the report section "operator_costs"; nullopt when interrupted.
std::optional<Json> measure_operator_costs(bool quick, const std::atomic<bool>* stop, const ProgressBar& bar) {
  const validate::DiscoveredMachine machine = validate::discover_machine();
  const validate::TopologySkeleton skeleton = validate::make_topology_skeleton(machine, "this-machine");
  const validate::HostMap host = validate::map_this_host(skeleton.topology);
  validate::CostBenchmarkOptions options = validate::cost_benchmark_options(skeleton.topology, host.node_cpus.front(), quick);
  options.stop = stop;
  options.progress = [&bar](int done, int total, const std::string& label) { bar.update(done, total, 0.0, "operator costs: " + label); };
  const validate::CostTimings timings = validate::run_cost_microbenchmarks(options);
  bar.finish();
  if (stop != nullptr && stop->load()) return std::nullopt;
  const double f = validate::cost_frequency_ghz(skeleton.topology);
  const std::string source = machine.frequency_ghz ? "discovered (the CPU model string or /proc/cpuinfo)"
                                                   : "a placeholder: the frequency was not discovered; the cycle counts are not meaningful";
  // No stream shares here: they are shares of the core's miss buffers, which the calibration
  // fits later (validate suite derives them from these timings with the calibrated figure).
  return validate::operator_costs_json(timings, validate::derive_operator_costs(timings, f), f, source);
}

std::string operator_costs_text(const Json& section) {
  std::string out = fmt::format("\noperator costs (cost microbenchmarks on CPU {}, load average {}; cycles = ns x {:.3g} GHz, {}; cycle counter: {}):\n",
                                section["cpu"].get<int>(), section.value("load_average", std::string("unknown")),
                                section["frequency_ghz"].get<double>(), section["frequency_source"].get<std::string>(),
                                section["cycle_counter"].get<std::string>());
  TextTable timings({"timing", "ns per unit", "range", "unit", "loop"});
  for (const Json& t : section["timings"])
    timings.add_row({t["name"].get<std::string>(), fmt::format("{:.3g}", t["median_ns"].get<double>()),
                     fmt::format("{:.3g} .. {:.3g}", t["low_ns"].get<double>(), t["high_ns"].get<double>()), t["unit"].get<std::string>(),
                     t["loop"].get<std::string>()});
  out += timings.render();
  TextTable costs({"cost", "value", "range", "unit", "derivation"});
  for (const Json& c : section["costs"])
    costs.add_row({c["name"].get<std::string>(), fmt::format("{:.3g}", c["value"].get<double>()),
                   fmt::format("{:.3g} .. {:.3g}", c["low"].get<double>(), c["high"].get<double>()), c["unit"].get<std::string>(),
                   c["derivation"].get<std::string>()});
  out += "\n" + costs.render();
  for (const Json& note : section["notes"]) out += "note: " + note.get<std::string>() + "\n";
  return out;
}

void register_measure(CLI::App& validate_app) {
  struct Options {
    std::string out = "numatwin-measurements.json";
    bool quick = false;
    bool costs_only = false;
    bool tlb_only = false;
    std::string topology;
    std::string out_topology;
    bool json = false;
    bool no_likwid = false;
    double seconds = 0.0;
    double memory_fraction = 0.2;
  };
  auto o = std::make_shared<Options>();
  CLI::App* measure = validate_app.add_subcommand(
      "measure", "Measure this machine like Intel mlc: bandwidth vs threads, idle and loaded latency per node pair");
  measure->add_option("--out", o->out, "Report file (JSON, written atomically after every point)")->capture_default_str();
  measure->add_flag("--quick", o->quick, "Small buffers and short points: checks the mechanics in seconds");
  measure->add_flag("--json", o->json, "Print the report as JSON instead of tables");
  measure->add_flag("--no-likwid", o->no_likwid, "Do not probe likwid-perfctr nor run likwid-bench");
  measure->add_flag("--costs-only", o->costs_only,
                    "Run only the operator cost microbenchmarks (seconds): the report's operator_costs section");
  measure->add_option("--topology", o->topology,
                      "With --costs-only and --out-topology: measure on this calibrated topology's caches and its first node's "
                      "CPUs and frequency (bundled name or file)");
  measure->add_option("--out-topology", o->out_topology,
                      "With --costs-only and --topology: write the topology again (atomically) with the operator costs measured "
                      "now in place of its own, e.g. just before a run on a machine whose neighbours move the LLC share it "
                      "leaves (the rest of its calibration kept)");
  measure->add_flag("--tlb-only", o->tlb_only,
                    "Run only the TLB microbenchmark (seconds): dependent random loads on 4 KiB and on 2 MiB pages, the "
                    "page walk's cost derived (the report's tlb section)");
  measure->add_option("--seconds-per-point", o->seconds, "Duration of one point (default 1, 0.05 with --quick)")
      ->check(CLI::Range(0.001, 60.0));
  measure->add_option("--memory-fraction", o->memory_fraction, "Largest buffer as a fraction of a node's free memory")
      ->check(CLI::Range(0.001, 0.45))
      ->capture_default_str();
  measure->callback([o] {
    const InterruptScope interrupt;
    const ProgressBar bar;
    const std::string out = o->out;
    // Checked before any branch, so that no other mode ignores them.
    if ((!o->topology.empty() || !o->out_topology.empty()) && (!o->costs_only || o->tlb_only || o->topology.empty() || o->out_topology.empty()))
      throw std::invalid_argument(
          "--topology and --out-topology go together, and with --costs-only (not --tlb-only): the topology whose operator costs "
          "are measured again and the file to write it to");
    if (o->tlb_only) {
      const double start = validate::now_seconds();
      bar.update(0, 1, 0.0, "TLB: 4 KiB and 2 MiB pages");
      const std::optional<Json> tlb = measure_tlb(o->quick, interrupt.flag());
      bar.finish();
      if (!tlb) throw std::runtime_error("interrupted while measuring the TLB; nothing written");
      const Json report{{"format", "numatwin-measurements"},
                        {"host", validate::host_state()},
                        {"complete", true},
                        {"tlb_only", true},
                        {"elapsed_s", validate::now_seconds() - start},
                        {"tlb", *tlb}};
      model::write_file_atomically(out, report.dump(2) + "\n");
      std::cout << (o->json ? report.dump(2) + "\n" : tlb_text(*tlb));
      std::cerr << fmt::format("TLB measured in {:.1f} s; report written to {}\n", report["elapsed_s"].get<double>(), out);
      return;
    }
    if (!o->topology.empty() || !o->out_topology.empty()) {
      std::cout << refresh_operator_costs(o->topology, o->out_topology, o->quick, interrupt.flag(), bar);
      return;
    }
    if (o->costs_only) {
      const double start = validate::now_seconds();
      const std::optional<Json> costs = measure_operator_costs(o->quick, interrupt.flag(), bar);
      if (!costs) throw std::runtime_error("interrupted while measuring the operator costs; nothing written");
      const Json report{{"format", "numatwin-measurements"},
                        {"host", validate::host_state()},
                        {"complete", true},
                        {"costs_only", true},
                        {"elapsed_s", validate::now_seconds() - start},
                        {"operator_costs", *costs}};
      model::write_file_atomically(out, report.dump(2) + "\n");
      std::cout << (o->json ? report.dump(2) + "\n" : operator_costs_text(*costs));
      std::cerr << fmt::format("operator costs measured in {:.1f} s; report written to {}\n", report["elapsed_s"].get<double>(), out);
      return;
    }
    validate::MeasureOptions options;
    options.quick = o->quick;
    options.seconds_per_point = o->seconds;
    options.memory_fraction = o->memory_fraction;
    options.likwid = !o->no_likwid;
    options.stop = interrupt.flag();
    options.progress = [&bar](const validate::MeasureProgress& p) { bar.update(p.done, p.total, p.eta_s, p.label); };
    options.checkpoint = [out](const Json& report) { model::write_file_atomically(out, report.dump(2) + "\n"); };
    Json report = validate::measure_machine(options);
    if (report["complete"].get<bool>()) {
      const double costs_start = validate::now_seconds();
      std::optional<Json> costs;
      try {
        costs = measure_operator_costs(o->quick, interrupt.flag(), bar);
        if (!costs) {
          report["complete"] = false;
          report["interrupted"] = true;
        }
      } catch (const std::invalid_argument& e) {
        // A machine whose caches are not known (e.g. a guest without cache information): the
        // bandwidth and latency points stand; the costs are said to be not measured, and why.
        bar.finish();
        report["operator_costs_not_measured"] = e.what();
      }
      if (costs) {
        report["operator_costs"] = *costs;
        report["elapsed_s"] = report["elapsed_s"].get<double>() + (validate::now_seconds() - costs_start);
      }
      if (report["complete"].get<bool>()) {
        const double tlb_start = validate::now_seconds();
        if (const std::optional<Json> tlb = measure_tlb(o->quick, interrupt.flag())) {
          report["tlb"] = *tlb;
          report["elapsed_s"] = report["elapsed_s"].get<double>() + (validate::now_seconds() - tlb_start);
        }
      }
    }
    model::write_file_atomically(out, report.dump(2) + "\n");
    bar.finish();
    if (o->json) {
      std::cout << report.dump(2) << "\n";
    } else {
      std::cout << measure_text(report);
      if (report.contains("operator_costs")) std::cout << operator_costs_text(report["operator_costs"]);
      if (report.contains("tlb")) std::cout << tlb_text(report["tlb"]);
      if (report.contains("operator_costs_not_measured")) {
        std::cout << "\noperator costs: not measured: " << report["operator_costs_not_measured"].get<std::string>() << "\n";
      }
    }
    std::cerr << fmt::format("{} in {:.0f} s; report written to {}\n",
                             report["complete"].get<bool>() ? "measurement complete" : "interrupted: finished points kept",
                             report["elapsed_s"].get<double>(), out);
    if (!report["complete"].get<bool>()) throw std::runtime_error("measurement interrupted; the finished part is in " + out);
  });
}

}  // namespace

void register_validate_measure(CLI::App& validate_app) { register_measure(validate_app); }

}  // namespace numatwin::cli
