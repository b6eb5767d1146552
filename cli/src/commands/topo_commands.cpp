#include "commands/topo_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/core_cost_rules_json.hpp"
#include "numatwin/model/cost_transfer.hpp"
#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_json.hpp"
#include "commands/from_spec_command.hpp"
#include "options/socket_family_options.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;
using model::Topology;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::string bytes_text(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b >= kGiB) return fmt::format("{:g} GiB", b / kGiB);
  if (b >= 1024.0 * 1024.0) return fmt::format("{:g} MiB", b / (1024.0 * 1024.0));
  if (b >= 1024.0) return fmt::format("{:g} KiB", b / 1024.0);
  return fmt::format("{} B", bytes);
}

std::string protocol_text(model::CoherenceProtocol protocol) {
  switch (protocol) {
    case model::CoherenceProtocol::kSourceSnoop: return "source_snoop";
    case model::CoherenceProtocol::kHomeSnoop: return "home_snoop";
    case model::CoherenceProtocol::kDirectory: return "directory";
  }
  return "?";
}

int link_entries(const Topology& t) { return t.links.empty() ? 0 : t.links.back().spec_index + 1; }

int router_count(const Topology& t) {
  return static_cast<int>(t.nodes.size() - t.numa_nodes().size());
}

// Derived figures shared by `list`, `show` and their JSON forms.
Json summary_json(const Topology& t, const model::Routing& routing) {
  return Json{{"name", t.name},
              {"description", t.description},
              {"numa_nodes", t.numa_nodes().size()},
              {"routers", router_count(t)},
              {"link_entries", link_entries(t)},
              {"directed_links", t.links.size()},
              {"cores", t.total_cores()},
              {"hardware_threads", t.total_hardware_threads()},
              {"diameter_hops", routing.diameter()},
              {"coherence_protocol", protocol_text(t.coherence.protocol)}};
}

std::string matrix_text(const Topology& t, const std::vector<std::vector<std::string>>& cells) {
  std::vector<std::string> header{"from\\to"};
  const std::vector<model::NodeIndex> numa = t.numa_nodes();
  for (model::NodeIndex n : numa) header.push_back(t.nodes[n].id);
  TextTable table(header);
  for (std::size_t i = 0; i < numa.size(); ++i) {
    std::vector<std::string> row{t.nodes[numa[i]].id};
    row.insert(row.end(), cells[i].begin(), cells[i].end());
    table.add_row(row);
  }
  return table.render();
}

template <typename T, typename F>
std::vector<std::vector<std::string>> format_matrix(const std::vector<std::vector<T>>& m, F format) {
  std::vector<std::vector<std::string>> out;
  for (const auto& row : m) {
    std::vector<std::string> cells;
    for (const T& value : row) cells.push_back(format(value));
    out.push_back(cells);
  }
  return out;
}

Json matrices_json(const Topology& t, const model::Routing& routing) {
  Json ids = Json::array();
  for (model::NodeIndex n : t.numa_nodes()) ids.push_back(t.nodes[n].id);
  Json latency = Json::array();
  for (const auto& row : routing.latency_matrix_ns()) {
    Json r = Json::array();
    for (double v : row) r.push_back(std::isnan(v) ? Json(nullptr) : Json(v));
    latency.push_back(r);
  }
  return Json{{"nodes", ids},
              {"hops", routing.hop_matrix()},
              {"access_latency_ns", latency},
              {"distance", routing.distance_matrix()},
              {"diameter_hops", routing.diameter()}};
}

std::string hops_text(const Topology& t, const model::Routing& routing) {
  std::string out = "hops (links crossed, routers included):\n";
  out += matrix_text(t, format_matrix(routing.hop_matrix(), [](int h) { return h < 0 ? std::string("-") : std::to_string(h); }));
  out += fmt::format("diameter: {} hops\n\naccess latency ns (local latency of the memory node + link latencies on the route):\n",
                     routing.diameter());
  out += matrix_text(t, format_matrix(routing.latency_matrix_ns(), [](double v) {
                       return std::isnan(v) ? std::string("-") : fmt::format("{:g}", v);
                     }));
  out += "\ndistance (SLIT-like: 10 x latency / nearest memory's latency):\n";
  out += matrix_text(t, format_matrix(routing.distance_matrix(), [](int d) { return d < 0 ? std::string("-") : std::to_string(d); }));
  return out;
}

