#include "sim_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/sim/energy_estimate.hpp"
#include "numatwin/sim/operator_plan.hpp"
#include "numatwin/sim/shuffle_plan.hpp"
#include "numatwin/sim/simulation.hpp"
#include "numatwin/sim/workload_input.hpp"
#include "parallel_for.hpp"
#include "phases_text.hpp"
#include "prediction_intervals.hpp"
#include "sort_merge_sweep.hpp"
#include "sweep_crossover.hpp"
#include "text_table.hpp"
#include "workload_options.hpp"
#include "topology_lookup.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

struct Outcome {
  sim::WorkloadSpec spec;
  sim::SimulationResult result;
  sim::PlanReport report;
  sim::EnergyEstimate energy;  // of the memory traffic (energy_estimate.hpp)
  std::string energy_basis;    // what the energy figures rest on
  // Every rate says what it counts (sim/workload_input.hpp): the work rate is the workload's input
  // per second (shuffles: bytes shuffled; operators: input tuples, both sides of a join); memory
  // traffic is every byte the run moved per second (state moves, table misses, partition writes).
  [[nodiscard]] double input_gbps() const { return sim::workload_input(spec).bytes / result.time_s / 1e9; }
  [[nodiscard]] double input_mtuples_per_s() const { return sim::workload_input(spec).tuples / result.time_s / 1e6; }
  [[nodiscard]] double memory_traffic_gbps() const { return result.memory_traffic_gbps(); }
};

Outcome simulate(const model::Topology& t, const sim::WorkloadSpec& spec, bool timeline) {
  sim::Simulation simulation(t);
  sim::SimulationOptions options;
  options.record_timeline = timeline;
  Outcome outcome{spec, {}, {}, {}, {}};
  const sim::Plan plan = sim::build_plan(t, spec, &outcome.report);
  outcome.result = simulation.run(plan, options);
  outcome.energy = sim::estimate_energy(t, outcome.result);
  outcome.energy_basis = model::energy_basis(t.energy).description();
  return outcome;
}

std::string label(const sim::WorkloadSpec& s) {
  if (s.kind == sim::WorkloadKind::kPartitionedAggregation) {
    return "partitioned-aggregation " + sim::strategy_name(s.strategy) + " " + sim::algorithm_name(s.algorithm) + " " +
           sim::sync_name(s.sync);
  }
  if (s.kind == sim::WorkloadKind::kHashJoin) return "hash-join " + sim::join_algorithm_name(s.join_algorithm);
  if (!sim::is_shuffle_family(s.kind) && s.kind != sim::WorkloadKind::kSortMergeJoin) return sim::workload_kind_name(s.kind);
  return sim::workload_kind_name(s.kind) + " " + sim::algorithm_name(s.algorithm) + " " + sim::sync_name(s.sync);
}

Json summary_json(const Outcome& o) {
  const sim::SimulationResult& r = o.result;
  const int busiest = r.busiest_resource();
  Json out{{"workload", sim::workload_kind_name(o.spec.kind)},
            {"algorithm", sim::algorithm_name(o.spec.algorithm)},
            {"sync", sim::sync_name(o.spec.sync)},
            {"threads", o.spec.threads},
            {"placement", sim::placement_name(o.spec.placement)}};
  if (sim::is_shuffle_family(o.spec.kind)) {
    out["bytes"] = o.spec.total_bytes;
  } else {
    out["strategy"] = sim::strategy_name(o.spec.strategy);
    out["join_algorithm"] = sim::join_algorithm_name(o.spec.join_algorithm);
    out["records"] = o.spec.data.records;
    out["build_records"] = o.spec.data.build_records;
    out["keys"] = sim::key_distribution_name(o.spec.data.keys);
    out["groups"] = o.spec.data.keys.groups;
  }
  out.update(Json{{"time_s", r.time_s},
              {"input_gbps", o.input_gbps()},
              {"input_mtuples_per_s", o.input_mtuples_per_s()},
              {"memory_traffic_gbps", o.memory_traffic_gbps()},
              {"bytes_moved", r.bytes},
              {"local_access_ratio", r.local_access_ratio()},
              {"energy_j", o.energy.total_j()},
              {"energy_basis", o.energy_basis},
              {"busiest_resource", busiest >= 0 ? r.resources[busiest].name : ""},
              {"busiest_mean_utilisation", busiest >= 0 ? r.mean_utilisation[busiest] : 0.0},
              {"bottleneck_resource", r.bottleneck_resource() >= 0 ? r.resources[r.bottleneck_resource()].name : ""},
              {"bottleneck_saturated_fraction", r.bottleneck_resource() >= 0 ? r.saturated_fraction[r.bottleneck_resource()] : 0.0},
              {"events", r.events},
              {"model_rounds", r.solver_rounds}});
  return out;
}

