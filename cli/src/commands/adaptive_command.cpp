#include "commands/adaptive_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "options/adaptive_overrides.hpp"
#include "io/adaptive_scenario_io.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "numatwin/sim/adaptive/adaptive_engine.hpp"
#include "numatwin/sim/adaptive/adaptive_stealing_calibration.hpp"
#include "report/text_table.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

struct AdaptiveOptions {
  std::string topology;
  std::string scenario;
  bool json = false;
  AdaptiveOverrides overrides;
  double bin_s = 1.0;
  bool calibrate = false;
};

Json calibration_json(const sim::StealingCalibration& cal) {
  Json points = Json::array();
  for (const sim::StealingCalibrationPoint& p : cal.points) {
    points.push_back(Json{{"n", p.power}, {"cycles_per_byte", p.cycles_per_byte}, {"task_gbps", p.task_bytes_per_s / 1e9},
                          {"deny_gbps", p.deny_bytes_per_s / 1e9}, {"allow_gbps", p.allow_bytes_per_s / 1e9}, {"gain", p.gain}});
  }
  Json threshold = std::isfinite(cal.threshold_bytes_per_s) ? Json(cal.threshold_bytes_per_s / 1e9) : Json(nullptr);
  return Json{{"threshold_gbps_per_task", threshold}, {"summary", cal.summary}, {"points", points}};
}

void print_calibration(const sim::StealingCalibration& cal) {
  TextTable table({"n", "cycles/B", "GB/s per task", "deny GB/s", "allow GB/s", "gain"});
  for (const sim::StealingCalibrationPoint& p : cal.points) {
    table.add_row({std::to_string(p.power), fmt::format("{:.3g}", p.cycles_per_byte), fmt::format("{:.3g}", p.task_bytes_per_s / 1e9),
                   fmt::format("{:.4g}", p.deny_bytes_per_s / 1e9), fmt::format("{:.4g}", p.allow_bytes_per_s / 1e9),
                   fmt::format("{:+.1f}%", 100.0 * p.gain)});
  }
  std::cout << table.render() << cal.summary << "\n";
}

// Per query type: queries, mean latency, and per phase the task-seconds per query and the share
// of its bytes read from another socket than the worker's.
Json query_types_json(const sim::AdaptiveResult& r) {
  Json out = Json::array();
  for (const sim::AdaptiveQueryTypeStats& q : r.query_types) {
    Json phases = Json::object();
    for (int ph = 0; ph < sim::kAdaptivePhaseCount; ++ph) {
      const sim::AdaptivePhaseStats& p = q.phases[ph];
      const double per_query = q.queries > 0 ? p.task_seconds / static_cast<double>(q.queries) : 0.0;
      phases[sim::adaptive_phase_name(static_cast<sim::AdaptivePhase>(ph))] =
          Json{{"task_seconds", p.task_seconds}, {"task_seconds_per_query", per_query}, {"tasks", p.tasks}, {"bytes", p.bytes},
               {"remote_bytes", p.remote_bytes}, {"remote_share", p.bytes > 0.0 ? Json(p.remote_bytes / p.bytes) : Json(nullptr)}};
    }
    out.push_back(Json{{"name", q.name}, {"queries", q.queries}, {"queries_per_s", r.duration_s > 0.0 ? static_cast<double>(q.queries) / r.duration_s : 0.0},
                       {"mean_latency_s", q.queries > 0 ? Json(q.latency_s / static_cast<double>(q.queries)) : Json(nullptr)},
                       {"phases", phases}});
  }
  return out;
}

