#include "commands/weights_command.hpp"

#include <fmt/format.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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
#include "numatwin/sim/search/weights_search.hpp"
#include "numatwin/sim/workload/workload_input.hpp"
#include "run/parallel_for.hpp"
#include "report/prediction_intervals.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The weights column: the policy's arguments ("s0=3,s1=1", "s0,s1" for plain interleave).
std::string weights_of(const sim::MemoryPolicy& policy, const model::Topology& t) {
  if (policy.kind != sim::MemoryPolicyKind::kWeightedInterleave &&
      policy.kind != sim::MemoryPolicyKind::kInterleave)
    return "-";
  const std::string name = sim::memory_policy_name(policy, t);
  const std::size_t colon = name.find(':');
  return colon == std::string::npos ? name : name.substr(colon + 1);
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
  cmd->add_option("--threads", o->threads, "Threads (default: one per core)")->check(CLI::Range(1, 1 << 20));
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
    const model::Topology t = model::find_topology(o->topology);
    const sim::WorkloadSpec spec = o->spec(t, o->threads);
    std::vector<model::NodeIndex> memory;
    if (!nodes->empty()) memory = sim::parse_memory_policy("interleave:" + *nodes, t).nodes;
    const sim::CostBasis basis = o->cost_basis(t);
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
    // The answer builds and frees thousands of plans of a few MB. glibc hands the freed top of
    // its heaps back to the kernel past 128 KiB and faults the pages in again for the next plan:
    // 0.9 s of system time against 1.4 s of user time for the sort-merge join on
    // xeon-max-9462-2s (docs/simulation-speed.md, session 29). Keep up to 1 GiB instead; only
    // this command, so that allocbench measures glibc as it comes.
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
    const double start_s = now_s();
    const sim::WeightsAnswer a =
        sim::answer_weights(t, spec, basis, memory, *largest, *samples, parallel_for);
    const double answer_s = now_s() - start_s;
    const std::vector<sim::WeightsRow>& rows = a.rows;
    const double best =
        std::min_element(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
          return x.time_s < y.time_s;
        })->time_s;
    const double tuples = sim::workload_input(spec).tuples;
    const auto rate = [&](double seconds) { return tuples / seconds / 1e6; };
    // numactl numbers NUMA nodes in file order (routers are not NUMA nodes).
    const std::vector<model::NodeIndex> numa = t.numa_nodes();
    const auto os_node = [&](model::NodeIndex n) {
      return static_cast<int>(std::find(numa.begin(), numa.end(), n) - numa.begin());
    };
    std::vector<std::string> sysfs;
    std::string mask;
    for (std::size_t i = 0; i < a.recommended.nodes.size(); ++i) {
      const int n = os_node(a.recommended.nodes[i]);
      sysfs.push_back(fmt::format("echo {} > /sys/kernel/mm/mempolicy/weighted_interleave/node{}",
                                  a.recommended.weights[i], n));
      mask += (mask.empty() ? "" : ",") + std::to_string(n);
    }

    // The same workload run for real under the recommended vector, by the kernel's own policy
    // (validate run restores the sysfs weights afterwards).
    const std::string check_command = fmt::format(
        "numatwin validate run --topology {} --workload {} --threads {} --memory-policy '{}' --weighted-interleave-by kernel",
        o->topology, o->workload, spec.threads, sim::memory_policy_name(rows.front().policy, t));

    if (*json || !out->empty()) {
      Json j;
      j["machine"] = t.name;
      j["workload"] = o->workload;
      j["threads"] = spec.threads;
      j["search_evaluations"] = a.search_simulations;
      j["answer_s"] = answer_s;
      Json list = Json::array();
      for (const sim::WeightsRow& r : rows) {
        list.push_back(
            Json{{"name", r.name},
                 {"policy", sim::memory_policy_name(r.policy, t)},
                 {"how", r.how},
                 {"time_s", r.time_s},
                 {"input_mtuples_per_s", rate(r.time_s)},
                 {"relative_to_best", r.time_s / best},
                 {"uncertainty", uncertainty_json(r.uncertainty, basis, "input_mtuples_per_s", r.time_s, rate(r.time_s))}});
      }
      j["policies"] = list;
      j["sysfs"] = sysfs;
      j["validate_command"] = check_command;
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
    for (model::NodeIndex m : a.memory) std::cout << " " << t.nodes[m].id;
    std::cout << "\n";
    TextTable table(
        {"policy", "weights", "time s", "M tuples/s", "90 % interval of the rate", "x best"});
    std::vector<std::pair<std::string, sim::PointVersusInterval>> outside;  // rates outside their interval
    for (const sim::WeightsRow& r : rows) {
      const sim::PointVersusInterval rate_point =
          sim::point_versus_interval(rate(r.time_s), r.uncertainty.rate, basis, r.uncertainty.uncertain);
      if (r.uncertainty.samples > 0 && rate_point.side != sim::PointSide::kInside) outside.emplace_back(r.name, rate_point);
      table.add_row({r.name, weights_of(r.policy, t), fmt::format("{:.4g}", r.time_s),
                     fmt::format("{:.4g}", rate(r.time_s)),
                     r.uncertainty.samples > 0 ? interval_cell(rate_point) : "-",
                     fmt::format("{:.2f}", r.time_s / best)});
    }
    std::cout << table.render();
    std::cout << table_point_notes(outside, "rate", " M tuples/s");
    for (const sim::WeightsRow& r : rows) std::cout << "  " << r.name << ": " << r.how << "\n";
    std::cout << "  " << rows.front().uncertainty.basis << "\n";
    std::cout << fmt::format(
        "  search: {} simulations; the whole answer in {:.2f} s (local searches from the Linux "
        "auto, isolated and "
        "all-ones weights: sim/search/weights_search.hpp)\n",
        a.search_simulations, answer_s);
    // Local memory (the last row) against every weighting (the rows before it).
    std::vector<std::string> faster_than_local;
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) {
      if (rows[i].time_s <= rows.back().time_s * (1.0 + 1e-9)) faster_than_local.push_back(rows[i].name);
    }
    if (faster_than_local.empty()) {
      std::cout << "  local memory (each worker's first touch) is predicted faster than every "
                   "weighting tried: keep it\n";
    } else if (rows.back().time_s < rows.front().time_s * (1.0 - 1e-9)) {
      std::string names;
      for (const std::string& n : faster_than_local) names += (names.empty() ? "" : ", ") + n;
      std::cout << "  local memory (each worker's first touch) is predicted faster than the one-vector "
                   "recommendation; only "
                << names << " beat" << (faster_than_local.size() == 1 ? "s" : "") << " it\n";
    }
    std::cout << "\nto apply the one-vector recommendation (Linux 6.9 or later, as root):\n";
    for (const std::string& line : sysfs) std::cout << "  " << line << "\n";
    std::cout << "  numactl --weighted-interleave=" << mask
              << " ./your-program   # numactl 2.0.19 or later (Debian 12 ships 2.0.16: call "
                 "set_mempolicy(MPOL_WEIGHTED_INTERLEAVE) with that node mask instead)\n";
    std::cout
        << "  the weights are system-wide: every process using weighted interleave gets them.\n";
    std::cout << "\nto measure it on that machine, with its calibrated topology (the same workload flags as here; "
                 "the sysfs weights are set for the run and put back):\n  "
              << check_command << "\n";
  });
}

}  // namespace numatwin::cli