Json detail_json(const Outcome& o, bool timeline) {
  Json out = summary_json(o);
  const sim::SimulationResult& r = o.result;
  Json resources = Json::array();
  for (std::size_t i = 0; i < r.resources.size(); ++i) {
    resources.push_back(Json{{"name", r.resources[i].name},
                             {"capacity_gbps", r.resources[i].capacity_bytes_per_s / 1e9},
                             {"mean_utilisation", r.mean_utilisation[i]},
                             {"saturated_fraction", r.saturated_fraction[i]}});
  }
  out["resources"] = resources;
  Json steps = Json::array();
  for (const sim::StepStats& s : r.steps) {
    steps.push_back(Json{{"step", s.step}, {"begin_s", s.begin_s}, {"end_s", s.end_s}, {"bytes", s.bytes},
                         {"mean_utilisation", s.mean_utilisation}});
  }
  out["steps"] = steps;
  if (timeline) {
    Json segments = Json::array();
    for (const sim::TimelineSegment& seg : r.timeline) {
      segments.push_back(Json{{"begin_s", seg.begin_s}, {"end_s", seg.end_s}, {"utilisation", seg.utilisation}});
    }
    out["timeline"] = segments;
  }
  return out;
}

// Table columns `before`, then the rates, each named by what it counts (operators: input tuples
// and bytes per second; shuffles: bytes shuffled per second; both: memory traffic), then `after`.
std::vector<std::string> with_rate_columns(std::vector<std::string> before, bool operators, const std::vector<std::string>& after) {
  if (operators) {
    before.insert(before.end(), {"input Mtuples/s", "input GB/s"});
  } else {
    before.emplace_back("shuffled GB/s");
  }
  before.emplace_back("memory GB/s");
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

std::vector<std::string> with_rates(std::vector<std::string> before, const Outcome& o, bool operators,
                                    const std::vector<std::string>& after) {
  if (operators) before.push_back(fmt::format("{:.1f}", o.input_mtuples_per_s()));
  before.push_back(fmt::format("{:.2f}", o.input_gbps()));
  before.push_back(fmt::format("{:.2f}", o.memory_traffic_gbps()));
  before.insert(before.end(), after.begin(), after.end());
  return before;
}

std::string busiest_text(const sim::SimulationResult& r) {
  const int b = r.busiest_resource();
  return b < 0 ? "-" : fmt::format("{} {:.0f}%", r.resources[b].name, 100.0 * r.mean_utilisation[b]);
}

std::string bottleneck_text(const sim::SimulationResult& r) {
  const int b = r.bottleneck_resource();
  return b < 0 ? "none saturated" : fmt::format("{} {:.0f}% of the time", r.resources[b].name, 100.0 * r.saturated_fraction[b]);
}

std::string spread_text(const model::Topology& t, const std::vector<model::NodeShare>& spread) {
  std::string out;
  for (const model::NodeShare& s : spread) out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", t.nodes[s.node].id, 100.0 * s.fraction);
  return out;
}

// The headline rate: GB/s shuffled for shuffles, M input tuples/s for operators.
double headline_rate(const sim::WorkloadSpec& spec, const sim::SimulationResult& result) { return sim::headline_rate(spec, result.time_s); }

PredictionUncertainty uncertainty_of(const model::Topology& t, const sim::WorkloadSpec& spec, const sim::CostBasis& basis,
                                     int samples) {
  return sim::prediction_uncertainty(t, spec, basis, samples, headline_rate, parallel_for);
}

void print_uncertainty(const sim::WorkloadSpec& spec, const PredictionUncertainty& u) {
  if (u.samples > 0) {
    const bool shuffle = sim::is_shuffle_family(spec.kind);
    std::cout << fmt::format("  90 % interval ({} samples over {} uncertain cost{}): time {}, {}\n", u.samples, u.uncertain.size(),
                             u.uncertain.size() == 1 ? "" : "s", interval_text(u.time_s, " s"),
                             interval_text(u.rate, shuffle ? " GB/s" : " M tuples/s"));
  } else if (!u.uncertain.empty()) {
    std::cout << "  no interval: sampling is off (--interval-samples 0)\n";
  } else if (!u.depends_on.empty()) {
    std::cout << "  no interval: every cost it rests on is exact (given)\n";
  } else {
    std::cout << "  no interval: the figure rests on no operator cost, only on the topology's bandwidths and latencies, "
                 "which are taken as exact\n";
    return;
  }
  std::cout << "  " << u.basis << "\n";
}

void print_predict(const model::Topology& t, const Outcome& o, bool steps, const std::vector<double>& seed_times,
                   const PredictionUncertainty& u) {
  const sim::SimulationResult& r = o.result;
  if (sim::is_shuffle_family(o.spec.kind)) {
    std::cout << fmt::format("{} on {} threads ({}), {:g} GB\n", label(o.spec), o.spec.threads,
                             sim::placement_name(o.spec.placement), o.spec.total_bytes / 1e9);
    std::cout << fmt::format("  time {:.4g} s, {:.2f} GB/s shuffled (input), memory traffic {:.2f} GB/s, local access ratio {:.3f}, {} events\n",
                             r.time_s, o.input_gbps(), o.memory_traffic_gbps(), r.local_access_ratio(), r.events);
    print_uncertainty(o.spec, u);
  } else {
    if (o.spec.kind == sim::WorkloadKind::kSubarray) {
      std::cout << fmt::format("{} on {} threads ({}), memory {}, {:g} M cells of {} B in {} chunks, {} threads per chunk, selectivity {:g}\n",
                               label(o.spec), o.spec.threads, sim::placement_name(o.spec.placement),
                               sim::memory_policy_name(o.spec.memory, t), o.spec.data.records / 1e6, o.spec.element_bytes,
                               o.spec.data.chunks, o.spec.data.threads_per_chunk, o.spec.data.selectivity);
    } else {
      std::cout << fmt::format("{} on {} threads ({}), memory {}, {:g} M records, {:g} groups ({})\n", label(o.spec), o.spec.threads,
                               sim::placement_name(o.spec.placement), sim::memory_policy_name(o.spec.memory, t), o.spec.data.records / 1e6,
                               o.spec.data.keys.groups, sim::key_distribution_name(o.spec.data.keys));
    }
    const sim::EnergyEstimate& energy = o.energy;
    std::cout << fmt::format("  time {:.4g} s, input {:.1f} M tuples/s ({:.2f} GB/s), memory traffic {:.2f} GB/s, local access ratio {:.3f}\n",
                             r.time_s, o.input_mtuples_per_s(), o.input_gbps(), o.memory_traffic_gbps(), r.local_access_ratio());
    std::cout << fmt::format("  energy {:.3g} J (DRAM {:.3g}, remote {:.3g}, links {:.3g}, DRAM background {:.3g}) on the {}\n", energy.total_j(),
                             energy.dram_j, energy.remote_j, energy.link_j, energy.background_j, o.energy_basis);
    print_uncertainty(o.spec, u);
    for (const sim::DataPlacement& d : o.report.datasets) {
      std::cout << fmt::format("  {}: {:.3g} GB on {}\n", d.name, d.size_bytes / 1e9, spread_text(t, d.spread()));
    }
    for (const std::string& note : o.report.notes) std::cout << "  " << note << "\n";
    if (const std::string basis = sim::allocator_cost_basis(o.spec); !basis.empty()) std::cout << "  " << basis << "\n";
  }
  if (seed_times.size() > 1) {
    std::vector<double> sorted = seed_times;
    std::sort(sorted.begin(), sorted.end());
    std::cout << fmt::format("  unpinned threads over {} seeds: time min {:.4g} s, median {:.4g} s, max {:.4g} s\n",
                             sorted.size(), sorted.front(), sorted[sorted.size() / 2], sorted.back());
  }
  std::cout << "  busiest resource: " << busiest_text(r) << " (mean utilisation over the run)\n";
  std::cout << "  bottleneck: " << bottleneck_text(r) << " (saturated)\n\n";
  TextTable table({"resource", "capacity GB/s", "mean util %", "saturated %"});
  for (std::size_t i = 0; i < r.resources.size(); ++i) {
    table.add_row({r.resources[i].name, fmt::format("{:g}", r.resources[i].capacity_bytes_per_s / 1e9),
                   fmt::format("{:.1f}", 100.0 * r.mean_utilisation[i]), fmt::format("{:.1f}", 100.0 * r.saturated_fraction[i])});
  }
  std::cout << table.render();
  if (steps) {
    std::cout << "\n";
    TextTable per_step({"step", "begin s", "end s", "GB", "busiest", "util %"});
    for (const sim::StepStats& s : r.steps) {
      int best = 0;
      for (std::size_t i = 0; i < s.mean_utilisation.size(); ++i) {
        if (s.mean_utilisation[i] > s.mean_utilisation[best]) best = static_cast<int>(i);
      }
      per_step.add_row({std::to_string(s.step), fmt::format("{:.4g}", s.begin_s), fmt::format("{:.4g}", s.end_s),
                        fmt::format("{:.3g}", s.bytes / 1e9), r.resources.empty() ? "-" : r.resources[best].name,
                        fmt::format("{:.1f}", s.mean_utilisation.empty() ? 0.0 : 100.0 * s.mean_utilisation[best])});
    }
    std::cout << per_step.render();
  }
}

// The numbers of "A:B:C" (1 to 3 of them); `usage` is the error for anything else.
std::vector<double> colon_numbers(const std::string& text, const std::string& usage) {
  std::vector<double> parts;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t colon = text.find(':', pos);
    const std::string part = text.substr(pos, colon == std::string::npos ? std::string::npos : colon - pos);
    try {
      std::size_t used = 0;
      parts.push_back(std::stod(part, &used));
      if (used != part.size()) throw std::invalid_argument(part);
    } catch (const std::exception&) {
      throw std::invalid_argument(usage);
    }
    if (colon == std::string::npos) break;
    pos = colon + 1;
  }
  if (parts.empty() || parts.size() > 3) throw std::invalid_argument(usage);
  return parts;
}