void print_query_types(const sim::AdaptiveResult& r) {
  if (r.query_types.empty()) return;
  std::cout << "\nquery types (task-seconds per query by phase, remote share of each phase's bytes):\n";
  std::vector<std::string> header{"type", "queries", "queries/s", "latency s"};
  for (int ph = 0; ph < sim::kAdaptivePhaseCount; ++ph) header.push_back(sim::adaptive_phase_name(static_cast<sim::AdaptivePhase>(ph)));
  TextTable table(header);
  for (const sim::AdaptiveQueryTypeStats& q : r.query_types) {
    std::vector<std::string> row{q.name, std::to_string(q.queries), fmt::format("{:.4g}", r.duration_s > 0.0 ? static_cast<double>(q.queries) / r.duration_s : 0.0),
                                 q.queries > 0 ? fmt::format("{:.3g}", q.latency_s / static_cast<double>(q.queries)) : std::string("-")};
    for (const sim::AdaptivePhaseStats& p : q.phases) {
      if (p.tasks == 0 || q.queries == 0) {
        row.push_back("-");
        continue;
      }
      row.push_back(fmt::format("{:.3g} s ({:.0f}% remote)", p.task_seconds / static_cast<double>(q.queries),
                                p.bytes > 0.0 ? 100.0 * p.remote_bytes / p.bytes : 0.0));
    }
    table.add_row(row);
  }
  std::cout << table.render();
}

std::string gib(double bytes) { return fmt::format("{:.3g} GiB", bytes / 1073741824.0); }

Json result_json(const model::Topology& t, const sim::AdaptiveScenario& sc, const sim::AdaptiveResult& r, const std::string& threshold_source,
                 const std::optional<sim::StealingCalibration>& cal) {
  Json timeline = Json::array();
  for (const sim::AdaptiveTimelinePoint& p : r.timeline) {
    Json classes = Json::object();
    for (std::size_t c = 0; c < sc.classes.size(); ++c) classes[sc.classes[c].name] = p.class_queries_per_s[c];
    Json memory_gbps = Json::array();
    for (double m : p.socket_memory_bytes_per_s) memory_gbps.push_back(m / 1e9);
    timeline.push_back(Json{{"begin_s", p.begin_s}, {"end_s", p.end_s}, {"queries_per_s", p.queries_per_s},
                            {"gbps", p.bytes_per_s / 1e9}, {"class_queries_per_s", classes}, {"socket_cpu", p.socket_cpu_share},
                            {"socket_memory_gbps", memory_gbps}, {"socket_memory_utilisation", p.socket_memory_utilisation},
                            {"steals", p.steals}});
  }
  Json decisions = Json::array();
  for (const sim::AdaptivePlacerEvent& e : r.placer_events) {
    const sim::PlacerDecision& d = e.decision;
    Json copies = Json::array();
    for (const sim::AdaptiveTableCopy& c : e.copies) copies.push_back(Json{{"table", c.table}, {"bytes_copied", c.bytes}});
    Json after = Json::array();
    for (const sim::AdaptivePart& p : e.parts_after) after.push_back(Json{{"table", p.table}, {"socket", r.sockets[p.socket]}, {"bytes", p.bytes}});
    decisions.push_back(Json{{"decided_s", e.decided_s}, {"done_s", e.done_s < 0.0 ? Json(nullptr) : Json(e.done_s)},
                             {"action", sim::placer_action_name(d.action)}, {"table", e.table},
                             {"group", e.group.empty() ? Json(nullptr) : Json(e.group)},
                             {"from", d.from_socket < 0 ? Json(nullptr) : Json(r.sockets[d.from_socket])},
                             {"to", r.sockets[d.to_socket]}, {"imbalance_before", d.imbalance_before},
                             {"imbalance_after_predicted", d.imbalance_after}, {"bytes_copied", e.bytes}, {"tables", copies},
                             {"parts_after", after}, {"reason", d.reason}});
  }
  Json placement = Json::array();
  for (const sim::AdaptivePart& p : r.final_placement) {
    placement.push_back(Json{{"table", p.table}, {"socket", r.sockets[p.socket]}, {"bytes", p.bytes}});
  }
  Json classes = Json::array();
  for (const sim::AdaptiveClassStats& c : r.classes) {
    classes.push_back(Json{{"name", c.name}, {"queries", c.queries}, {"tasks", c.tasks}, {"stolen_tasks", c.stolen_tasks},
                           {"task_gbps", c.task_bytes_per_s / 1e9}, {"ema_task_gbps", c.ema_task_bytes_per_s / 1e9},
                           {"stealing_allowed_at_end", c.stealing_allowed_at_end}});
  }
  Json out{{"topology", t.name},
           {"scenario", sc.name},
           {"seed", sc.seed},
           {"duration_s", r.duration_s},
           {"placer", sc.placer_enabled ? "on" : "off"},
           {"stealing", sim::stealing_mode_name(sc.stealing)},
           {"stealing_threshold_gbps_per_task",
            std::isfinite(r.stealing_threshold_bytes_per_s) ? Json(r.stealing_threshold_bytes_per_s / 1e9) : Json(nullptr)},
           {"stealing_threshold_source", threshold_source},
           {"sockets", r.sockets},
           {"workers_per_socket", r.workers_per_socket},
           {"page_bytes", sc.page_bytes},
           {"costs", Json{{"move_us_per_page", r.costs.move_s_per_page * 1e6},
                          {"partition_us_per_page", r.costs.partition_s_per_page * 1e6},
                          {"derived", r.costs_derived},
                          {"source", r.costs.source}}},
           {"queries", r.queries},
           {"queries_per_s", r.queries_per_s},
           {"gbps", r.bytes / r.duration_s / 1e9},
           {"socket_cpu", r.socket_cpu_share},
           {"socket_memory_utilisation", r.socket_memory_utilisation},
           {"classes", classes},
           {"query_types", query_types_json(r)},
           {"placer_decisions", decisions},
           {"placer_last_idle", r.placer_last_idle_s >= 0.0 ? Json{{"at_s", r.placer_last_idle_s}, {"reason", r.placer_last_idle_reason}}
                                                            : Json(nullptr)},
           {"final_placement", placement},
           {"timeline", timeline},
           {"basis", "predicted"}};
  if (cal) out["stealing_calibration"] = calibration_json(*cal);
  return out;
}

