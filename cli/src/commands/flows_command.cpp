#include "commands/flows_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>

#include "io/flow_spec.hpp"
#include "numatwin/sim/engine/flows.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

const char* kind_name(model::ResourceKind kind) {
  switch (kind) {
    case model::ResourceKind::kMemoryController: return "memory controller";
    case model::ResourceKind::kLink: return "link";
    case model::ResourceKind::kForwarding: return "forwarding";
  }
  return "?";
}

const char* limit_name(model::StreamLimit limit) {
  switch (limit) {
    case model::StreamLimit::kResource: return "resource";
    case model::StreamLimit::kMissBuffers: return "miss buffers";
    case model::StreamLimit::kRateLimit: return "rate cap";
    case model::StreamLimit::kCachePath: return "cache path";
  }
  return "?";
}

std::string limited_by(const sim::FlowsResult& r, const sim::FlowState& s) {
  const model::StreamLimit limit = sim::flow_limit(s);
  if (limit == model::StreamLimit::kResource) {
    const int b = sim::flow_bottleneck(s);
    return b >= 0 ? r.resources[b].name + " (saturated)" : "a saturated resource";
  }
  if (limit == model::StreamLimit::kCachePath) return "its core's cache path (ports and line transfers: the file's core_data_path)";
  return limit == model::StreamLimit::kMissBuffers ? "its miss buffers (lines in flight / latency)" : "its rate cap";
}

Json spread_json(const model::Topology& t, const std::vector<model::NodeShare>& spread) {
  Json out = Json::object();
  for (const model::NodeShare& s : spread) out[t.nodes[s.node].id] = s.fraction;
  return out;
}

// Resources by utilisation, highest first (model order on ties).
std::vector<int> by_utilisation(const sim::FlowSnapshot& snap) {
  std::vector<int> order(snap.utilisation.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return snap.utilisation[a] > snap.utilisation[b]; });
  return order;
}

Json flow_state_json(const sim::FlowsResult& r, const sim::FlowState& s) {
  const int b = sim::flow_bottleneck(s);
  Json threads = Json::array();
  for (std::size_t i = 0; i < s.thread_rate_bytes_per_s.size(); ++i) threads.push_back(s.thread_rate_bytes_per_s[i] / 1e9);
  return Json{{"running_threads", s.running_threads},
              {"gbps", s.rate_bytes_per_s / 1e9},
              {"gbps_per_thread", s.running_threads > 0 ? s.rate_bytes_per_s / 1e9 / s.running_threads : 0.0},
              {"thread_gbps", threads},
              {"latency_ns", s.latency_ns},
              {"limit", s.running ? limit_name(sim::flow_limit(s)) : ""},
              {"bottleneck", b >= 0 ? Json(r.resources[b].name) : Json(nullptr)}};
}

Json resources_json(const sim::FlowsResult& r, const sim::FlowSnapshot& snap) {
  Json out = Json::array();
  for (int i : by_utilisation(snap)) {
    out.push_back(Json{{"name", r.resources[i].name},
                       {"kind", kind_name(r.resources[i].kind)},
                       {"capacity_gbps", r.resources[i].capacity_bytes_per_s / 1e9},
                       {"load_gbps", snap.resource_load_bytes_per_s[i] / 1e9},
                       {"utilisation", snap.utilisation[i]}});
  }
  return out;
}

Json result_json(const model::Topology& t, const std::vector<ResolvedFlow>& flows, const std::vector<sim::Flow>& plain,
                 const sim::FlowsResult& r) {
  Json list = Json::array();
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const sim::Flow& flow = flows[f].flow;
    Json entry{{"flow", f + 1},
               {"cpus", flows[f].cpus_text},
               {"cpu_ids", flows[f].cpu_ids},
               {"threads", flow.cores.size()},
               {"access", flows[f].access_text},
               {"read", spread_json(t, flow.read)},
               {"write", spread_json(t, flow.write)},
               {"bytes", flow.bytes > 0.0 ? Json(flow.bytes) : Json(nullptr)},
               {"rate_cap_gbps", std::isfinite(flow.rate_limit_bytes_per_s) ? Json(flow.rate_limit_bytes_per_s / 1e9) : Json(nullptr)},
               {"lines_in_flight", flow.lines_in_flight > 0.0 ? Json(flow.lines_in_flight) : Json(nullptr)},
               {"start", flow_state_json(r, r.start.flows[f])}};
    if (flow.bytes > 0.0) {
      entry["finish_s"] = r.finish_s[f];
      entry["mean_gbps"] = r.mean_rate_bytes_per_s(plain, static_cast<int>(f)) / 1e9;
    }
    list.push_back(entry);
  }
  Json phases = Json::array();
  for (const sim::FlowPhase& p : r.phases) {
    Json rates = Json::array();
    for (const sim::FlowState& s : p.snapshot.flows) rates.push_back(s.rate_bytes_per_s / 1e9);
    phases.push_back(Json{{"begin_s", p.begin_s}, {"end_s", p.end_s}, {"flow_gbps", rates}, {"resources", resources_json(r, p.snapshot)}});
  }
  double total = 0.0;
  for (const sim::FlowState& s : r.start.flows) total += s.rate_bytes_per_s;
  return Json{{"topology", t.name},
              {"flows", list},
              {"total_gbps", total / 1e9},
              {"resources", resources_json(r, r.start)},
              {"converged", r.start.converged},
              {"time_s", r.time_s},
              {"phases", phases}};
}

