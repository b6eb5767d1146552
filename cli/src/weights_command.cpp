#include "weights_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/model/file_io.hpp"
#include "numatwin/sim/operator_plan.hpp"
#include "numatwin/sim/prediction_interval.hpp"
#include "numatwin/sim/simulation.hpp"
#include "numatwin/sim/thread_placement.hpp"
#include "numatwin/sim/weights_search.hpp"
#include "numatwin/sim/workload_input.hpp"
#include "parallel_for.hpp"
#include "prediction_intervals.hpp"
#include "text_table.hpp"
#include "topology_lookup.hpp"
#include "workload_options.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double rate_of(const sim::WorkloadSpec& spec, const sim::SimulationResult& r) {
  const sim::WorkloadInput in = sim::workload_input(spec);
  return sim::is_shuffle_family(spec.kind) ? in.bytes / r.time_s / 1e9 : in.tuples / r.time_s / 1e6;
}

double time_of(const model::Topology& t, const sim::WorkloadSpec& spec) {
  return sim::Simulation(t).run(sim::build_plan(t, spec), sim::SimulationOptions{false}).time_s;
}

struct Row {
  std::string name;
  sim::MemoryPolicy policy;
  std::string how;
  double time_s = 0.0;
  PredictionUncertainty uncertainty;
};

std::string weights_text(const sim::InterleaveWeights& w, const model::Topology& t) {
  std::string out;
  for (std::size_t i = 0; i < w.nodes.size(); ++i)
    out += (i ? "," : "") + t.nodes[w.nodes[i]].id + "=" + std::to_string(w.weights[i]);
  return out;
}

}  // namespace