void print_result(const model::Topology& t, const sim::AdaptiveScenario& sc, const sim::AdaptiveResult& r, const std::string& threshold_source) {
  std::cout << fmt::format("{} on {}: {:.4g} s simulated, seed {}, {} workers per socket, placer {}, stealing {}\n", sc.name, t.name,
                           r.duration_s, sc.seed, r.workers_per_socket, sc.placer_enabled ? "on" : "off",
                           sim::stealing_mode_name(sc.stealing));
  if (sc.stealing == sim::StealingMode::kAdaptive) {
    std::cout << fmt::format("stealing threshold: {} ({})\n",
                             std::isfinite(r.stealing_threshold_bytes_per_s)
                                 ? fmt::format("{:.3g} GB/s per task", r.stealing_threshold_bytes_per_s / 1e9)
                                 : std::string("none (stealing always pays)"),
                             threshold_source);
  }
  std::cout << fmt::format("page costs: move {:.3g} us, partition {:.3g} us per {:.0f}-byte page{} ({})\n", r.costs.move_s_per_page * 1e6,
                           r.costs.partition_s_per_page * 1e6, sc.page_bytes, r.costs_derived ? ", DERIVED" : "", r.costs.source);
  std::cout << fmt::format("throughput: {} queries, {:.4g} queries/s, {:.4g} GB/s streamed\n\n", r.queries, r.queries_per_s,
                           r.bytes / r.duration_s / 1e9);

  std::cout << "placer decisions:\n";
  if (r.placer_events.empty()) std::cout << "  none\n";
  for (const sim::AdaptivePlacerEvent& e : r.placer_events) {
    const sim::PlacerDecision& d = e.decision;
    // A group's tables go together: name them all, with the bytes copied for each.
    std::string tables;
    std::string copied;
    for (const sim::AdaptiveTableCopy& c : e.copies) {
      tables += (tables.empty() ? "" : "+") + c.table;
      copied += (copied.empty() ? "" : ", ") + fmt::format("{} {}", c.table, gib(c.bytes));
    }
    const std::string what = fmt::format("{}{}", e.group.empty() ? std::string() : fmt::format("group {} ", e.group), tables);
    const std::string done = d.action == sim::PlacerAction::kMove
                                 ? fmt::format("moved {} from {} to {}", what, r.sockets[d.from_socket], r.sockets[d.to_socket])
                             : d.action == sim::PlacerAction::kPartition
                                 ? fmt::format("partitioned {} on {}, half to {}", what, r.sockets[d.from_socket], r.sockets[d.to_socket])
                                 : fmt::format("merged {} onto {}", what, r.sockets[d.to_socket]);
    std::cout << fmt::format("  {:7.2f} s  {} ({} copied{}, {}) — {}\n", e.decided_s, done, gib(e.bytes),
                             e.copies.size() > 1 ? ": " + copied : std::string(),
                             e.done_s < 0.0 ? std::string("still running at the end") : fmt::format("done at {:.2f} s", e.done_s), d.reason);
  }
  // What the placer saw the last time it did nothing (the study's rule acts on an imbalance only,
  // once the history its windows average over exists).
  if (sc.placer_enabled && r.placer_last_idle_s >= 0.0) {
    std::cout << fmt::format("  last check without a decision, {:.2f} s: {}\n", r.placer_last_idle_s, r.placer_last_idle_reason);
  }

  const std::size_t bins = r.timeline.size();
  const std::size_t stride = std::max<std::size_t>(1, (bins + 23) / 24);
  std::cout << "\ntimeline (CPU = busy workers, mem = controller utilisation, per socket):\n";
  std::vector<std::string> header{"from s", "to s", "queries/s", "GB/s", "steals"};
  for (const std::string& s : r.sockets) header.push_back("CPU " + s);
  for (const std::string& s : r.sockets) header.push_back("mem " + s);
  TextTable timeline(header);
  for (std::size_t i = 0; i < bins; i += stride) {
    const std::size_t j = std::min(bins, i + stride);
    double length = 0.0;
    double q = 0.0;
    double b = 0.0;
    int steals = 0;
    std::vector<double> cpu(r.sockets.size(), 0.0);
    std::vector<double> mem(r.sockets.size(), 0.0);
    for (std::size_t k = i; k < j; ++k) {
      const sim::AdaptiveTimelinePoint& p = r.timeline[k];
      const double len = p.end_s - p.begin_s;
      length += len;
      q += p.queries_per_s * len;
      b += p.bytes_per_s * len;
      steals += p.steals;
      for (std::size_t s = 0; s < cpu.size(); ++s) {
        cpu[s] += p.socket_cpu_share[s] * len;
        mem[s] += p.socket_memory_utilisation[s] * len;
      }
    }
    std::vector<std::string> row{fmt::format("{:.0f}", r.timeline[i].begin_s), fmt::format("{:.0f}", r.timeline[j - 1].end_s),
                                 fmt::format("{:.1f}", q / length), fmt::format("{:.1f}", b / length / 1e9), std::to_string(steals)};
    for (double c : cpu) row.push_back(fmt::format("{:.0f}%", 100.0 * c / length));
    for (double m : mem) row.push_back(fmt::format("{:.0f}%", 100.0 * m / length));
    timeline.add_row(row);
  }
  std::cout << timeline.render();

  std::cout << "\ntask classes:\n";
  TextTable classes({"class", "queries", "tasks", "stolen", "GB/s per task", "moving avg", "stealing at end"});
  for (const sim::AdaptiveClassStats& c : r.classes) {
    classes.add_row({c.name, std::to_string(c.queries), std::to_string(c.tasks), std::to_string(c.stolen_tasks),
                     fmt::format("{:.3g}", c.task_bytes_per_s / 1e9), fmt::format("{:.3g}", c.ema_task_bytes_per_s / 1e9),
                     c.stealing_allowed_at_end ? "allowed" : "denied"});
  }
  std::cout << classes.render();
  print_query_types(r);

  std::cout << "\nfinal placement:\n";
  for (const sim::AdaptiveTable& table : sc.tables) {
    std::string parts;
    for (const sim::AdaptivePart& p : r.final_placement) {
      if (p.table == table.name) parts += (parts.empty() ? "" : ", ") + fmt::format("{} {}", r.sockets[p.socket], gib(p.bytes));
    }
    std::cout << fmt::format("  {}: {}\n", table.name, parts);
  }
}