// The file's measured microbenchmarks next to what the model predicts for them.
std::vector<std::pair<const model::Measurement*, model::MeasurementPrediction>> predictions(const Topology& t,
                                                                                           const model::Routing& routing) {
  std::vector<std::pair<const model::Measurement*, model::MeasurementPrediction>> out;
  if (t.measurements.empty()) return out;
  model::BandwidthModel bandwidth(t, routing);
  for (const model::Measurement& m : t.measurements) out.emplace_back(&m, model::predict_measurement(t, routing, bandwidth, m));
  return out;
}

std::string measurements_text(const Topology& t, const model::Routing& routing) {
  const auto rows = predictions(t, routing);
  if (rows.empty()) return "";
  TextTable table({"measurement", "metric", "measured", "model", "error %", "description"});
  for (const auto& [m, p] : rows) {
    table.add_row({m->id, m->metric == model::MeasurementMetric::kIdleLatencyNs ? "latency ns" : "read GB/s",
                   fmt::format("{:g}", p.measured), fmt::format("{:.4g}", p.predicted),
                   fmt::format("{:+.2f}", 100.0 * p.relative_error()), m->description});
  }
  return "\nmeasured microbenchmarks and the model's prediction:\n" + table.render();
}

std::string show_text(const Topology& t, const model::Routing& routing) {
  std::string out = t.name + (t.description.empty() ? "" : " — " + t.description) + "\n";
  out += fmt::format("{} NUMA nodes, {} routers, {} links ({} directed), {} cores, {} hardware threads, diameter {} hops\n",
                     t.numa_nodes().size(), router_count(t), link_entries(t), t.links.size(), t.total_cores(),
                     t.total_hardware_threads(), routing.diameter());
  out += "coherence: " + protocol_text(t.coherence.protocol) +
         fmt::format(", per line and probed node {:g} B of probe and {:g} B of response, remote access +{:g} ns",
                     t.coherence.probe_bytes_per_line, t.coherence.response_bytes_per_line,
                     t.coherence.remote_access_overhead_ns);
  if (t.coherence.directory_probe_fraction) {
    out += fmt::format(", {:g} of lines probed", *t.coherence.directory_probe_fraction);
  }
  out += "\nsource: " + t.provenance.source + "\n\n";

  TextTable nodes({"node", "kind", "cores", "thr/core", "GHz", "memory", "read GB/s", "write GB/s", "local ns", "caches"});
  for (const model::Node& n : t.nodes) {
    if (n.kind == model::NodeKind::kRouter) {
      nodes.add_row({n.id, "router", "-", "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    std::string caches;
    for (const model::CacheLevel& c : n.caches) {
      caches += fmt::format("{}L{} {}{}", caches.empty() ? "" : ", ", c.level, bytes_text(c.size_bytes),
                            c.shared_by_cores > 1 ? fmt::format(" /{} cores", c.shared_by_cores) : "");
    }
    nodes.add_row({n.id, "node", std::to_string(n.cores), std::to_string(n.threads_per_core),
                   fmt::format("{:g}", n.frequency_ghz), bytes_text(n.memory_capacity_bytes),
                   fmt::format("{:g}", n.memory_read_bandwidth_gbps),
                   n.memory_write_bandwidth_gbps ? fmt::format("{:g}", *n.memory_write_bandwidth_gbps) : "-",
                   fmt::format("{:g}", n.local_latency_ns), caches});
  }
  out += nodes.render() + "\n";

  TextTable links({"link", "GB/s", "latency ns"});
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    links.add_row({t.link_name(static_cast<model::LinkIndex>(l)), fmt::format("{:g}", t.links[l].bandwidth_gbps),
                   fmt::format("{:g}", t.links[l].latency_ns)});
  }
  out += links.render() + "\n" + hops_text(t, routing) + measurements_text(t, routing);
  TextTable costs({"operator cost", "value", "range", "unit", "origin"});
  int defaults = 0;
  for (const model::OperatorCostInfo& info : model::operator_cost_table()) {
    const model::CostValue c = model::cost_or_default(t.operator_costs, info.name);
    defaults += c.origin == model::CostOrigin::kDefault ? 1 : 0;
    costs.add_row({std::string(info.name), fmt::format("{:.3g}", c.value), fmt::format("{:.3g} - {:.3g}", c.low, c.high),
                   std::string(info.unit), model::cost_origin_name(c.origin)});
  }
  out += "\n" + costs.render();
  if (defaults > 0) {
    out += fmt::format("{} of {} operator costs are defaults, calibrated nowhere (numatwin validate measure; topo transfer-costs)\n",
                       defaults, model::operator_cost_table().size());
  }
  for (const model::NamedCost& c : t.operator_costs) out += "  " + c.name + ": " + c.cost.source + "\n";
  if (!t.provenance.notes.empty()) out += "\nnotes: " + t.provenance.notes + "\n";
  return out;
}

std::string dot_text(const Topology& t) {
  auto quote = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  std::string out = "digraph " + quote(t.name) + " {\n  node [shape=box];\n";
  for (const model::Node& n : t.nodes) {
    std::string attributes;
    if (n.kind == model::NodeKind::kRouter) {
      attributes = "shape=circle, label=" + quote(n.id);
    } else {
      attributes = "label=" + quote(fmt::format("{}\\n{} cores, {:g} GB/s", n.id, n.cores, n.memory_read_bandwidth_gbps));
    }
    if (n.position) attributes += fmt::format(", pos=\"{:g},{:g}!\"", n.position->x, -n.position->y);
    out += "  " + quote(n.id) + " [" + attributes + "];\n";
  }
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    const model::Link& link = t.links[l];
    const bool symmetric = l + 1 < t.links.size() && t.links[l + 1].spec_index == link.spec_index;
    out += fmt::format("  {} -> {} [label=\"{:g} GB/s\"{}];\n", quote(t.nodes[link.from].id),
                       quote(t.nodes[link.to].id), link.bandwidth_gbps, symmetric ? ", dir=both" : "");
    if (symmetric) ++l;
  }
  return out + "}\n";
}

void write_output(const std::string& text, const std::string& out_path) {
  if (out_path.empty() || out_path == "-") {
    std::cout << text;
  } else {
    model::write_file_atomically(out_path, text);
  }
}

}  // namespace

