#include "commands/from_spec_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/machine_figures.hpp"
#include "numatwin/model/spec_derivation.hpp"
#include "numatwin/model/spec_sheet_json.hpp"
#include "numatwin/model/topology_json.hpp"
#include "report/text_table.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string g4(double v) { return fmt::format("{:.4g}", v); }

std::string figures_text(const model::DerivedMachine& d) {
  TextTable table({"figure", "value", "range", "unit", "basis"});
  for (const model::DerivedFigure& f : d.figures) {
    table.add_row({f.what, g4(f.value), fmt::format("{}-{}", g4(f.low), g4(f.high)), f.unit,
                   (f.transferred ? "TRANSFERRED: " : "") + f.basis});
  }
  return table.render();
}

std::string matrix_text(const model::Topology& t, const model::MachineFigures& f,
                        const std::vector<std::vector<double>>& m) {
  std::vector<std::string> header{"cpu\\memory"};
  for (const model::NodeIndex n : f.memory_nodes) header.push_back(t.nodes[static_cast<std::size_t>(n)].id);
  TextTable table(header);
  for (std::size_t i = 0; i < f.cpu_nodes.size(); ++i) {
    std::vector<std::string> row{t.nodes[static_cast<std::size_t>(f.cpu_nodes[i])].id};
    for (const double v : m[i]) row.push_back(fmt::format("{:.1f}", v));
    table.add_row(row);
  }
  return table.render();
}

std::string report_text(const model::DerivedMachine& d, const model::MachineFigures& f) {
  std::string out = fmt::format("{} ({}): {} NUMA nodes, {} cores, {} hardware threads\n\n", d.topology.name,
                                model::numa_mode_name(d.mode), d.topology.numa_nodes().size(), d.topology.total_cores(),
                                d.topology.total_hardware_threads());
  out += "derived figures (each with its rule's range; TRANSFERRED: from another generation):\n";
  out += figures_text(d);
  out += "\npredicted idle latency, ns (mlc --latency_matrix):\n" + matrix_text(d.topology, f, f.idle_latency_ns);
  out += "\npredicted read bandwidth, GB/s, every thread of the row's node alone (mlc --bandwidth_matrix):\n" +
         matrix_text(d.topology, f, f.bandwidth_gbps);
  out += "\npredicted loaded latency, every node reading its own memory (mlc --loaded_latency):\n";
  TextTable curve({"controller load", "machine GB/s", "latency ns"});
  for (const model::LoadedLatencyPoint& p : f.loaded_latency) {
    curve.add_row({fmt::format("{:.0f} %", 100 * p.utilisation), fmt::format("{:.1f}", p.bandwidth_gbps),
                   fmt::format("{:.1f}", p.latency_ns)});
  }
  out += curve.render();
  out += "\nnot derived yet: core-to-core transfer latencies.\n";
  return out;
}

Json report_json(const model::DerivedMachine& d, const model::MachineFigures& f) {
  Json figures = Json::array();
  for (const model::DerivedFigure& x : d.figures) {
    figures.push_back(Json{{"figure", x.what}, {"pointer", x.pointer}, {"unit", x.unit}, {"value", x.value},
                           {"low", x.low}, {"high", x.high}, {"rule", x.rule}, {"basis", x.basis},
                           {"transferred", x.transferred}});
  }
  Json cpu = Json::array();
  Json memory = Json::array();
  for (const auto n : f.cpu_nodes) cpu.push_back(d.topology.nodes[static_cast<std::size_t>(n)].id);
  for (const auto n : f.memory_nodes) memory.push_back(d.topology.nodes[static_cast<std::size_t>(n)].id);
  Json curve = Json::array();
  for (const auto& p : f.loaded_latency) {
    curve.push_back(Json{{"utilisation", p.utilisation}, {"bandwidth_gbps", p.bandwidth_gbps}, {"latency_ns", p.latency_ns}});
  }
  return Json{{"name", d.topology.name},
              {"mode", model::numa_mode_name(d.mode)},
              {"figures", figures},
              {"cpu_nodes", cpu},
              {"memory_nodes", memory},
              {"idle_latency_ns", f.idle_latency_ns},
              {"bandwidth_gbps", f.bandwidth_gbps},
              {"loaded_latency", curve}};
}

}  // namespace

void register_from_spec_command(CLI::App& topo) {
  auto spec_path = std::make_shared<std::string>();
  auto mode = std::make_shared<std::string>();
  auto hbm_mode = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = topo.add_subcommand(
      "from-spec", "Derive a machine from its spec sheet (docs/spec-sheet.md): every figure with its rule, basis and range");
  cmd->add_option("spec", *spec_path, "Spec sheet file (JSON)")->required();
  cmd->add_option("--mode", *mode, "NUMA mode to derive instead of the sheet's: snc-off, snc1-snc4, nps1, nps2, nps4");
  cmd->add_option("--hbm-mode", *hbm_mode, "HBM mode instead of the sheet's: flat or cache");
  cmd->add_option("--out", *out, "Write the derived topology here (atomically)");
  cmd->add_flag("--json", *json, "Print the report as JSON");
  cmd->callback([=] {
    const model::SpecSheet spec = model::load_spec_sheet(*spec_path);
    model::DerivationOptions options;
    options.source_name = *spec_path;
    if (!mode->empty()) {
      try {
        options.mode = model::parse_numa_mode(*mode);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("--mode: expected ") + e.what());
      }
    }
    if (!hbm_mode->empty()) {
      if (*hbm_mode != "flat" && *hbm_mode != "cache") {
        throw std::invalid_argument("--hbm-mode: expected flat or cache, got \"" + *hbm_mode + "\"");
      }
      options.hbm_mode = *hbm_mode == "flat" ? model::HbmMode::kFlat : model::HbmMode::kCache;
    }
    const model::DerivedMachine derived = model::derive_machine(spec, model::default_spec_rules(), options);
    const model::MachineFigures figures = model::predict_machine_figures(derived.topology);
    if (!out->empty()) model::write_file_atomically(*out, model::topology_to_json_text(derived.topology));
    if (*json) {
      std::cout << report_json(derived, figures).dump(2) << "\n";
    } else {
      std::cout << report_text(derived, figures);
      if (!out->empty()) std::cout << fmt::format("\nwrote {}\n", *out);
    }
  });
}

}  // namespace numatwin::cli