void run(const AdaptiveOptions& o) {
  const model::Topology t = model::find_topology(o.topology);
  const int sockets = static_cast<int>(sim::adaptive_sockets(t).size());
  if (sockets < 2) throw std::invalid_argument(t.name + " has fewer than two sockets with cores and memory: nothing to place or steal");
  if (o.calibrate && o.scenario.empty()) {
    const sim::StealingCalibration cal = sim::calibrate_stealing(t);
    if (o.json) {
      Json out = calibration_json(cal);
      out["topology"] = t.name;
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << t.name << ": stealing calibration (half the sockets hold data; tasks sum x^n)\n";
      print_calibration(cal);
    }
    return;
  }
  if (o.scenario.empty()) throw CLI::RequiredError("--scenario");
  sim::AdaptiveScenario sc = load_adaptive_scenario(model::find_scenario(o.scenario), sockets);
  apply_adaptive_overrides(o.overrides, sc);
  std::string threshold_source = "not used";
  std::optional<sim::StealingCalibration> cal;
  if (sc.stealing == sim::StealingMode::kAdaptive) {
    if (sc.stealing_threshold_bytes_per_s) {
      threshold_source = "from the scenario";
    } else {
      cal = sim::calibrate_stealing(t);
      sc.stealing_threshold_bytes_per_s = cal->threshold_bytes_per_s;
      threshold_source = "calibrated on " + t.name + ": " + cal->summary;
    }
  }
  sim::AdaptiveRunOptions options;
  options.timeline_bin_s = o.bin_s;
  const sim::AdaptiveResult r = sim::run_adaptive(t, sc, options);
  if (o.json) {
    std::cout << result_json(t, sc, r, threshold_source, cal).dump(2) << "\n";
    return;
  }
  print_result(t, sc, r, threshold_source);
  if (cal && o.calibrate) {
    std::cout << "\nstealing calibration:\n";
    print_calibration(*cal);
  }
}

}  // namespace

