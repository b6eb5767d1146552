#include "commands/schedule_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/shuffle/schedule_file.hpp"
#include "report/migration_schedule_text.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

// GB/s shuffled, as the fluid model predicts it.
double shuffled_gbps(const model::Topology& t, const sim::WorkloadSpec& spec) {
  sim::Simulation simulation(t);
  sim::SimulationOptions quiet;
  quiet.record_timeline = false;
  const sim::SimulationResult r = simulation.run(sim::build_shuffle_plan(t, spec), quiet);
  return spec.total_bytes / r.time_s / 1e9;
}

// A migration reads every piece on its own node (sim/search/migration_schedule.hpp): print the bound no
// order beats, the ring's times and which order runs.
void print_migration(const model::Topology& t, const sim::WorkloadSpec& spec, const sim::MigrationBound& b, bool json) {
  const std::string verdict = migration_schedule_verdict(b);
  if (json) {
    std::cout << Json{{"topology", t.name},
                      {"workload", sim::workload_kind_name(spec.kind)},
                      {"threads", spec.threads},
                      {"placement", sim::placement_name(spec.placement)},
                      {"bytes", spec.total_bytes},
                      {"ring_tight_s", b.ring_tight_s},
                      {"ring_loose_s", b.ring_loose_s},
                      {"data_s", b.data_s},
                      {"resource_s", b.resource_s},
                      {"bound_s", b.bound_s},
                      {"tight_gap", b.tight_gap()},
                      {"loose_gap_to_resource_bound", b.loose_gap()},
                      {"designed_tight_s", b.has_design ? Json(b.designed_tight_s) : Json(nullptr)},
                      {"designed_loose_s", b.has_design ? Json(b.designed_loose_s) : Json(nullptr)},
                      {"designed_kept", b.designed_kept()},
                      {"designed_kept_loose", b.designed_kept_loose()},
                      {"chosen_gap", b.chosen_gap()},
                      {"ring_binds", b.ring_binds},
                      {"fewest_binds", b.fewest_binds},
                      {"schedule", verdict}}
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format("{}: {} threads ({}), {} of {:g} GB in {} x {} pieces, state {:g} B, re-binding {:g} s\n", t.name,
                           spec.threads, sim::placement_name(spec.placement), sim::workload_kind_name(spec.kind),
                           spec.total_bytes / 1e9, spec.threads, spec.threads, spec.state_bytes, spec.migration_overhead_seconds);
  TextTable table({"figure", "seconds", "what"});
  table.add_row({"ring tight", fmt::format("{:.6g}", b.ring_tight_s), "fluid model"});
  table.add_row({"ring loose", fmt::format("{:.6g}", b.ring_loose_s), "fluid model"});
  if (b.has_design) {
    table.add_row({"designed tight", fmt::format("{:.6g}", b.designed_tight_s), "fluid model: blocked order, fewest re-bindings"});
    table.add_row({"designed loose", fmt::format("{:.6g}", b.designed_loose_s), "fluid model"});
  }
  table.add_row({"D", fmt::format("{:.6g}", b.data_s), "tight, state and re-binding free: the same in every order"});
  table.add_row({"R", fmt::format("{:.6g}", b.resource_s), "busiest resource's total load / bandwidth: any order, tight or loose"});
  table.add_row({"bound", fmt::format("{:.6g}", b.bound_s), "max(D, R): no order's tight migration is faster"});
  std::cout << table.render();
  std::cout << fmt::format("tight gap to the bound: ring {:.3f} %, chosen {:.3f} %; re-bindings per thread: ring up to {}, fewest {}\n",
                           100.0 * b.tight_gap(), 100.0 * b.chosen_gap(), b.ring_binds, b.fewest_binds);
  std::cout << "schedule: " << verdict << "\n";
}

// The order `predict --workload migration --algorithm scheduled` runs for the spec's sync (the
// blocked order where the fluid model keeps it, else the ring: sim::scheduled_migration_orders)
// as a schedule file with its workload (docs/shuffle-schedule-format.md), written atomically.
void write_migration_schedule(const model::Topology& t, const sim::WorkloadSpec& spec, const sim::MigrationBound& b,
                              const std::string& path) {
  const bool loose = spec.sync == sim::SyncMode::kLoose;
  shuffle::ScheduleFile file;
  file.workload = spec.kind == sim::WorkloadKind::kMigration ? shuffle::Workload::kMigration : shuffle::Workload::kMigrationCopy;
  file.topology = t.name;
  file.threads = spec.threads;
  for (const sim::PlacedThread& p : sim::place_threads(t, spec.threads, spec.placement)) file.cpus.push_back(p.cpu);
  file.piece_bytes = spec.total_bytes / (static_cast<double>(spec.threads) * spec.threads);
  file.designed = loose ? b.designed_kept_loose() : b.designed_kept();
  file.estimate_s = loose ? (file.designed ? b.designed_loose_s : b.ring_loose_s) : b.chosen_tight_s();
  file.bound_s = loose ? b.resource_s : b.bound_s;
  file.schedule = shuffle::Schedule::from_orders(sim::scheduled_migration_orders(t, spec, b));
  model::write_file_atomically(path, shuffle::schedule_file_text(file));
}

}  // namespace

