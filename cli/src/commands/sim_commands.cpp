#include "commands/sim_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/sim/engine/energy_estimate.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/search/scheduled_orders.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/search/uneven_pieces.hpp"
#include "numatwin/sim/workload/workload_input.hpp"
#include "options/balancing_options.hpp"
#include "report/migration_schedule_text.hpp"
#include "run/parallel_for.hpp"
#include "report/phases_text.hpp"
#include "report/prediction_intervals.hpp"
#include "options/range_options.hpp"
#include "run/sim_outcome.hpp"
#include "run/sort_merge_sweep.hpp"
#include "report/sweep_crossover.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "options/workload_options.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string spread_text(const model::Topology& t, const std::vector<model::NodeShare>& spread) {
  std::string out;
  for (const model::NodeShare& s : spread) out += fmt::format("{}{} {:.0f}%", out.empty() ? "" : ", ", t.nodes[s.node].id, 100.0 * s.fraction);
  return out;
}

PredictionUncertainty uncertainty_of(const model::Topology& t, const sim::WorkloadSpec& spec, const sim::CostBasis& basis,
                                     int samples) {
  return sim::prediction_uncertainty(t, spec, basis, samples, headline_rate, parallel_for);
}

// The interval line says what the headline's point is beside the samples' median, and why when
// the point lies outside its interval (sim/uncertainty/point_and_interval.hpp).
void print_uncertainty(const sim::WorkloadSpec& spec, const PredictionUncertainty& u, const sim::CostBasis& basis,
                       const sim::SimulationResult& point) {
  if (u.samples > 0) {
    const bool shuffle = sim::is_shuffle_family(spec.kind);
    const char* rate_unit = shuffle ? " GB/s" : " M tuples/s";
    std::cout << fmt::format("  90 % interval ({} samples over {} uncertain cost{}): median time {}, {}; the figures above are the "
                             "prediction at the costs' own values\n",
                             u.samples, u.uncertain.size(), u.uncertain.size() == 1 ? "" : "s", interval_text(u.time_s, " s"),
                             interval_text(u.rate, rate_unit));
    const sim::PointVersusInterval time = sim::point_versus_interval(point.time_s, u.time_s, basis, u.uncertain);
    if (time.side != sim::PointSide::kInside) std::cout << "  " << sim::point_outside_note(time, "time", " s") << "\n";
  } else if (!u.uncertain.empty()) {
    std::cout << "  no interval: sampling is off (--interval-samples 0)\n";
  } else if (!u.depends_on.empty()) {
    std::cout << "  no interval: every cost it rests on is exact (given)\n";
  } else {
    std::cout << "  no interval: the figure rests on no operator cost, only on the topology's bandwidths and latencies, "
                 "which are taken as exact\n";
    if (sim::is_shuffle_family(spec.kind)) {
      std::cout << "  and on pieces of equal size: hashed pieces are not, and loose rings moved by -8.5 to +17.5 % with "
                   "them (--piece-samples N simulates uneven ones; docs/simulation-speed.md)\n";
    }
    return;
  }
  std::cout << "  " << u.basis << "\n";
}