void register_weights_command(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto nodes = std::make_shared<std::string>();
  auto largest = std::make_shared<int>(sim::kLinuxLargestWeight);
  auto samples = std::make_shared<int>(64);
  auto json = std::make_shared<bool>(false);
  auto out = std::make_shared<std::string>();
  o->workload = "count";
  CLI::App* cmd = app.add_subcommand("weights",
                                     "Weighted-interleave weights for a workload: the ones that "
                                     "minimise its predicted time under contention (one vector, "
                                     "and one per socket), against Linux's automatic weights, "
                                     "pairwise-isolated ones, plain interleave and local memory");
  o->add_common(cmd);
  o->add_algorithm(cmd);
  cmd->add_option("--threads", o->threads, "Threads (default: one per core)");
  cmd->add_option("--nodes", *nodes,
                  "Memory nodes to spread over, e.g. s0,s1,c0 (default: every node with memory)");
  cmd->add_option("--largest-weight", *largest,
                  "Largest weight the search may use (Linux: 1..255; its auto mode scales to 32)")
      ->capture_default_str();
  cmd->add_option("--interval-samples", *samples,
                  "Samples of the uncertain costs for the 90 % interval (0: no interval)")
      ->capture_default_str();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->add_option("--out", *out, "Write the JSON to this file (atomically)");
  cmd->callback([o, nodes, largest, samples, json, out] {
    const model::Topology t = find_topology(o->topology);
    sim::WorkloadSpec spec = o->spec(t, o->threads);
    if (sim::is_shuffle_family(spec.kind))
      throw std::invalid_argument("--workload " + o->workload +
                                  ": the shuffle family places its buffers itself (each producer's "
                                  "on its node), so weights do not "
                                  "apply; give an operator workload (count, median, hash-join, "
                                  "index-join, sort-merge-join, "
                                  "partitioned-aggregation)");
    if (*samples < 0 || *samples == 1)
      throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
    if (*largest < 1 || *largest > 255)
      throw std::invalid_argument(
          "--largest-weight must be 1..255 (the kernel's weights are 1..255)");
    // The memory nodes.
    std::vector<model::NodeIndex> memory;
    if (nodes->empty()) {
      for (std::size_t n = 0; n < t.nodes.size(); ++n)
        if (t.nodes[n].has_memory()) memory.push_back(static_cast<model::NodeIndex>(n));
    } else {
      const sim::MemoryPolicy parsed = sim::parse_memory_policy("interleave:" + *nodes, t);
      memory = parsed.nodes;
    }
    if (memory.size() < 2)
      throw std::invalid_argument("--nodes: weighted interleave needs at least two memory nodes; " +
                                  t.name + " gives " + std::to_string(memory.size()));
    // The nodes the workers run on (per-node vectors, the isolated measurement's initiator).
    std::vector<model::NodeIndex> cpu_nodes;
    for (const sim::PlacedThread& p : sim::place_threads(t, spec.threads, spec.placement))
      if (std::find(cpu_nodes.begin(), cpu_nodes.end(), p.node) == cpu_nodes.end())
        cpu_nodes.push_back(p.node);
    std::sort(cpu_nodes.begin(), cpu_nodes.end());
    if (spec.placement.kind == sim::PlacementKind::kNone)
      throw std::invalid_argument(
          "--placement none: the threads' nodes are not known; give dense, sparse or a CPU list");

    const auto policy_time = [&](const sim::MemoryPolicy& p) {
      sim::WorkloadSpec s = spec;
      s.memory = p;
      return time_of(t, s);
    };
    const double start_s = now_s();
    const sim::InterleaveWeights firmware = sim::weights_from_bandwidth(
        memory, sim::firmware_bandwidth_gbps(t, memory), sim::kLinuxLargestWeight);
    const sim::InterleaveWeights isolated = sim::weights_from_bandwidth(
        memory, sim::isolated_bandwidth_gbps(t, cpu_nodes.front(), memory),
        sim::kLinuxLargestWeight);
    const sim::InterleaveWeights all_ones{memory, std::vector<int>(memory.size(), 1)};
    const sim::WeightSearchResult global = sim::search_global_weights(
        {firmware, isolated, all_ones}, policy_time, *largest, parallel_for);
    const sim::WeightSearchResult per_node = sim::search_per_node_weights(
        cpu_nodes, global.policy.global, policy_time, *largest, parallel_for);
    const double search_s = now_s() - start_s;

    std::vector<Row> rows;
    auto weighted = [](const sim::InterleaveWeights& w) {
      sim::MemoryPolicy p;
      p.kind = sim::MemoryPolicyKind::kWeightedInterleave;
      p.global = w;
      return p;
    };
    rows.push_back({"numatwin, one vector",
                    global.policy,
                    "searched on this workload's predicted time",
                    0.0,
                    {}});
    rows.push_back({"numatwin, per node",
                    per_node.policy,
                    "one vector per node with workers (a 2026 proposal, no kernel interface)",
                    0.0,
                    {}});
    rows.push_back({"Linux auto",
                    weighted(firmware),
                    "firmware (HMAT/CDAT-style) bandwidth, largest 32, gcd-reduced",
                    0.0,
                    {}});
    rows.push_back({"pairwise isolated",
                    weighted(isolated),
                    "each node read alone from " + t.nodes[cpu_nodes.front()].id +
                        " (HMSDK-style), largest 32, gcd-reduced",
                    0.0,
                    {}});
    sim::InterleaveWeights ones{memory, std::vector<int>(memory.size(), 1)};
    sim::MemoryPolicy plain;
    plain.kind = sim::MemoryPolicyKind::kInterleave;
    plain.nodes = memory;
    rows.push_back({"interleave", plain, "every node weight 1", 0.0, {}});
    sim::MemoryPolicy local;
    rows.push_back({"local only", local, "first touch by each worker", 0.0, {}});
    const sim::CostBasis basis = o->cost_basis(t);
    for (Row& r : rows) {
      sim::WorkloadSpec s = spec;
      s.memory = r.policy;
      r.time_s = time_of(t, s);
      r.uncertainty = sim::prediction_uncertainty(t, s, basis, *samples, rate_of, parallel_for);
    }
    const double best = std::min_element(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
                          return a.time_s < b.time_s;
                        })->time_s;
    const bool shuffle = sim::is_shuffle_family(spec.kind);
    const sim::WorkloadInput input = sim::workload_input(spec);
    const auto rate = [&](double seconds) {
      return shuffle ? input.bytes / seconds / 1e9 : input.tuples / seconds / 1e6;
    };
    // numactl numbers NUMA nodes in file order (routers are not NUMA nodes).
    const std::vector<model::NodeIndex> numa = t.numa_nodes();
    const auto os_node = [&](model::NodeIndex n) {
      return static_cast<int>(std::find(numa.begin(), numa.end(), n) - numa.begin());
    };

    if (*json || !out->empty()) {
      Json j;
      j["machine"] = t.name;
      j["workload"] = o->workload;
      j["threads"] = spec.threads;
      j["search_evaluations"] = global.evaluations + per_node.evaluations;
      j["search_s"] = search_s;
      Json list = Json::array();
      for (const Row& r : rows) {
        list.push_back(Json{
            {"name", r.name},
            {"policy", sim::memory_policy_name(r.policy, t)},
            {"how", r.how},
            {"time_s", r.time_s},
            {shuffle ? "input_gbps" : "input_mtuples_per_s", rate(r.time_s)},
            {"relative_to_best", r.time_s / best},
            {"uncertainty", uncertainty_json(r.uncertainty, basis,
                                             shuffle ? "input_gbps" : "input_mtuples_per_s")}});
      }
      j["policies"] = list;
      Json sysfs = Json::array();
      for (std::size_t i = 0; i < global.policy.global.nodes.size(); ++i)
        sysfs.push_back(fmt::format("echo {} > /sys/kernel/mm/mempolicy/weighted_interleave/node{}",
                                    global.policy.global.weights[i],
                                    os_node(global.policy.global.nodes[i])));
      j["sysfs"] = sysfs;
      const std::string text = j.dump(2) + "\n";
      if (out->empty()) {
        std::cout << text;
      } else {
        model::write_file_atomically(*out, text);
      }
      return;
    }
    std::cout << fmt::format(
        "weighted-interleave weights for {} on {} threads ({}), {}: memory nodes", o->workload,
        spec.threads, o->placement, t.name);
    for (model::NodeIndex m : memory) std::cout << " " << t.nodes[m].id;
    std::cout << "\n";
    TextTable table({"policy", "weights", "time s", shuffle ? "GB/s" : "M tuples/s",
                     "90 % interval of the rate", "x best"});
    for (const Row& r : rows) {
      std::string weights = "-";
      if (r.policy.kind == sim::MemoryPolicyKind::kWeightedInterleave) {
        const std::string name = sim::memory_policy_name(r.policy, t);
        weights = name.substr(name.find(':') + 1);
      } else if (r.policy.kind == sim::MemoryPolicyKind::kInterleave) {
        weights = weights_text(ones, t);
      }
      table.add_row({r.name, weights, fmt::format("{:.4g}", r.time_s),
                     fmt::format("{:.4g}", rate(r.time_s)),
                     r.uncertainty.samples > 0 ? interval_text(r.uncertainty.rate, "") : "-",
                     fmt::format("{:.2f}", r.time_s / best)});
    }
    std::cout << table.render();
    for (const Row& r : rows) std::cout << "  " << r.name << ": " << r.how << "\n";
    std::cout << "  " << rows.front().uncertainty.basis << "\n";
    std::cout << fmt::format(
        "  search: {} simulations in {:.2f} s (local searches from the Linux auto, isolated and "
        "all-ones weights: sim/weights_search.hpp)\n",
        global.evaluations + per_node.evaluations, search_s);
    if (rows.back().time_s < rows.front().time_s * (1.0 - 1e-9))
      std::cout << "  local memory (each worker's first touch) is predicted faster than every "
                   "weighting tried: keep it\n";
    std::cout << "\nto apply the one-vector recommendation (Linux 6.9 or later, as root):\n";
    std::string mask;
    for (std::size_t i = 0; i < global.policy.global.nodes.size(); ++i) {
      const int n = os_node(global.policy.global.nodes[i]);
      std::cout << fmt::format("  echo {} > /sys/kernel/mm/mempolicy/weighted_interleave/node{}\n",
                               global.policy.global.weights[i], n);
      mask += (mask.empty() ? "" : ",") + std::to_string(n);
    }
    std::cout << "  numactl --weighted-interleave=" << mask
              << " ./your-program   # numactl 2.0.19 or later (Debian 12 ships 2.0.16: call "
                 "set_mempolicy(MPOL_WEIGHTED_INTERLEAVE) "
                 "with that node mask instead)\n";
    std::cout
        << "  the weights are system-wide: every process using weighted interleave gets them.\n";
  });
}

}  // namespace numatwin::cli
