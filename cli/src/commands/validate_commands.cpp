#include "commands/validate_commands.hpp"

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
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"
#include "numatwin/validate/calibrate/kerncraft_import.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"
#include "numatwin/validate/discover/placement_selfcheck.hpp"
#include "numatwin/validate/discover/report_json.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "commands/validate_measure_command.hpp"
#include "commands/validate_run_commands.hpp"

namespace numatwin::cli {
namespace {

using validate::Json;

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
  TextTable nodes({"node", "package", "kind", "cores", "threads", "cpus", "allowed cpus", "memory", "free", "mem allowed",
                   "mem-side cache", "firmware (HMAT) read/write/latency", "caches"});
  for (const validate::DiscoveredNode& n : m.nodes) {
    std::string caches;
    for (const model::CacheLevel& c : n.caches) {
      caches += fmt::format("{}L{} {}{}", caches.empty() ? "" : ", ", c.level, rounded_bytes_text(c.size_bytes),
                            c.shared_by_cores > 1 ? fmt::format("/{}c", c.shared_by_cores) : "");
    }
    const auto figure = [](const std::optional<double>& v, const char* unit) {
      return v ? fmt::format("{:g} {}", *v, unit) : std::string("-");
    };
    const std::string firmware = n.read_bandwidth_mibps || n.write_bandwidth_mibps || n.read_latency_ns
                                     ? figure(n.read_bandwidth_mibps, "MiB/s") + " / " + figure(n.write_bandwidth_mibps, "MiB/s") +
                                           " / " + figure(n.read_latency_ns, "ns")
                                     : "-";
    nodes.add_row({std::to_string(n.os_index), n.package >= 0 ? "p" + std::to_string(n.package) : "-",
                   n.subtype.empty() ? "-" : n.subtype, std::to_string(n.cores), std::to_string(n.hardware_threads),
                   list_text(n.cpus), list_text(n.allowed_cpus), rounded_bytes_text(n.memory_bytes),
                   n.free_memory_bytes ? rounded_bytes_text(*n.free_memory_bytes) : "-", n.memory_allowed ? "yes" : "no",
                   n.memory_side_cache_bytes > 0 ? rounded_bytes_text(n.memory_side_cache_bytes) : "-", firmware, caches});
  }
  out += nodes.render();
  for (const validate::CxlMemoryDevice& d : m.cxl_devices) {
    out += fmt::format("CXL memory device {}: {} volatile, {} persistent, near cpus {} (not a NUMA node in the source)\n", d.name,
                       rounded_bytes_text(d.ram_bytes), rounded_bytes_text(d.pmem_bytes), list_text(d.local_cpus));
  }
  int cores = 0;
  for (const validate::DiscoveredNode& n : m.nodes) cores += n.cores;
  out += fmt::format("skeleton: {} node(s) ({} with cores, {} CPU-less), {} core(s), {} firmware figure(s)\n",
                     s.topology.nodes.size(),
                     std::count_if(s.topology.nodes.begin(), s.topology.nodes.end(), [](const auto& x) { return x.has_cores(); }),
                     std::count_if(s.topology.nodes.begin(), s.topology.nodes.end(), [](const auto& x) { return !x.has_cores(); }),
                     cores, s.topology.provenance.firmware.size());
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

Json mlc_json(const validate::MlcResults& r) {
  Json loaded = Json::array();
  for (const auto& p : r.loaded_latency) {
    loaded.push_back(Json{{"inject_delay", p.inject_delay}, {"latency_ns", p.latency_ns}, {"bandwidth_gbps", p.bandwidth_gbps}});
  }
  return Json{{"file", r.file},
              {"version", r.version},
              {"bandwidth_nodes", r.bandwidth_nodes},
              {"bandwidth_cpu_nodes", r.bandwidth_cpu_nodes},
              {"bandwidth_matrix_gbps", r.bandwidth_matrix_gbps},
              {"latency_nodes", r.latency_nodes},
              {"latency_cpu_nodes", r.latency_cpu_nodes},
              {"latency_matrix_ns", r.latency_matrix_ns},
              {"idle_latency_ns", r.idle_latency_ns ? Json(*r.idle_latency_ns) : Json(nullptr)},
              {"peak_injection_gbps", r.peak_injection_gbps},
              {"max_bandwidth_gbps", r.max_bandwidth_gbps},
              {"loaded_latency", loaded}};
}

// Rows: the nodes with CPUs; columns: every memory node (fewer rows with CPU-less nodes).
std::string matrix_block(const std::string& title, const std::vector<int>& rows, const std::vector<int>& columns,
                         const std::vector<std::vector<double>>& m) {
  if (m.empty()) return "";
  std::vector<std::string> header{"cpu\\mem"};
  for (int n : columns) header.push_back(std::to_string(n));
  TextTable table(header);
  for (std::size_t i = 0; i < m.size(); ++i) {
    std::vector<std::string> row{std::to_string(rows[i])};
    for (double v : m[i]) row.push_back(fmt::format("{:.1f}", v));
    table.add_row(row);
  }
  return title + ":\n" + table.render() + "\n";
}

void register_import_mlc(CLI::App& validate_app) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = validate_app.add_subcommand("import-mlc", "Read Intel mlc output: bandwidth and latency matrices, "
                                                            "peak injection, loaded latency");
  cmd->add_option("file", *file, "mlc output (text)")->required();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([file, json] {
    const validate::MlcResults r = validate::load_mlc_output(*file);
    if (*json) {
      std::cout << mlc_json(r).dump(2) << "\n";
      return;
    }
    std::string out = "mlc " + (r.version.empty() ? std::string("(version unknown)") : r.version) + " output: " + r.file + "\n\n";
    out += matrix_block("read bandwidth GB/s", r.bandwidth_cpu_nodes, r.bandwidth_nodes, r.bandwidth_matrix_gbps);
    out += matrix_block("idle latency ns", r.latency_cpu_nodes, r.latency_nodes, r.latency_matrix_ns);
    for (int n : r.bandwidth_nodes.empty() ? r.latency_nodes : r.bandwidth_nodes) {
      const auto& rows = r.bandwidth_nodes.empty() ? r.latency_cpu_nodes : r.bandwidth_cpu_nodes;
      if (validate::mlc_index_of(rows, n) < 0) out += fmt::format("node {}: no CPUs (a column without a row): memory only\n", n);
    }
    if (r.idle_latency_ns) out += fmt::format("idle latency: {:.1f} ns\n", *r.idle_latency_ns);
    for (const auto& [traffic, gbps] : r.peak_injection_gbps) out += fmt::format("peak injection {}: {:.1f} GB/s\n", traffic, gbps);
    for (const auto& [traffic, gbps] : r.max_bandwidth_gbps) out += fmt::format("max bandwidth {}: {:.1f} GB/s\n", traffic, gbps);
    if (!r.loaded_latency.empty()) {
      TextTable table({"inject delay", "latency ns", "GB/s"});
      for (const auto& p : r.loaded_latency) {
        table.add_row({std::to_string(p.inject_delay), fmt::format("{:.1f}", p.latency_ns), fmt::format("{:.1f}", p.bandwidth_gbps)});
      }
      out += "\nloaded latency:\n" + table.render();
    } else {
      out += "loaded latency: not measured (no --loaded_latency section)\n";
    }
    std::cout << out;
  });
}

std::string calibration_text(const validate::CalibrationResult& r, const std::string& out_path) {
  std::string out = fmt::format("calibration: {} after {} iterations; {} points, rms error {:.2f} %, largest {:.2f} %\n\n",
                                r.converged ? "converged" : "NOT converged", r.iterations, r.residuals.size(),
                                100.0 * r.rms_relative_error, 100.0 * r.max_abs_relative_error);
  TextTable params({"parameter", "prior", "fitted", "± sd", "unit", "note"});
  for (const auto& p : r.parameters) {
    params.add_row({p.pointer, fmt::format("{:.4g}", p.prior), fmt::format("{:.4g}", p.value),
                    p.fitted ? (p.std_error >= 0 ? fmt::format("{:.2g}", p.std_error) : "unknown") : "-", p.unit, p.note});
  }
  out += params.render() + "\n";
  TextTable points({"point", "metric", "measured", "prior model", "calibrated model", "error"});
  for (std::size_t i = 0; i < r.residuals.size(); ++i) {
    const auto& p = r.residuals[i];
    points.add_row({p.id, validate::metric_name(p.metric), fmt::format("{:.4g}", p.measured),
                    fmt::format("{:.4g}", r.prior_residuals[i].predicted), fmt::format("{:.4g}", p.predicted),
                    fmt::format("{:+.2f} %", 100.0 * p.relative_error())});
  }
  out += points.render();
  for (const std::string& note : r.notes) out += "note: " + note + "\n";
  for (const std::string& warning : r.warnings) out += "warning: " + warning + "\n";
  if (!out_path.empty()) out += "wrote the calibrated topology to " + out_path + "\n";
  return out;
}

void register_import_kerncraft(CLI::App& validate_app) {
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = validate_app.add_subcommand("import-kerncraft", "Read a kerncraft machine file: memory load bandwidth per core count");
  cmd->add_option("file", *file, "kerncraft machine file (YAML)")->required();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([file, json] {
    const validate::KerncraftMachine m = validate::load_kerncraft(*file);
    if (*json) {
      Json curves = Json::array();
      for (const validate::KerncraftCurve& c : m.memory_load) {
        curves.push_back(Json{{"threads_per_core", c.threads_per_core}, {"cores", c.cores}, {"load_gbps", c.load_gbps}});
      }
      Json levels = Json::array();
      for (const validate::KerncraftLevel& l : m.hierarchy) {
        levels.push_back(Json{{"level", l.name}, {"size_bytes", l.size_bytes}, {"cores_per_group", l.cores_per_group},
                              {"bytes_per_cycle", l.bytes_per_cycle}, {"full_duplex", l.full_duplex}, {"transfers_overlap", l.transfers_overlap}});
      }
      std::cout << Json{{"file", m.file}, {"model_name", m.model_name}, {"sockets", m.sockets}, {"cores_per_socket", m.cores_per_socket},
                        {"numa_domains_per_socket", m.numa_domains_per_socket}, {"cores_per_numa_domain", m.cores_per_numa_domain},
                        {"clock_ghz", m.clock_ghz}, {"llvm_mca_cpu", m.llvm_mca_cpu}, {"memory_hierarchy", levels},
                        {"memory_load", curves}}.dump(2)
                << "\n";
      return;
    }
    std::cout << fmt::format("{}: {} ({} sockets x {} cores, {} NUMA domain(s) of {} cores per socket)\n", m.file, m.model_name, m.sockets,
                             m.cores_per_socket, m.numa_domains_per_socket, m.cores_per_numa_domain);
    if (!m.hierarchy.empty()) {
      TextTable levels({"level", "size per group", "cores per group", "upstream B/cycle", "duplex", "transfers overlap"});
      for (const validate::KerncraftLevel& l : m.hierarchy) {
        levels.add_row({l.name, l.size_bytes > 0.0 ? rounded_bytes_text(static_cast<std::int64_t>(l.size_bytes)) : "-", std::to_string(l.cores_per_group),
                        l.bytes_per_cycle > 0.0 ? fmt::format("{:g}", l.bytes_per_cycle) : (l.name == "MEM" ? "measured" : "in-core model"),
                        l.bytes_per_cycle > 0.0 ? (l.full_duplex ? "full" : "half") : "-", l.transfers_overlap ? "yes" : "no"});
      }
      std::cout << fmt::format("\nclock {:g} GHz, in-core model llvm-mca -mcpu={}\n", m.clock_ghz, m.llvm_mca_cpu.empty() ? "?" : m.llvm_mca_cpu)
                << levels.render();
    }
    for (const validate::KerncraftCurve& c : m.memory_load) {
      TextTable table({"cores", "load GB/s"});
      for (std::size_t i = 0; i < c.cores.size(); ++i) table.add_row({std::to_string(c.cores[i]), fmt::format("{:.2f}", c.load_gbps[i])});
      std::cout << "\nmemory, " << c.threads_per_core << " thread(s) per core:\n" << table.render();
    }
  });
}

void register_calibrate(CLI::App& validate_app) {
  struct Options {
    std::string mlc;
    std::string measurements;
    std::string kerncraft;
    std::string topology;
    std::string out;
    std::string report;
    bool json = false;
    int max_iterations = 60;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = validate_app.add_subcommand(
      "calibrate", "Fit the model's parameters to measurements (validate measure) or mlc output; write the calibrated topology");
  auto* mlc = cmd->add_option("--from-mlc", o->mlc, "Intel mlc output (text)");
  auto* measured = cmd->add_option("--measurements", o->measurements, "Report of `numatwin validate measure` (JSON)");
  auto* kerncraft = cmd->add_option("--from-kerncraft", o->kerncraft, "kerncraft machine file (YAML): the socket's bandwidth per core count");
  mlc->excludes(measured);
  measured->excludes(mlc);
  kerncraft->excludes(mlc);
  kerncraft->excludes(measured);
  cmd->add_option("--topology", o->topology, "Machine whose parameters are fitted (bundled name or file, e.g. a discover skeleton)")
      ->required();
  cmd->add_option("--out", o->out, "Calibrated topology file (written atomically)")->required();
  cmd->add_option("--report", o->report, "Also write the calibration report (JSON) here");
  cmd->add_option("--max-iterations", o->max_iterations, "Levenberg-Marquardt iterations per pass")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the calibration report as JSON");
  cmd->callback([o] {
    if (o->mlc.empty() && o->measurements.empty() && o->kerncraft.empty()) {
      throw CLI::RequiredError("--from-mlc, --from-kerncraft or --measurements");
    }
    const model::Topology prior = model::find_topology(o->topology);
    validate::CalibrationData data;
    if (!o->kerncraft.empty()) {
      data = validate::calibration_data_from_kerncraft(validate::load_kerncraft(o->kerncraft), prior);
    } else if (!o->mlc.empty()) {
      data = validate::calibration_data_from_mlc(validate::load_mlc_output(o->mlc), prior);
    } else {
      std::ifstream in(o->measurements, std::ios::binary);
      if (!in) throw model::InputError(o->measurements, "", "cannot read the file");
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const Json report = Json::parse(text, nullptr, false);
      if (report.is_discarded()) throw model::InputError(o->measurements, "", "expected JSON (a `numatwin validate measure` report)");
      data = validate::calibration_data_from_measurements(report, prior, o->measurements);
    }
    validate::CalibrationOptions options;
    options.max_iterations = o->max_iterations;
    const validate::CalibrationResult result = validate::calibrate(prior, data, options);
    model::save_topology(result.topology, o->out);
    const Json report = validate::to_json(result);
    if (!o->report.empty()) model::write_file_atomically(o->report, report.dump(2) + "\n");
    if (o->json) {
      std::cout << report.dump(2) << "\n";
    } else {
      std::cout << calibration_text(result, o->out);
    }
  });
}

void register_selfcheck(CLI::App& validate_app) {
  struct Options {
    std::string distances;
    std::string links;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = validate_app.add_subcommand(
      "selfcheck", "Check discovery and placement for real: bind, preferred, interleave, migration, pinned threads");
  cmd->add_option("--expect-distances", o->distances, "File with the expected SLIT matrix (one row per node)");
  cmd->add_option("--expect-links", o->links, "Expected inferred link graph, e.g. 0-1,1-2,2-3");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o] {
    validate::SelfCheckOptions options;
    if (!o->distances.empty()) options.expected_distances = validate::read_distance_matrix(o->distances);
    if (!o->links.empty()) options.expected_links = validate::parse_link_list(o->links);
    const std::vector<validate::SelfCheck> checks = validate::run_placement_selfcheck(options);
    int passed = 0;
    int failed = 0;
    for (const auto& c : checks) (c.passed ? passed : failed) += 1;
    if (o->json) {
      std::cout << Json{{"checks", validate::to_json(checks)}, {"passed", passed}, {"failed", failed}}.dump(2) << "\n";
    } else {
      for (const auto& c : checks) std::cout << (c.passed ? "PASS: " : "FAIL: ") << c.name << ": " << c.detail << "\n";
      std::cout << "selfcheck: " << passed << " passed, " << failed << " failed\n";
    }
    std::cout.flush();
    if (failed > 0) throw std::runtime_error("selfcheck: " + std::to_string(failed) + " check(s) failed");
  });
}

}  // namespace

void register_validate_commands(CLI::App& app) {
  CLI::App* validate_app = app.add_subcommand("validate", "Discover, measure and calibrate against the real machine");
  validate_app->require_subcommand(1);
  register_discover(*validate_app);
  register_import_mlc(*validate_app);
  register_import_kerncraft(*validate_app);
  register_validate_measure(*validate_app);
  register_calibrate(*validate_app);
  register_selfcheck(*validate_app);
  register_validate_run_commands(*validate_app);
}

}  // namespace numatwin::cli