// "1:32" or "1:32:4" or "8".
std::vector<int> parse_thread_range(const std::string& text, int max_threads) {
  const std::string usage = "--threads \"" + text + "\": expected N, FIRST:LAST or FIRST:LAST:STEP";
  const std::vector<double> parts = colon_numbers(text, usage);
  for (double p : parts) {
    if (p != std::floor(p) || p > 1e6) throw std::invalid_argument(usage);
  }
  const int first = static_cast<int>(parts[0]);
  const int last = parts.size() > 1 ? static_cast<int>(parts[1]) : first;
  const int step = parts.size() > 2 ? static_cast<int>(parts[2]) : 1;
  if (first < 1 || last < first || step < 1) throw std::invalid_argument("--threads \"" + text + "\": need 1 <= FIRST <= LAST and STEP >= 1");
  if (last > max_threads) {
    throw std::invalid_argument("--threads \"" + text + "\": the machine has " + std::to_string(max_threads) + " hardware threads");
  }
  std::vector<int> out;
  for (int n = first; n <= last; n += step) out.push_back(n);
  return out;
}

// "FIRST:LAST:FACTOR" (numbers may use exponents): FIRST, FIRST*FACTOR, ... up to LAST.
std::vector<double> parse_factor_range(const std::string& text) {
  const std::string usage = "--groups-per-partition \"" + text + "\": expected FIRST:LAST:FACTOR, e.g. 10:1e7:10";
  const std::vector<double> parts = colon_numbers(text, usage);
  if (parts.size() != 3 || !(parts[0] >= 1.0) || parts[1] < parts[0] || !(parts[2] > 1.0)) throw std::invalid_argument(usage);
  std::vector<double> out;
  for (double g = parts[0]; g <= parts[1] * (1 + 1e-9) && out.size() < 100; g *= parts[2]) out.push_back(g);
  return out;
}

}  // namespace