void register_adaptive_command(CLI::App& app) {
  auto o = std::make_shared<AdaptiveOptions>();
  CLI::App* cmd = app.add_subcommand("adaptive", "Column store over time: adaptive data placement and task stealing (Psaroudakis et al.)");
  cmd->add_option("--topology", o->topology, "Bundled machine name or topology file")->required();
  cmd->add_option("--scenario", o->scenario, "Scenario file, or the name of a shipped one (scenarios/*.json)");
  cmd->add_option("--placer", o->overrides.placer, "Data Placer on or off (default: the scenario's)")->check(CLI::IsMember({"on", "off"}));
  cmd->add_option("--stealing", o->overrides.stealing, "Task stealing across sockets (default: the scenario's)")
      ->check(CLI::IsMember({"allow", "deny", "adaptive"}));
  cmd->add_option("--seed", o->overrides.seed, "Seed of the clients' choices (default: the scenario's)");
  cmd->add_option("--duration", o->overrides.duration_s, "Simulated seconds (default: the scenario's)");
  cmd->add_option("--table-bytes", o->overrides.table_bytes, "Every table's size in bytes (default: the scenario's)");
  cmd->add_option("--parts", o->overrides.parts, "Every table's initial part count, spread round robin from its socket (default: the scenario's)");
  cmd->add_option("--selectivity", o->overrides.selectivity, "Every scan and join query type's selectivity (default: the scenario's)");
  cmd->add_option("--timeline-bin", o->bin_s, "Seconds per timeline point")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_flag("--calibrate", o->calibrate, "Print the stealing calibration (alone without --scenario)");
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->callback([o] { run(*o); });
}

}  // namespace numatwin::cli
