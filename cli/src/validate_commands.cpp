#include "validate_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>
#include <unistd.h>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/machine_discovery.hpp"
#include "numatwin/validate/machine_measurement.hpp"
#include "numatwin/validate/report_json.hpp"
#include "numatwin/validate/topology_skeleton.hpp"
#include "text_table.hpp"
#include "topology_lookup.hpp"

namespace numatwin::cli {
namespace {

using validate::Json;

std::string bytes_text(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024.0 * 1024.0) return fmt::format("{:.1f} GiB", b / (1024.0 * 1024.0 * 1024.0));
  if (b >= 1024.0 * 1024.0) return fmt::format("{:.1f} MiB", b / (1024.0 * 1024.0));
  if (b >= 1024.0) return fmt::format("{:.0f} KiB", b / 1024.0);
  return fmt::format("{} B", bytes);
}

std::string list_text(const std::vector<int>& values) {
  // 0-3,8,10-11
  std::string out;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(values[i]) + (j > i ? "-" + std::to_string(values[j]) : "");
    i = j + 1;
  }
  return out.empty() ? "-" : out;
}

std::string discovery_text(const validate::DiscoveredMachine& m, const validate::TopologySkeleton& s) {
  std::string out = "source: " + m.source + "\n";
  if (!m.description.empty()) out += "machine: " + m.description + "\n";
  out += fmt::format("hwloc API {}, {} package(s), {} NUMA node(s), frequency {}\n", m.hwloc_version, m.packages, m.nodes.size(),
                     m.frequency_ghz ? fmt::format("{:.2f} GHz", *m.frequency_ghz) : "unknown (placeholder)");
  TextTable nodes({"node", "cores", "threads", "cpus", "allowed cpus", "memory", "free", "mem allowed", "caches"});
  for (const validate::DiscoveredNode& n : m.nodes) {
    std::string caches;
    for (const model::CacheLevel& c : n.caches) {
      caches += fmt::format("{}L{} {}{}", caches.empty() ? "" : ", ", c.level, bytes_text(c.size_bytes),
                            c.shared_by_cores > 1 ? fmt::format("/{}c", c.shared_by_cores) : "");
    }
    nodes.add_row({std::to_string(n.os_index), std::to_string(n.cores), std::to_string(n.hardware_threads), list_text(n.cpus),
                   list_text(n.allowed_cpus), bytes_text(n.memory_bytes),
                   n.free_memory_bytes ? bytes_text(*n.free_memory_bytes) : "-", n.memory_allowed ? "yes" : "no", caches});
  }
  out += nodes.render();
  out += "offline cpus: " + list_text(m.offline_cpus) + "; cpus outside this process's cpuset: " +
         list_text(m.disallowed_cpus) + "; memory nodes outside it: " + list_text(m.disallowed_nodes) + "\n";
  if (!m.distances.empty()) {
    out += "\ndistances (" + m.distances_source + "):\n";
    std::vector<std::string> header{"from\\to"};
    for (const auto& n : m.nodes) header.push_back(std::to_string(n.os_index));
    TextTable table(header);
    for (std::size_t i = 0; i < m.distances.size(); ++i) {
      std::vector<std::string> row{std::to_string(m.nodes[i].os_index)};
      for (int d : m.distances[i]) row.push_back(std::to_string(d));
      table.add_row(row);
    }
    out += table.render();
  }
  out += "\nlinks: " + s.inference.explanation + "\n";
  if (s.fully_connected_fallback) out += "links: the skeleton falls back to a fully connected graph\n";
  std::string links;
  const auto& topo = s.topology;
  for (std::size_t l = 0; l < topo.links.size(); l += 2) {
    links += (links.empty() ? "" : " ") + topo.nodes[topo.links[l].from].id + "-" + topo.nodes[topo.links[l].to].id;
  }
  if (!links.empty()) out += "links: " + links + "\n";
  for (const std::string& note : m.notes) out += "note: " + note + "\n";
  out += "placeholders (not measured): ";
  for (std::size_t i = 0; i < s.placeholders.size(); ++i) out += (i == 0 ? "" : ", ") + s.placeholders[i];
  return out + "\n";
}

void print_discovery(const validate::DiscoveredMachine& machine, const std::string& name, bool json,
                     const std::string& out_path) {
  const validate::TopologySkeleton skeleton = validate::make_topology_skeleton(machine, name);
  if (!out_path.empty()) model::save_topology(skeleton.topology, out_path);
  if (json) {
    std::cout << validate::to_json(machine, skeleton).dump(2) << "\n";
  } else {
    std::cout << discovery_text(machine, skeleton);
    if (!out_path.empty()) std::cout << "wrote the topology skeleton to " << out_path << "\n";
  }
}