void register_sim_commands(CLI::App& app) {
  {
    auto o = std::make_shared<WorkloadOptions>();
    auto json = std::make_shared<bool>(false);
    auto steps = std::make_shared<bool>(false);
    auto timeline = std::make_shared<bool>(false);
    auto out = std::make_shared<std::string>();
    CLI::App* predict = app.add_subcommand("predict", "Simulate one workload on a machine: time, bandwidth, utilisation of every link and memory controller");
    o->add_common(predict);
    o->add_algorithm(predict);
    o->add_allocator(predict);
    predict->add_option("--threads", o->threads, "Threads (default: one per core)");
    predict->add_flag("--steps", *steps, "Print per-step statistics");
    auto phases = std::make_shared<bool>(false);
    predict->add_flag("--phases", *phases, "Print the thread-seconds per phase (read input, update table, move state, ...)");
    predict->add_flag("--json", *json, "Print JSON (per-resource and per-step utilisation)");
    predict->add_flag("--timeline", *timeline, "With --json: include the full utilisation timeline");
    predict->add_option("--out", *out, "Write the JSON to this file (atomically) instead of standard output");
    auto seeds = std::make_shared<int>(5);
    predict->add_option("--seeds", *seeds, "--placement none: simulate this many seeds and report the spread")->capture_default_str();
    auto samples = std::make_shared<int>(64);
    predict->add_option("--interval-samples", *samples,
                        "Samples of the uncertain costs for the 90 % interval (0: no interval)")
        ->capture_default_str();
    predict->callback([o, json, steps, timeline, out, seeds, samples, phases] {
      const model::Topology t = find_topology(o->topology);
      const sim::WorkloadSpec spec = o->spec(t, o->threads);
      if (*samples < 0 || *samples == 1) throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
      const Outcome outcome = simulate(t, spec, *timeline || *steps || *json);
      const sim::CostBasis basis = o->cost_basis(t);
      const PredictionUncertainty uncertainty = uncertainty_of(t, spec, basis, *samples);
      std::vector<double> seed_times{outcome.result.time_s};
      if (spec.placement.kind == sim::PlacementKind::kNone) {
        if (*seeds < 1) throw std::invalid_argument("--seeds must be >= 1");
        for (int k = 1; k < *seeds; ++k) {
          sim::WorkloadSpec other = spec;
          other.placement.seed = spec.placement.seed + static_cast<unsigned long long>(k);
          seed_times.push_back(simulate(t, other, false).result.time_s);
        }
      }
      if (*json || !out->empty()) {
        Json detail = detail_json(outcome, *timeline);
        detail["memory_policy"] = sim::memory_policy_name(spec.memory, t);
        if (seed_times.size() > 1) detail["time_s_over_seeds"] = seed_times;
        if (*phases) detail["phases"] = phases_json(outcome.result);
        Json datasets = Json::array();
        for (const sim::DataPlacement& d : outcome.report.datasets) {
          Json spread = Json::object();
          for (const model::NodeShare& s : d.spread()) spread[t.nodes[s.node].id] = s.fraction;
          datasets.push_back(Json{{"name", d.name}, {"bytes", d.size_bytes}, {"nodes", spread}});
        }
        detail["datasets"] = datasets;
        detail["uncertainty"] = uncertainty_json(uncertainty, basis, sim::is_shuffle_family(spec.kind) ? "input_gbps" : "input_mtuples_per_s");
        const std::string text = detail.dump(2) + "\n";
        if (out->empty()) {
          std::cout << text;
        } else {
          model::write_file_atomically(*out, text);
        }
      } else {
        print_predict(t, outcome, *steps, seed_times, uncertainty);
        if (*phases) std::cout << "\n" << phases_text(outcome.result);
      }
    });
  }
  {
    auto o = std::make_shared<WorkloadOptions>();
    auto json = std::make_shared<bool>(false);
    auto policies = std::make_shared<bool>(false);
    CLI::App* compare = app.add_subcommand(
        "compare", "Variants side by side: shuffle algorithms and migration, partitioning strategies, or placement policies");
    o->add_common(compare);
    o->add_algorithm(compare);
    compare->add_option("--threads", o->threads, "Threads (default: one per core)");
    compare->add_flag("--policies", *policies, "Operators: memory policies side by side (with the local access ratio)");
    compare->add_flag("--json", *json, "Print JSON");
    auto samples = std::make_shared<int>(64);
    compare->add_option("--interval-samples", *samples,
                        "Samples of the uncertain costs for each variant's 90 % interval (0: no intervals)")
        ->capture_default_str();
    auto phases = std::make_shared<bool>(false);
    compare->add_flag("--phases", *phases, "Also print each variant's share of thread-seconds per phase");
    compare->callback([o, json, policies, samples, phases] {
      if (*samples < 0 || *samples == 1) throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
      const model::Topology t = find_topology(o->topology);
      const sim::WorkloadSpec base = o->spec(t, o->threads);
      std::vector<sim::WorkloadSpec> runs;
      if (*policies) {
        if (sim::is_shuffle_family(base.kind)) {
          throw std::invalid_argument("--policies compares memory policies of operator workloads; a shuffle's buffers are local by definition");
        }
        std::vector<std::string> texts = {"first-touch", "first-touch:loader", "localalloc", "interleave"};
        for (model::NodeIndex n : t.numa_nodes()) {
          if (t.nodes[n].has_memory()) {
            texts.push_back("preferred:" + t.nodes[n].id);
            break;
          }
        }
        for (const std::string& text : texts) {
          sim::WorkloadSpec s = base;
          s.memory = sim::parse_memory_policy(text, t);
          runs.push_back(s);
        }
      } else if (sim::is_shuffle_family(base.kind) || base.kind == sim::WorkloadKind::kPartitionedAggregation ||
                 base.kind == sim::WorkloadKind::kSortMergeJoin) {
        runs = sim::algorithm_variants(base);
      } else {
        for (const char* placement : {"dense", "sparse", "shared", "random", "none"}) {
          sim::WorkloadSpec s = base;
          s.placement = sim::parse_placement(placement);
          s.placement.seed = base.placement.seed;
          s.placement.os_move_probability = base.placement.os_move_probability;
          runs.push_back(s);
        }
      }
      Json rows = Json::array();
      std::vector<std::string> names;
      std::vector<sim::SimulationResult> results;
      const bool operators = !sim::is_shuffle_family(base.kind);
      TextTable table(with_rate_columns({"variant", "memory", "threads"}, operators,
                                        {"90 % interval", "time s", "LAR", "busiest (mean util)", "bottleneck (saturated)"}));
      const sim::CostBasis basis = o->cost_basis(t);
      std::vector<std::string> rested_on;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const sim::WorkloadSpec& s = runs[i];
        const Outcome outcome = simulate(t, s, false);
        const PredictionUncertainty u = uncertainty_of(t, s, basis, *samples);
        for (const std::string& name : u.depends_on) {
          if (std::find(rested_on.begin(), rested_on.end(), name) == rested_on.end()) rested_on.push_back(name);
        }
        Json row = summary_json(outcome);
        row["uncertainty"] = uncertainty_json(u, basis, operators ? "input_mtuples_per_s" : "input_gbps");
        // A shuffle's buffers live with their threads by definition: no memory policy applies.
        const std::string memory = operators ? sim::memory_policy_name(s.memory, t) : "-";
        if (operators) row["memory_policy"] = memory;
        if (*phases) row["phases"] = phases_json(outcome.result);
        names.push_back(label(s));
        results.push_back(outcome.result);
        rows.push_back(row);
        table.add_row(with_rates({label(s), memory, sim::placement_name(s.placement)}, outcome, operators,
                                 {u.samples > 0 ? fmt::format("{:.4g} - {:.4g} {}", u.rate.low, u.rate.high,
                                                              operators ? "Mtuples/s" : "GB/s")
                                                : "-",
                                  fmt::format("{:.4g}", outcome.result.time_s), fmt::format("{:.3f}", outcome.result.local_access_ratio()),
                                  busiest_text(outcome.result), bottleneck_text(outcome.result)}));
      }
      if (*json) {
        std::cout << Json{{"topology", t.name}, {"threads", base.threads}, {"costs", sim::cost_basis_summary(basis, rested_on)},
                          {"runs", rows}}
                         .dump(2)
                  << "\n";
      } else {
        std::cout << fmt::format("{}: {} on {} threads\n", t.name, sim::workload_kind_name(base.kind), base.threads)
                  << table.render() << sim::cost_basis_summary(basis, rested_on)
                  << (*samples > 0 ? fmt::format("; intervals: {} samples of each variant's uncertain costs\n", *samples) : "\n");
        if (*phases) std::cout << "\n" << phases_by_variant_text(names, results);
      }
    });
  }
  {
    auto o = std::make_shared<WorkloadOptions>();
    auto range = std::make_shared<std::string>();
    auto csv = std::make_shared<bool>(false);
    auto json = std::make_shared<bool>(false);
    auto groups_range = std::make_shared<std::string>();
    CLI::App* sweep = app.add_subcommand(
        "sweep",
        "Every variant as the thread count grows (shuffle; sort-merge-join: naive, ring and the designed order, with the time "
        "per phase), or as the groups per partition grow (partitioned-aggregation)");
    o->add_common(sweep);
    sweep->add_option("--workload", o->workload, "shuffle, partitioned-aggregation or sort-merge-join")
        ->check(CLI::IsMember({"shuffle", "partitioned-aggregation", "sort-merge-join"}))
        ->capture_default_str();
    sweep->add_option("--threads", *range, "Thread counts: N, FIRST:LAST or FIRST:LAST:STEP")->required();
    sweep->add_option("--sync", o->sync,
                      "sort-merge-join, partitioned-aggregation: tight (barrier per step) or loose (shuffles sweep both)")
        ->capture_default_str();
    sweep->add_option("--groups-per-partition", *groups_range,
                      "partitioned-aggregation: FIRST:LAST:FACTOR groups per partition (e.g. 10:1e7:10)");
    sweep->add_flag("--csv", *csv, "Print CSV");
    sweep->add_flag("--json", *json, "Print JSON");
    auto samples = std::make_shared<int>(64);
    sweep->add_option("--interval-samples", *samples,
                      "Samples of the uncertain costs for every row's 90 % interval and the crossover's (0: none)")
        ->capture_default_str();
    sweep->callback([o, range, csv, json, groups_range, samples] {
      const model::Topology t = find_topology(o->topology);
      if (*samples < 0 || *samples == 1) throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
      const bool partitioned = o->workload == "partitioned-aggregation";
      const bool sort_merge = o->workload == "sort-merge-join";
      const bool operators = partitioned || sort_merge;
      std::vector<SortMergePoint> sort_merge_points;
      std::vector<double> group_counts{0.0};  // 0: keep --groups
      if (partitioned && !groups_range->empty()) group_counts = parse_factor_range(*groups_range);
      const sim::CostBasis basis = o->cost_basis(t);
      // One set of uncertain costs for the whole sweep (every cost a variant at the first point
      // rests on), drawn once: sample k is the same machine in every row, so crossovers can be
      // taken per sample.
      std::vector<std::string> uncertain;
      {  // the costs that matter at the sweep's corners: a cost may matter only at large sizes
        const std::vector<int> counts = parse_thread_range(*range, t.total_hardware_threads());
        for (int n : {counts.front(), counts.back()}) {
          for (double g : {group_counts.front(), group_counts.back()}) {
            sim::WorkloadSpec corner = o->spec(t, n);
            if (g > 0.0) corner.data.keys.groups = g * n;
            for (const sim::WorkloadSpec& s : sim::algorithm_variants(corner)) {
              for (const std::string& name : sim::uncertain_costs(basis, sim::costs_depended_on(t, s, parallel_for))) {
                if (std::find(uncertain.begin(), uncertain.end(), name) == uncertain.end()) uncertain.push_back(name);
              }
            }
          }
        }
      }
      const int drawn = uncertain.empty() ? 0 : *samples;
      // times[n][variant][group point]: the point prediction, then each sample's.
      SweepTimes times;
      Json rows = Json::array();
      std::string csv_text =
          "threads,groups_per_partition,workload,strategy,algorithm,sync,time_s,input_gbps,input_mtuples_per_s,memory_traffic_gbps,"
          "local_access_ratio,busiest_resource,busiest_mean_utilisation\n";
      TextTable table(with_rate_columns({"threads", "groups/partition", "variant"}, operators,
                                        {operators ? "Mtuples/s 90 %" : "GB/s 90 %", "LAR", "busiest resource"}));
      for (int n : parse_thread_range(*range, t.total_hardware_threads())) {
        for (double per_partition : group_counts) {
          sim::WorkloadSpec base = o->spec(t, n);
          if (per_partition > 0.0) base.data.keys.groups = per_partition * n;
          const std::vector<sim::WorkloadSpec> runs = sort_merge ? sort_merge_variants(t, base) : sim::algorithm_variants(base);
          const double groups_per_partition = base.data.keys.groups / n;
          for (std::size_t v = 0; v < runs.size(); ++v) {
            const sim::WorkloadSpec& s = runs[v];
            const Outcome outcome = simulate(t, s, false);
            Json row = summary_json(outcome);
            if (partitioned) row["groups_per_partition"] = groups_per_partition;
            if (sort_merge) {
              row["sort_merge_phases"] = sim::sort_merge_phases_name(s.sort_merge_phases);
              row["phases"] = phases_json(outcome.result);
              const char* order = s.algorithm == sim::ShuffleAlgorithm::kScheduled ? "designed" : s.algorithm == sim::ShuffleAlgorithm::kRing ? "ring" : "naive";
              sort_merge_points.push_back({n, order, outcome.result});
            }
            std::vector<double> sample_times;
            std::vector<double> sample_rates;
            if (drawn > 0) {
              sim::IntervalOptions options;
              options.samples = drawn;
              const std::vector<sim::WorkloadSpec> drawn_specs = sim::cost_samples(s, basis, uncertain, options);
              sample_times.assign(drawn_specs.size(), 0.0);
              sample_rates.assign(drawn_specs.size(), 0.0);
              parallel_for(drawn_specs.size(), [&](std::size_t k) {
                const sim::SimulationResult r = simulate(t, drawn_specs[k], false).result;
                sample_times[k] = r.time_s;
                sample_rates[k] = headline_rate(drawn_specs[k], r);
              });
              const sim::Interval rate = sim::interval_of(sample_rates);
              row["rate_interval"] = Json{{"median", rate.median}, {"p5", rate.low}, {"p95", rate.high}};
            }
            times.add(n, label(s), groups_per_partition, outcome.result.time_s, sample_times);
            rows.push_back(row);
            csv_text += fmt::format("{},{},{},{},{},{},{:.9g},{:.6g},{:.6g},{:.6g},{:.6f},{},{:.6f}\n", n,
                                    partitioned ? fmt::format("{:g}", groups_per_partition) : std::string(),
                                    sim::workload_kind_name(s.kind), partitioned ? sim::strategy_name(s.strategy) : std::string(),
                                    sim::algorithm_name(s.algorithm), sim::sync_name(s.sync), outcome.result.time_s,
                                    outcome.input_gbps(), outcome.input_mtuples_per_s(), outcome.memory_traffic_gbps(),
                                    outcome.result.local_access_ratio(),
                                    model::csv_field(row["busiest_resource"].get<std::string>()),
                                    row["busiest_mean_utilisation"].get<double>());
            table.add_row(with_rates({std::to_string(n), partitioned ? fmt::format("{:g}", groups_per_partition) : "-", label(s)},
                                     outcome, operators,
                                     {row.contains("rate_interval")
                                          ? fmt::format("{:.4g} - {:.4g}", row["rate_interval"]["p5"].get<double>(),
                                                        row["rate_interval"]["p95"].get<double>())
                                          : "-",
                                      fmt::format("{:.3f}", outcome.result.local_access_ratio()), busiest_text(outcome.result)}));
          }
        }
      }
      // The study's question (Li et al.): up to which state does ring migration beat the ring shuffle?
      std::vector<SweepCrossover> crossovers;
      if (partitioned && group_counts.size() > 1) {
        for (int n : times.thread_counts()) {
          SweepCrossover c = times.crossover(n, "partitioned-aggregation migration ring tight",
                                             "partitioned-aggregation shuffle ring tight");
          c.a = "ring migration";
          c.b = "ring shuffle";
          c.x_name = "groups per partition";
          crossovers.push_back(c);
        }
      }
      if (*csv) {
        std::cout << csv_text;
      } else if (*json) {
        Json out{{"topology", t.name}, {"costs", sim::cost_basis_summary(basis, uncertain)}, {"samples", drawn}, {"runs", rows}};
        Json list = Json::array();
        for (const SweepCrossover& c : crossovers) list.push_back(crossover_json(c));
        out["crossovers"] = list;
        std::cout << out.dump(2) << "\n";
      } else {
        std::cout << table.render();
        if (sort_merge) std::cout << sort_merge_phase_table(sort_merge_points);
        if (drawn > 0) {
          std::cout << fmt::format("intervals: {} samples of {} uncertain costs; {}\n", drawn, uncertain.size(),
                                   sim::cost_basis_summary(basis, uncertain));
        }
        for (const SweepCrossover& c : crossovers) std::cout << crossover_text(c) << "\n";
      }
    });
  }
}

}  // namespace numatwin::cli