void print_result(const model::Topology& t, const std::vector<ResolvedFlow>& flows, const std::vector<sim::Flow>& plain,
                  const sim::FlowsResult& r) {
  std::cout << fmt::format("{}: {} flow{} started together; rates with every flow running\n\n", t.name, flows.size(),
                           flows.size() == 1 ? "" : "s");
  TextTable table({"flow", "threads", "cpus", "access", "GB/s", "GB/s/thread", "latency ns", "limited by"});
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const sim::FlowState& s = r.start.flows[f];
    table.add_row({std::to_string(f + 1), std::to_string(flows[f].flow.cores.size()), flows[f].cpus_text, flows[f].access_text,
                   fmt::format("{:.2f}", s.rate_bytes_per_s / 1e9), fmt::format("{:.3f}", s.rate_bytes_per_s / 1e9 / s.running_threads),
                   fmt::format("{:.0f}", s.latency_ns), limited_by(r, s)});
  }
  double total = 0.0;
  for (const sim::FlowState& s : r.start.flows) total += s.rate_bytes_per_s;
  std::cout << table.render() << fmt::format("all flows together: {:.2f} GB/s\n", total / 1e9);
  if (!r.start.converged) std::cout << "note: the bandwidth model's fixed point did not converge; rates are approximate\n";
  if (!r.phases.empty()) {
    std::cout << fmt::format("\nuntil every flow with bytes is done ({:.4g} s):\n", r.time_s);
    TextTable done({"flow", "GB", "done at s", "mean GB/s"});
    for (std::size_t f = 0; f < flows.size(); ++f) {
      const bool bytes = flows[f].flow.bytes > 0.0;
      done.add_row({std::to_string(f + 1), bytes ? fmt::format("{:.4g}", flows[f].flow.bytes / 1e9) : "-",
                    bytes ? fmt::format("{:.4g}", r.finish_s[f]) : "(no end)",
                    fmt::format("{:.2f}", r.mean_rate_bytes_per_s(plain, static_cast<int>(f)) / 1e9)});
    }
    std::cout << done.render();
    if (r.phases.size() > 1) {
      std::vector<std::string> header{"from s", "to s"};
      for (std::size_t f = 0; f < flows.size(); ++f) header.push_back(fmt::format("flow {} GB/s", f + 1));
      TextTable phases(header);
      for (const sim::FlowPhase& p : r.phases) {
        std::vector<std::string> row{fmt::format("{:.4g}", p.begin_s), fmt::format("{:.4g}", p.end_s)};
        for (const sim::FlowState& s : p.snapshot.flows) row.push_back(s.running ? fmt::format("{:.2f}", s.rate_bytes_per_s / 1e9) : "done");
        phases.add_row(row);
      }
      std::cout << "\nphases (a thread finishing starts the next):\n" << phases.render();
    }
  }
  std::cout << "\nresources with every flow running, by utilisation:\n";
  TextTable resources({"resource", "kind", "capacity GB/s", "load GB/s", "util %"});
  for (int i : by_utilisation(r.start)) {
    resources.add_row({r.resources[i].name, kind_name(r.resources[i].kind), fmt::format("{:g}", r.resources[i].capacity_bytes_per_s / 1e9),
                       fmt::format("{:.2f}", r.start.resource_load_bytes_per_s[i] / 1e9), fmt::format("{:.1f}", 100.0 * r.start.utilisation[i])});
  }
  std::cout << resources.render();
}

}  // namespace

void register_flows_command(CLI::App& app) {
  auto topology = std::make_shared<std::string>();
  auto specs = std::make_shared<std::vector<std::string>>();
  auto file = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "flows", "Memory streams started together (CPU set, memory node or spread, read/write/copy, bytes or a rate cap): "
               "each flow's GB/s, latency and bottleneck, every resource's load");
  cmd->add_option("--topology", *topology, "Machine name (see topo list) or topology file")->required();
  cmd->add_option("--flow", *specs,
                  "One flow, e.g. cpus=s0:4,read=s2 or 'cpus=s1:1,copy=s1>s3,bytes=1e9' (repeat for more; grammar in docs/commands.md)")
      ->take_all();
  cmd->add_option("--flows-file", *file, "A JSON file of flows: {\"flows\": [{\"cpus\": \"s0:4\", \"read\": \"s2\"}, ...]}");
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([topology, specs, file, json] {
    if (specs->empty() && file->empty()) throw std::invalid_argument("no flows: give --flow SPEC (one or more) or --flows-file F.json");
    if (!specs->empty() && !file->empty()) throw std::invalid_argument("give flows with --flow or with --flows-file, not both");
    const model::Topology t = model::find_topology(*topology);
    const std::vector<ResolvedFlow> flows = file->empty() ? resolve_flow_specs(*specs, t) : load_flows_file(*file, t);
    std::vector<sim::Flow> plain;
    for (const ResolvedFlow& f : flows) plain.push_back(f.flow);
    const sim::FlowsResult r = sim::run_flows(t, plain);
    if (*json) {
      std::cout << result_json(t, flows, plain, r).dump(2) << "\n";
    } else {
      print_result(t, flows, plain, r);
    }
  });
}

}  // namespace numatwin::cli