void register_discover(CLI::App& validate_app) {
  auto json = std::make_shared<bool>(false);
  auto out = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>("this-machine");
  CLI::App* discover = validate_app.add_subcommand(
      "discover", "Discover this machine (hwloc, libnuma): nodes, cores, caches, memory, SLIT, allowed CPUs");
  discover->add_flag("--json", *json, "Print JSON (machine, link inference, topology skeleton)");
  discover->add_option("--out", *out, "Write the topology skeleton (placeholders listed in its provenance)");
  discover->add_option("--name", *name, "Name of the skeleton topology")->capture_default_str();
  discover->callback([json, out, name] { print_discovery(validate::discover_machine(), *name, *json, *out); });

  auto xml = std::make_shared<std::string>();
  auto xml_json = std::make_shared<bool>(false);
  auto xml_out = std::make_shared<std::string>();
  auto xml_name = std::make_shared<std::string>();
  CLI::App* import_hwloc = validate_app.add_subcommand(
      "import-hwloc", "Read an hwloc XML export (lstopo --of xml): the same as discover, link graph from the SLIT");
  import_hwloc->add_option("file", *xml, "hwloc XML file")->required();
  import_hwloc->add_flag("--json", *xml_json, "Print JSON");
  import_hwloc->add_option("--out", *xml_out, "Write the topology skeleton");
  import_hwloc->add_option("--name", *xml_name, "Name of the skeleton topology (default: the file's stem)");
  import_hwloc->callback([xml, xml_json, xml_out, xml_name] {
    const std::string stem = xml_name->empty() ? std::filesystem::path(*xml).stem().string() : *xml_name;
    print_discovery(validate::import_hwloc_xml(*xml), stem, *xml_json, *xml_out);
  });
}

// Ctrl-C during `validate measure`: the handler may only touch a lock-free atomic, so this is
// the one piece of static state of the CLI; the measurement polls it between points. A second
// Ctrl-C kills the process (the handler restores the default action).
std::atomic<bool> interrupt_requested{false};

extern "C" void on_interrupt(int) {
  interrupt_requested.store(true);
  std::signal(SIGINT, SIG_DFL);
}

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
                 bytes_text(p["buffer_bytes"].get<std::int64_t>()), fmt::format("{:.1f}", p["buffer_to_llc_ratio"].get<double>()),
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

void register_measure(CLI::App& validate_app) {
  struct Options {
    std::string out = "numatwin-measurements.json";
    bool quick = false;
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
  measure->add_option("--seconds-per-point", o->seconds, "Duration of one point (default 1, 0.05 with --quick)")
      ->check(CLI::Range(0.001, 60.0));
  measure->add_option("--memory-fraction", o->memory_fraction, "Largest buffer as a fraction of a node's free memory")
      ->check(CLI::Range(0.001, 0.45))
      ->capture_default_str();
  measure->callback([o] {
    validate::MeasureOptions options;
    options.quick = o->quick;
    options.seconds_per_point = o->seconds;
    options.memory_fraction = o->memory_fraction;
    options.likwid = !o->no_likwid;
    interrupt_requested.store(false);
    options.stop = &interrupt_requested;
    const bool tty = isatty(2) != 0;
    options.progress = [tty](const validate::MeasureProgress& p) {
      const int width = 30;
      const int filled = p.total == 0 ? width : width * p.done / p.total;
      std::cerr << fmt::format("{}[{}{}] {:3d}/{} ETA {:4.0f} s  {}{}", tty ? "\r" : "", std::string(static_cast<std::size_t>(filled), '#'),
                               std::string(static_cast<std::size_t>(width - filled), '.'), p.done, p.total, std::ceil(p.eta_s),
                               p.label, tty ? "\x1b[K" : "\n")
                << std::flush;
    };
    const std::string out = o->out;
    options.checkpoint = [out](const Json& report) { model::write_file_atomically(out, report.dump(2) + "\n"); };
    const auto previous = std::signal(SIGINT, on_interrupt);
    Json report;
    try {
      report = validate::measure_machine(options);
    } catch (...) {
      std::signal(SIGINT, previous);
      throw;
    }
    std::signal(SIGINT, previous);
    model::write_file_atomically(out, report.dump(2) + "\n");
    if (tty) std::cerr << "\n";
    if (o->json) {
      std::cout << report.dump(2) << "\n";
    } else {
      std::cout << measure_text(report);
    }
    std::cerr << fmt::format("{} in {:.0f} s; report written to {}\n",
                             report["complete"].get<bool>() ? "measurement complete" : "interrupted: finished points kept",
                             report["elapsed_s"].get<double>(), out);
    if (!report["complete"].get<bool>()) throw std::runtime_error("measurement interrupted; the finished part is in " + out);
  });
}

}  // namespace

void register_validate_commands(CLI::App& app) {
  CLI::App* validate_app = app.add_subcommand("validate", "Discover, measure and calibrate against the real machine");
  validate_app->require_subcommand(1);
  register_discover(*validate_app);
  register_measure(*validate_app);
}

}  // namespace numatwin::cli