void register_schedule_command(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto out = std::make_shared<std::string>();
  auto max_swaps = std::make_shared<long long>(200000);
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("schedule", "Design a shuffle order for the machine and thread placement; compare it with naive, ring and random");
  o->add_common(cmd);
  cmd->add_option("--threads", o->threads, "Threads (default: one per core)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--workload", o->workload,
                  "shuffle, or migration / migration-copy (the bound no order beats, the ring's and the blocked order's times; "
                  "--out writes the order predict --algorithm scheduled runs)")
      ->capture_default_str();
  cmd->add_option("--max-swaps", *max_swaps, "Cycle swaps the local search tries at most")->capture_default_str();
  cmd->add_option("--sync", o->sync,
                  "Migration: the order --out writes is the one predict --algorithm scheduled runs for this sync (tight or loose)")
      ->capture_default_str();
  cmd->add_option("--out", *out, "Write the schedule as JSON (a shuffle's designed order, or a migration's scheduled order)");
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([o, out, max_swaps, json] {
    const model::Topology t = model::find_topology(o->topology);
    sim::WorkloadSpec spec = o->spec(t, o->threads);
    if (*max_swaps < 0) throw std::invalid_argument("--max-swaps must be >= 0");
    if (spec.kind == sim::WorkloadKind::kMigration || spec.kind == sim::WorkloadKind::kMigrationAndCopy) {
      const sim::MigrationBound b = sim::migration_bound(t, spec);
      print_migration(t, spec, b, *json);
      if (!out->empty()) {
        write_migration_schedule(t, spec, b, *out);
        if (!*json) std::cout << "wrote the " << sim::sync_name(spec.sync) << " order to " << *out << "\n";
      }
      return;
    }
    if (spec.kind != sim::WorkloadKind::kShuffle) throw std::invalid_argument("--workload " + o->workload + ": expected shuffle, migration or migration-copy");
    sim::check_workload(t, spec);
    const std::vector<sim::PlacedThread> placed = sim::place_threads(t, spec.threads, spec.placement);
    const double piece = spec.total_bytes / (static_cast<double>(spec.threads) * spec.threads);
    sim::ScheduleOptions options;
    options.max_swaps = *max_swaps;
    options.seed = spec.seed;
    const auto start = std::chrono::steady_clock::now();
    const sim::ScheduleDesign d = sim::design_schedule(t, placed, piece, options);
    const double design_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    struct Row {
      std::string order;
      double tight = 0.0;
      double loose = 0.0;
    };
    std::vector<Row> rows;
    ElapsedProgress progress("predicting the orders");  // 8 simulations; loose ones of many threads take long
    for (sim::ShuffleAlgorithm a : {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing, sim::ShuffleAlgorithm::kCoordinatedRandom,
                                    sim::ShuffleAlgorithm::kScheduled}) {
      const std::string name = a == sim::ShuffleAlgorithm::kScheduled ? "designed" : sim::algorithm_name(a);
      progress.update(static_cast<int>(2 * rows.size()), 8, name + " tight");
      sim::WorkloadSpec s = spec;
      s.algorithm = a;
      if (a == sim::ShuffleAlgorithm::kScheduled) s.producer_orders = d.schedule.producer_orders();
      Row row{a == sim::ShuffleAlgorithm::kScheduled ? "designed" : sim::algorithm_name(a), 0.0, 0.0};
      s.sync = sim::SyncMode::kTight;
      row.tight = shuffled_gbps(t, s);
      progress.update(static_cast<int>(2 * rows.size()) + 1, 8, name + " loose");
      s.sync = sim::SyncMode::kLoose;
      row.loose = shuffled_gbps(t, s);
      rows.push_back(row);
    }
    progress.update(8, 8);
    const bool at_bound = d.design_estimate_s <= d.bound_s * (1.0 + 1e-9);
    // The estimate leaves out the threads' own limits (misses in flight over the loaded latency):
    // the fluid model has the last word. A design it does not find faster than the ring (tight)
    // is not kept; the ring is the schedule then.
    const Row& ring = rows[1];
    Row& designed = rows[3];
    const bool kept = designed.tight > ring.tight * (1.0 + 1e-9);
    sim::ShuffleSchedule chosen = d.schedule;
    std::string verdict;
    if (kept) {
      verdict = fmt::format("the designed order: {:.1f} % faster than the ring (tight) in the fluid model", 100.0 * (designed.tight / ring.tight - 1.0));
    } else {
      chosen = sim::design_schedule(t, placed, piece, sim::ScheduleOptions{0, 0, 1}).schedule;  // the ring
      verdict = at_bound ? "the ring: it already meets the bound of the estimate (the busiest resource's total load over its "
                           "bandwidth), so no order does better under it"
                : d.swaps_kept == 0
                    ? fmt::format("the ring: no cycle swap lowered its estimate ({:.4g} s), {:.1f} % above the bound ({:.4g} s); "
                                  "the search found no better order, not that none exists",
                                  d.ring_estimate_s, 100.0 * (d.ring_estimate_s / d.bound_s - 1.0), d.bound_s)
                    : fmt::format("the ring: the designed order's gain under the estimate ({:.1f} %) did not survive the fluid model "
                                  "({:.2f} vs {:.2f} GB/s tight)",
                                  100.0 * (d.ring_estimate_s / d.design_estimate_s - 1.0), designed.tight, ring.tight);
      designed.order = "designed (not kept)";
    }
    // The bound holds for the fluid model too (no order changes a resource's total load): a
    // tight schedule that reaches it there cannot be beaten by any order.
    const double chosen_gbps = kept ? designed.tight : ring.tight;
    const double chosen_s = spec.total_bytes / (chosen_gbps * 1e9);
    if (chosen_s <= d.bound_s * 1.001) {
      verdict += fmt::format("; it reaches the bound in the fluid model too ({:.4g} s against {:.4g} s): no order does better",
                             chosen_s, d.bound_s);
    } else {
      const Row* best = nullptr;
      bool best_loose = false;
      for (const Row& r : rows) {
        for (const bool loose : {false, true}) {
          const double gbps = loose ? r.loose : r.tight;
          if (gbps > chosen_gbps * 1.001 && (best == nullptr || gbps > (best_loose ? best->loose : best->tight))) {
            best = &r;
            best_loose = loose;
          }
        }
      }
      if (best != nullptr) {
        verdict += fmt::format(
            "; but {} {} is faster in the fluid model ({:.2f} vs {:.2f} GB/s): the threads' own limits, which the estimate "
            "leaves out, decide there",
            best->order, best_loose ? "loose" : "tight", best_loose ? best->loose : best->tight, chosen_gbps);
      }
    }
    if (!out->empty()) {  // docs/shuffle-schedule-format.md; libnumatwin-shuffle reads it back
      shuffle::ScheduleFile file;
      file.topology = t.name;
      file.threads = spec.threads;
      for (const sim::PlacedThread& p : placed) file.cpus.push_back(p.cpu);
      file.piece_bytes = piece;
      file.designed = kept;
      file.estimate_s = kept ? d.design_estimate_s : d.ring_estimate_s;
      file.bound_s = d.bound_s;
      file.schedule.steps = chosen.steps;
      model::write_file_atomically(*out, shuffle::schedule_file_text(file));
    }
    if (*json) {
      Json table = Json::array();
      for (const Row& r : rows) table.push_back(Json{{"order", r.order}, {"tight_gbps", r.tight}, {"loose_gbps", r.loose}});
      std::cout << Json{{"topology", t.name},
                        {"threads", spec.threads},
                        {"placement", sim::placement_name(spec.placement)},
                        {"bytes", spec.total_bytes},
                        {"design_seconds", design_s},
                        {"swaps_tried", d.swaps_tried},
                        {"swaps_kept", d.swaps_kept},
                        {"ring_estimate_s", d.ring_estimate_s},
                        {"design_estimate_s", d.design_estimate_s},
                        {"bound_s", d.bound_s},
                        {"designed_kept", kept},
                        {"schedule", verdict},
                        {"orders", table}}
                       .dump(2)
                << "\n";
      return;
    }
    std::cout << fmt::format("{}: {} threads ({}), {:g} GB shuffled in {} x {} pieces\n", t.name, spec.threads,
                             sim::placement_name(spec.placement), spec.total_bytes / 1e9, spec.threads, spec.threads);
    std::cout << fmt::format("design: {} of {} cycle swaps kept in {:.3f} s; tight estimate (sum over steps of the busiest resource's "
                             "load / bandwidth) ring {:.4g} s -> designed {:.4g} s; bound {:.4g} s{}\n",
                             d.swaps_kept, d.swaps_tried, design_s, d.ring_estimate_s, d.design_estimate_s, d.bound_s,
                             at_bound ? " (met: no order does better under the estimate)" : "");
    TextTable table({"order", "tight GB/s", "loose GB/s"});
    for (const Row& r : rows) table.add_row({r.order, fmt::format("{:.2f}", r.tight), fmt::format("{:.2f}", r.loose)});
    std::cout << "predicted by the fluid model:\n" << table.render();
    std::cout << "schedule: " << verdict << "\n";
    if (!out->empty()) std::cout << "wrote the schedule to " << *out << "\n";
  });
}

}  // namespace numatwin::cli