void print_predict(const model::Topology& t, const Outcome& o, bool steps, const std::vector<double>& seed_times,
                   const PredictionUncertainty& u, const sim::CostBasis& basis) {
  const sim::SimulationResult& r = o.result;
  if (sim::is_shuffle_family(o.spec.kind)) {
    std::cout << fmt::format("{} on {} threads ({}), {:g} GB\n", label(o.spec), o.spec.threads,
                             sim::placement_name(o.spec.placement), o.spec.total_bytes / 1e9);
    std::cout << fmt::format("  time {:.4g} s, {:.2f} GB/s shuffled (input), memory traffic {:.2f} GB/s, local access ratio {:.3f}, {} events\n",
                             r.time_s, o.input_gbps(), o.memory_traffic_gbps(), r.local_access_ratio(), r.events);
    print_uncertainty(o.spec, u, basis, r);
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
    print_uncertainty(o.spec, u, basis, r);
    for (const sim::DataPlacement& d : o.report.datasets) {
      std::cout << fmt::format("  {}: {:.3g} GB on {}\n", d.name, d.size_bytes / 1e9, spread_text(t, d.spread()));
    }
    for (const std::string& note : o.report.notes) std::cout << "  " << note << "\n";
    if (const std::string allocator = sim::allocator_cost_basis(o.spec, t); !allocator.empty()) std::cout << "  " << allocator << "\n";
    std::cout << "  " << pages_text(t, o.spec.huge_pages) << "\n";
  }
  if (seed_times.size() > 1) {
    std::vector<double> sorted = seed_times;
    std::sort(sorted.begin(), sorted.end());
    std::cout << fmt::format("  unpinned threads over {} seeds: time min {:.4g} s, median {:.4g} s, max {:.4g} s\n",
                             sorted.size(), sorted.front(), sorted[sorted.size() / 2], sorted.back());
  }
  if (const std::string text = placeholders_text(o); !text.empty()) std::cout << "  " << text << "\n";
  std::cout << "  busiest resource: " << busiest_text(r) << " (mean utilisation over the run)\n";
  std::cout << "  bottleneck: " << bottleneck_line(r) << "\n\n";
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
    o->add_huge_pages(predict);
    predict->add_option("--threads", o->threads, "Threads (default: one per core)")->check(CLI::Range(1, 1 << 20));
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
    auto piece_samples = std::make_shared<int>(0);
    predict->add_option("--piece-samples", *piece_samples,
                        "Shuffles: also simulate this many draws of uneven piece sizes, as hashing the elements into "
                        "the pieces makes them (binomial; sim/uneven_pieces.hpp), next to the equal pieces of the "
                        "prediction (0: none)")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    auto balancing = std::make_shared<BalancingOptions>();
    balancing->add_to(predict);
    predict->callback([o, json, steps, timeline, out, seeds, samples, phases, balancing, piece_samples] {
      const model::Topology t = model::find_topology(o->topology);
      const sim::WorkloadSpec spec = o->spec(t, o->threads);
      if (*samples < 0 || *samples == 1) throw std::invalid_argument("--interval-samples must be 0 (off) or >= 2");
      if (*piece_samples > 0 && !sim::is_shuffle_family(spec.kind)) {
        throw std::invalid_argument("--piece-samples is for the shuffles (shuffle, migration, migration-copy), not " +
                                    sim::workload_kind_name(spec.kind));
      }
      const std::optional<sim::UnevenPieces> uneven =
          *piece_samples > 0 ? std::optional(sim::uneven_pieces(t, spec, *piece_samples, parallel_for)) : std::nullopt;
      const bool balance = balancing->on();
      const BalancingOutcome balanced = balance ? simulate_balancing(t, spec, *balancing) : BalancingOutcome{};
      const Outcome outcome = simulate(t, spec, *timeline || *steps || *json);
      const sim::CostBasis basis = o->cost_basis(t);
      const PredictionUncertainty uncertainty = uncertainty_of(t, spec, basis, *samples);
      std::vector<double> seed_times{outcome.result.time_s};
      // --algorithm scheduled for a migration: which order ran and why, with the bound (tight).
      const std::optional<sim::MigrationBound>& migration_schedule = o->migration_bound;
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
        if (*phases && !outcome.result.stages.empty()) detail["stages"] = stages_json(outcome.result);
        Json datasets = Json::array();
        for (const sim::DataPlacement& d : outcome.report.datasets) {
          Json spread = Json::object();
          for (const model::NodeShare& s : d.spread()) spread[t.nodes[s.node].id] = s.fraction;
          datasets.push_back(Json{{"name", d.name}, {"bytes", d.size_bytes}, {"nodes", spread}});
        }
        detail["datasets"] = datasets;
        detail["uncertainty"] = uncertainty_json(uncertainty, basis, sim::is_shuffle_family(spec.kind) ? "input_gbps" : "input_mtuples_per_s",
                                                 outcome.result.time_s, headline_rate(spec, outcome.result));
        if (balance) {
          // The figure asked for is the run with balancing: it heads the JSON as time_s; the rest
          // of this level describes one execution without balancing, and says so.
          detail["time_s"] = balanced.on.total_time_s();
          detail["time_s_basis"] = fmt::format(
              "{} execution{} back to back with automatic NUMA balancing (numa_balancing holds each); every other "
              "figure at this level is one execution without balancing ({:.6g} s)",
              balancing->executions, balancing->executions == 1 ? "" : "s", outcome.result.time_s);
          detail["numa_balancing"] = balancing_json(balanced, *balancing);
        }
        if (migration_schedule) detail["schedule"] = migration_schedule_verdict(*migration_schedule);
        if (uneven) {
          detail["uneven_pieces"] = Json{{"elements_per_piece", uneven->tuples_per_piece},
                                         {"relative_sd", uneven->relative_sd},
                                         {"draws", uneven->time_s.size()},
                                         {"time_s", uneven->time_s},
                                         {"mean_time_s", uneven->mean_s()},
                                         {"min_time_s", uneven->min_s()},
                                         {"max_time_s", uneven->max_s()}};
        }
        const std::string text = detail.dump(2) + "\n";
        if (out->empty()) {
          std::cout << text;
        } else {
          model::write_file_atomically(*out, text);
        }
      } else {
        if (balance) {
          // The run asked for first; then one execution without balancing, for comparison.
          std::cout << balancing_text(balanced, *balancing)
                    << "\none execution without NUMA balancing, for comparison:\n";
        }
        print_predict(t, outcome, *steps, seed_times, uncertainty, basis);
        if (*phases) std::cout << "\n" << phases_text(outcome.result);
        if (migration_schedule) std::cout << "\nschedule: " << migration_schedule_verdict(*migration_schedule) << "\n";
        if (uneven) {
          std::cout << fmt::format(
              "\nuneven pieces (hashing {:.0f} elements into each piece: sd {:.3g} %), {} draws: time {:.4g} s mean [{:.4g}, "
              "{:.4g}], {:+.1f} % against equal pieces ({:.4g} s)\n",
              uneven->tuples_per_piece, 100.0 * uneven->relative_sd, uneven->time_s.size(), uneven->mean_s(), uneven->min_s(),
              uneven->max_s(), 100.0 * (uneven->mean_s() / outcome.result.time_s - 1.0), outcome.result.time_s);
        }
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
    o->add_huge_pages(compare);
    compare->add_option("--threads", o->threads, "Threads (default: one per core)")->check(CLI::Range(1, 1 << 20));
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
      const model::Topology t = model::find_topology(o->topology);
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
        // A shuffle also in the order numatwin designs for the machine and placement
        // (`numatwin schedule`), tight and loose, after coordinated random.
        if (base.kind == sim::WorkloadKind::kShuffle) {
          sim::WorkloadSpec designed = base;
          designed.algorithm = sim::ShuffleAlgorithm::kScheduled;
          designed.producer_orders = base.algorithm == sim::ShuffleAlgorithm::kScheduled
                                         ? base.producer_orders
                                         : sim::scheduled_orders(t, designed).producer_orders;
          auto after = std::find_if(runs.begin(), runs.end(),
                                    [](const sim::WorkloadSpec& s) { return s.kind != sim::WorkloadKind::kShuffle; });
          for (const sim::SyncMode sync : {sim::SyncMode::kLoose, sim::SyncMode::kTight}) {
            designed.sync = sync;
            after = runs.insert(after, designed);
          }
        }
        // Migration and migration & copy also in their scheduled order, tight and loose, after
        // each one's own variants: what `predict --algorithm scheduled` runs for that sync (the
        // blocked order of sim/search/migration_schedule.hpp where the fluid model keeps it, else the
        // ring); none when the nodes in use hold unequal thread counts (no blocked order exists).
        for (const sim::WorkloadKind kind : {sim::WorkloadKind::kMigration, sim::WorkloadKind::kMigrationAndCopy}) {
          const auto last = std::find_if(runs.rbegin(), runs.rend(), [&](const sim::WorkloadSpec& s) { return s.kind == kind; });
          if (last == runs.rend() || sim::blocked_producer_orders(t, *last).empty()) continue;
          sim::WorkloadSpec designed = *last;
          designed.algorithm = sim::ShuffleAlgorithm::kScheduled;
          auto after = last.base();
          for (const sim::SyncMode sync : {sim::SyncMode::kLoose, sim::SyncMode::kTight}) {
            designed.sync = sync;
            designed.producer_orders =
                sim::scheduled_migration_orders(t, designed, sim::migration_bound(t, designed, sync == sim::SyncMode::kLoose));
            after = runs.insert(after, designed);
          }
        }
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
                                        {operators ? "Mtuples/s 90 %" : "GB/s 90 %", "time s", "LAR", "busiest (mean util)", "bottleneck (saturated)"}));
      const sim::CostBasis basis = o->cost_basis(t);
      std::vector<std::string> rested_on;
      std::vector<std::pair<std::string, sim::PointVersusInterval>> outside;  // rates outside their interval
      ElapsedProgress progress("comparing");
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const sim::WorkloadSpec& s = runs[i];
        progress.update(static_cast<int>(i), static_cast<int>(runs.size()), label(s));
        const Outcome outcome = simulate(t, s, false);
        const PredictionUncertainty u = uncertainty_of(t, s, basis, *samples);
        for (const std::string& name : u.depends_on) {
          if (std::find(rested_on.begin(), rested_on.end(), name) == rested_on.end()) rested_on.push_back(name);
        }
        Json row = summary_json(outcome);
        row["uncertainty"] =
            uncertainty_json(u, basis, operators ? "input_mtuples_per_s" : "input_gbps", outcome.result.time_s, headline_rate(s, outcome.result));
        const sim::PointVersusInterval rate_point = sim::point_versus_interval(headline_rate(s, outcome.result), u.rate, basis, u.uncertain);
        if (u.samples > 0 && rate_point.side != sim::PointSide::kInside) outside.emplace_back(label(s), rate_point);
        // A shuffle's buffers live with their threads by definition: no memory policy applies.
        const std::string memory = operators ? sim::memory_policy_name(s.memory, t) : "-";
        if (operators) row["memory_policy"] = memory;
        if (*phases) row["phases"] = phases_json(outcome.result);
        names.push_back(label(s));
        results.push_back(outcome.result);
        rows.push_back(row);
        table.add_row(with_rates({label(s), memory, sim::placement_name(s.placement)}, outcome, operators,
                                 {u.samples > 0 ? interval_cell(rate_point) : "-",
                                  fmt::format("{:.4g}", outcome.result.time_s), fmt::format("{:.3f}", outcome.result.local_access_ratio()),
                                  busiest_text(outcome.result), bottleneck_text(outcome.result)}));
      }
      progress.update(static_cast<int>(runs.size()), static_cast<int>(runs.size()));
      if (*json) {
        std::cout << Json{{"topology", t.name}, {"threads", base.threads}, {"costs", sim::cost_basis_summary(basis, rested_on)},
                          {"pages", pages_text(t, base.huge_pages)},
                          {"runs", rows}}
                         .dump(2)
                  << "\n";
      } else {
        std::cout << fmt::format("{}: {} on {} threads\n", t.name, sim::workload_kind_name(base.kind), base.threads)
                  << table.render() << sim::cost_basis_summary(basis, rested_on)
                  << (*samples > 0 ? fmt::format("; intervals: {} samples of each variant's uncertain costs, the rate's median [5 %, 95 %] "
                                                 "beside its point at the costs' own values\n",
                                                 *samples)
                                   : "\n");
        std::cout << table_point_notes(outside, "rate", operators ? " M tuples/s" : " GB/s");
        std::cout << pages_text(t, base.huge_pages) << "\n";
        if (*phases) std::cout << "\n" << phases_by_variant_text(names, results);
      }
    });
  }
}

}  // namespace numatwin::cli