void register_topo_commands(CLI::App& app, HwlocXmlWriter hwloc_xml) {
  CLI::App* topo = app.add_subcommand("topo", "Inspect, validate, export and generate machine topologies");
  topo->require_subcommand(1);
  register_from_spec_command(*topo);

  {
    auto json = std::make_shared<bool>(false);
    CLI::App* list = topo->add_subcommand("list", "List the bundled machines");
    list->add_flag("--json", *json, "Print JSON");
    list->callback([json] {
      Json rows = Json::array();
      TextTable table({"name", "nodes", "routers", "links", "cores", "threads", "diameter", "description"});
      const std::filesystem::path dir = model::topology_dir();
      const std::vector<std::filesystem::path> files = model::bundled_json_files(dir);
      if (files.empty()) {
        throw std::runtime_error("no bundled machines in " + dir.string() +
                                 " (a missing or empty folder: set NUMATWIN_TOPOLOGY_DIR to the folder of bundled machines)");
      }
      for (const auto& file : files) {
        const Topology t = model::load_topology(file);
        const model::Routing routing(t);
        Json row = summary_json(t, routing);
        row["file"] = file.string();
        rows.push_back(row);
        table.add_row({t.name, std::to_string(t.numa_nodes().size()), std::to_string(router_count(t)),
                       std::to_string(link_entries(t)), std::to_string(t.total_cores()),
                       std::to_string(t.total_hardware_threads()), std::to_string(routing.diameter()), t.description});
      }
      if (*json) {
        std::cout << rows.dump(2) << "\n";
      } else {
        std::cout << table.render();
      }
    });
  }
  {
    auto json = std::make_shared<bool>(false);
    auto name = std::make_shared<std::string>();
    CLI::App* show = topo->add_subcommand("show", "Show one machine: nodes, links, hops, provenance");
    show->add_option("topology", *name, "Bundled machine name or topology file")->required();
    show->add_flag("--json", *json, "Print JSON");
    show->callback([json, name] {
      const Topology t = model::find_topology(*name);
      const model::Routing routing(t);
      if (*json) {
        Json out = summary_json(t, routing);
        out["matrices"] = matrices_json(t, routing);
        Json measured = Json::array();
        for (const auto& [m, p] : predictions(t, routing)) {
          measured.push_back(Json{{"id", m->id}, {"measured", p.measured}, {"model", p.predicted}, {"relative_error", p.relative_error()}});
        }
        out["measurements"] = measured;
        out["topology"] = Json::parse(model::topology_to_json_text(t));
        std::cout << out.dump(2) << "\n";
      } else {
        std::cout << show_text(t, routing);
      }
    });
  }
  {
    auto json = std::make_shared<bool>(false);
    auto file = std::make_shared<std::string>();
    CLI::App* validate = topo->add_subcommand("validate", "Check a topology file against every rule of the format");
    validate->add_option("file", *file, "Topology file")->required();
    validate->add_flag("--json", *json, "Print JSON");
    validate->callback([json, file] {
      const Topology t = model::load_topology(*file);
      if (*json) {
        std::cout << Json{{"file", *file}, {"valid", true}, {"name", t.name}}.dump(2) << "\n";
      } else {
        std::cout << fmt::format("{}: valid ({}, {} NUMA nodes, {} routers, {} links)\n", *file, t.name,
                                 t.numa_nodes().size(), router_count(t), link_entries(t));
      }
    });
  }
  {
    auto json = std::make_shared<bool>(false);
    auto name = std::make_shared<std::string>();
    CLI::App* hops = topo->add_subcommand("hops", "Hop, access-latency and SLIT-like distance matrices");
    hops->add_option("topology", *name, "Bundled machine name or topology file")->required();
    hops->add_flag("--json", *json, "Print JSON");
    hops->callback([json, name] {
      const Topology t = model::find_topology(*name);
      const model::Routing routing(t);
      if (*json) {
        std::cout << matrices_json(t, routing).dump(2) << "\n";
      } else {
        std::cout << t.name << "\n" << hops_text(t, routing);
      }
    });
  }
  {
    auto name = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>("json");
    auto out = std::make_shared<std::string>();
    CLI::App* export_cmd =
        topo->add_subcommand("export", "Write a machine as canonical JSON, Graphviz DOT, or hwloc XML with the model's figures as memattrs");
    export_cmd->add_option("topology", *name, "Bundled machine name or topology file")->required();
    export_cmd->add_option("--format", *format,
                           "json, dot, or hwloc-xml (hwloc 2 XML: the machine's tree and the predicted initiator x target "
                           "Bandwidth, Latency and loaded latency as memory attributes; docs/topology-format.md)")
        ->check(CLI::IsMember({"json", "dot", "hwloc-xml"}));
    export_cmd->add_option("--out", *out, "Output file (written atomically); default: standard output");
    export_cmd->callback([name, format, out, hwloc_xml] {
      const Topology t = model::find_topology(*name);
      if (*format == "hwloc-xml") {
        if (!hwloc_xml) throw std::invalid_argument("--format hwloc-xml needs hwloc, which only the numatwin binary links");
        write_output(hwloc_xml(t), *out);
        return;
      }
      write_output(*format == "dot" ? dot_text(t) : model::topology_to_json_text(t), *out);
    });
  }
  {
    auto params = std::make_shared<model::GeneratorParams>();
    auto family = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto memory_gib = std::make_shared<double>(64.0);
    auto protocol = std::make_shared<std::string>("source_snoop");
    auto directory_fraction = std::make_shared<double>(0.1);
    CLI::App* generate = topo->add_subcommand(
        "generate",
        "Generate a topology of a family: fully-connected, ring, ladder, twisted-ladder, mobius-ladder, hypercube, chassis, "
        "or the socket families intel-snc and amd-nps (with optional CXL expanders)");
    generate->add_option("family", *family, "Topology family")->required();
    std::vector<CLI::Option*> classic;  // options of the classic families only
    classic.push_back(generate->add_option("--nodes", params->nodes, "NUMA nodes (sockets), 1 to 4096; fully-connected at most 1024")->capture_default_str());
    classic.push_back(generate->add_option("--sockets-per-chassis", params->sockets_per_chassis, "chassis family: sockets per chassis")->capture_default_str());
    classic.push_back(generate->add_option("--cores-per-node", params->cores_per_node, "Cores per node")->capture_default_str());
    CLI::Option* threads = generate->add_option("--threads-per-core", params->threads_per_core, "Hardware threads per core")->capture_default_str();
    CLI::Option* frequency = generate->add_option("--frequency-ghz", params->frequency_ghz, "Core frequency")->capture_default_str();
    classic.push_back(generate->add_option("--memory-per-node-gib", *memory_gib, "Memory capacity per node")->capture_default_str());
    classic.push_back(generate->add_option("--memory-bandwidth-gbps", params->memory_read_bandwidth_gbps, "Memory read bandwidth per node")->capture_default_str());
    CLI::Option* latency = generate->add_option("--local-latency-ns", params->local_latency_ns, "Local memory latency")->capture_default_str();
    classic.push_back(generate->add_option("--link-bandwidth-gbps", params->link_bandwidth_gbps, "Link bandwidth per direction")->capture_default_str());
    classic.push_back(generate->add_option("--link-latency-ns", params->link_latency_ns, "Latency added per link crossed")->capture_default_str());
    classic.push_back(generate->add_option("--router-link-bandwidth-gbps", params->router_link_bandwidth_gbps, "chassis family: router link bandwidth")->capture_default_str());
    classic.push_back(generate->add_option("--router-link-latency-ns", params->router_link_latency_ns, "chassis family: router link latency")->capture_default_str());
    CLI::Option* protocol_option = generate->add_option("--protocol", *protocol, "Coherence protocol (socket families: directory unless given)")
        ->check(CLI::IsMember({"source_snoop", "home_snoop", "directory"}))
        ->capture_default_str();
    generate->add_option("--probe-bytes-per-line", params->coherence.probe_bytes_per_line, "Probe bytes per line per probed node")->capture_default_str();
    generate->add_option("--response-bytes-per-line", params->coherence.response_bytes_per_line, "Response bytes per line per probed node")->capture_default_str();
    generate->add_option("--remote-access-overhead-ns", params->coherence.remote_access_overhead_ns, "Latency added to every remote access")->capture_default_str();
    CLI::Option* buffers = generate->add_option("--miss-buffers-per-core", params->miss_buffers_per_core, "Cache-line misses a core keeps in flight")->capture_default_str();
    generate->add_option("--memory-queue-ns", params->performance.memory_queue_ns, "Loaded latency added by a saturated memory controller")->capture_default_str();
    generate->add_option("--link-queue-ns", params->performance.link_queue_ns, "Loaded latency added by a saturated link")->capture_default_str();
    generate->add_option("--queue-exponent", params->performance.queue_exponent, "Shape of the loaded-latency curve u^e")->capture_default_str();
    generate->add_option("--directory-probe-fraction", *directory_fraction, "directory protocol: fraction of lines probed")->capture_default_str();
    generate->add_option("--name", params->name, "Machine name (default: family-N)");
    generate->add_option("--out", *out, "Output file (written atomically); default: standard output");
    auto socket_options = add_socket_family_options(generate);
    generate->callback([=] {
      params->family = model::parse_family(*family);
      const bool sockets = model::is_socket_family(params->family);
      if (sockets) {
        for (CLI::Option* o : classic) {
          if (o->count() > 0) {
            throw std::invalid_argument(o->get_name() + " does not apply to " + *family + " (see --sockets and the per-socket options)");
          }
        }
        params->socket = socket_options->apply(params->family);
        if (threads->count() > 0) params->socket.threads_per_core = params->threads_per_core;
        if (frequency->count() > 0) params->socket.frequency_ghz = params->frequency_ghz;
        if (latency->count() > 0) params->socket.local_latency_ns = params->local_latency_ns;
        if (buffers->count() > 0) params->socket.miss_buffers_per_core = params->miss_buffers_per_core;
        if (protocol_option->count() == 0) *protocol = "directory";
      } else {
        socket_options->reject_for(*family);
        if (!(*memory_gib > 0.0)) throw std::invalid_argument("--memory-per-node-gib must be > 0");
        params->memory_per_node_bytes = static_cast<std::int64_t>(std::llround(*memory_gib * kGiB));
      }
      params->coherence.protocol = *protocol == "directory"    ? model::CoherenceProtocol::kDirectory
                                   : *protocol == "home_snoop" ? model::CoherenceProtocol::kHomeSnoop
                                                               : model::CoherenceProtocol::kSourceSnoop;
      if (params->coherence.protocol == model::CoherenceProtocol::kDirectory) {
        params->coherence.directory_probe_fraction = *directory_fraction;
      }
      write_output(model::topology_to_json_text(model::generate_topology(*params)), *out);
    });
  }
  {
    auto from = std::make_shared<std::string>();
    auto to = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    CLI::App* transfer = topo->add_subcommand(
        "transfer-costs",
        "Carry a calibrated machine's operator costs over to another machine (cycles kept, latencies at its clock, ranges widened)");
    transfer->add_option("--from", *from, "Machine whose costs were measured or calibrated (bundled name or file)")->required();
    transfer->add_option("--to", *to, "Machine to carry them to (bundled name or file)")->required();
    transfer->add_option("--out", *out, "Output topology file (written atomically); default: standard output");
    transfer->callback([from, to, out] {
      const Topology result = model::transfer_operator_costs(model::find_topology(*from), model::find_topology(*to));
      write_output(model::topology_to_json_text(result), *out);
      if (!out->empty()) {
        std::cerr << fmt::format("{}: {} operator costs transferred from {} (model/cost_transfer.hpp has the rule)\n", *out,
                                 result.operator_costs.size(), *from);
      }
    });
  }
  {
    auto machine = std::make_shared<std::string>();
    auto core = std::make_shared<std::string>();
    auto table = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    CLI::App* derive = topo->add_subcommand(
        "derive-costs",
        "Give a machine the operator costs of its core's microarchitecture: the in-core cycles an analyser (llvm-mca) reads off "
        "each kernel's loop, with mispredictions where keys are random (origin \"derived\"; measured and calibrated costs are kept)");
    derive->add_option("--topology", *machine, "Machine to give the costs to (bundled name or file)")->required();
    derive->add_option("--microarchitecture", *core, "The core's microarchitecture as the table names it (an llvm-mca -mcpu name: nehalem, "
                                                     "sandybridge, ivybridge, haswell, broadwell, skylake-avx512, sapphirerapids, znver3)")
        ->required();
    derive->add_option("--loop-cycles", *table, "Loop-cycle table (default: the bundled cores/loop-cycles-llvm-mca-14.json, made by "
                                                "tools/loop-cycles/derive.py)");
    derive->add_option("--out", *out, "Output topology file (written atomically); default: standard output");
    derive->callback([machine, core, table, out] {
      const std::filesystem::path table_path =
          table->empty() ? model::topology_dir() / "cores" / "loop-cycles-llvm-mca-14.json" : std::filesystem::path(*table);
      const model::LoopCycleTable cycles = model::load_loop_cycles(table_path);
      const Topology result = model::with_derived_core_costs(model::find_topology(*machine), cycles, *core);
      write_output(model::topology_to_json_text(result), *out);
      if (!out->empty()) {
        int derived = 0;
        for (const model::NamedCost& c : result.operator_costs) derived += c.cost.origin == model::CostOrigin::kDerived ? 1 : 0;
        std::cerr << fmt::format("{}: {} operator costs derived for {} from {} (model/core_cost_rules.hpp has the rule)\n", *out, derived,
                                 *core, table_path.string());
      }
    });
  }
}

}  // namespace numatwin::cli
