#include "commands/placement_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "numatwin/sim/engine/energy_estimate.hpp"
#include "numatwin/sim/search/distinct_placements.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/search/placement_search.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

// The energy of the worst placement minus the best, term by term, and the term that decides it.
Json energy_difference_json(const sim::DistinctPlacementResult& r) {
  if (r.ranked.size() < 2) return nullptr;
  const sim::EnergyDifference d = sim::energy_difference(r.ranked.front().energy, r.ranked.back().energy);
  return Json{{"total_j", d.total_j},   {"dram_j", d.dram_j},
              {"remote_j", d.remote_j}, {"link_j", d.link_j},
              {"background_j", d.background_j}, {"deciding_term", d.deciding_term}};
}

std::string cpu_list(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + (j > i ? fmt::format("{}-{}", cpus[i], cpus[j]) : std::to_string(cpus[i]));
    i = j + 1;
  }
  return out;
}

// A count that may be astronomically large.
std::string count_text(double x) { return x < 1e12 ? fmt::format("{:.0f}", x) : fmt::format("{:.3e}", x); }

// The placement strategies of Dominico et al.'s study, simulated as the CLI runs them.
struct Strategy {
  const char* name;
  const char* placement;
};
constexpr Strategy kStudyStrategies[] = {
    {"OS default (unpinned)", "none"}, {"compact", "dense"}, {"sparse", "sparse"}, {"random pinning", "random"}};

// Threads that are not interchangeable (the subarray filter's chunk groups): the placement space
// of distinct threads, one per core (distinct_placements.hpp).
void print_distinct_placements(const model::Topology& t, const sim::WorkloadSpec& spec, int top, double budget, bool json) {
  sim::DistinctPlacementOptions options;
  options.seed = spec.seed;
  const auto start = std::chrono::steady_clock::now();
  options.stop = [start, budget](int) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > budget;
  };
  const sim::DistinctPlacementResult r = sim::search_distinct_placements(t, spec, options);
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::size_t groups = sim::interchangeable_threads(spec).size();

  struct StrategyRow {
    std::string name;
    sim::DistinctPlacement p;
    std::size_t rank = 0;
  };
  std::vector<StrategyRow> strategies;
  for (const Strategy& s : kStudyStrategies) {
    sim::ThreadPlacement placement = sim::parse_placement(s.placement);
    placement.seed = spec.seed;
    placement.os_move_probability = spec.placement.os_move_probability;
    StrategyRow row{s.name, sim::evaluate_placement(t, spec, placement), 0};
    const double time_s = row.p.time_s;
    row.rank = static_cast<std::size_t>(std::count_if(r.ranked.begin(), r.ranked.end(),
                                                      [&](const sim::DistinctPlacement& c) { return c.time_s < time_s * (1.0 - 1e-9); })) + 1;
    strategies.push_back(row);
  }
  if (json) {
    Json ranked = Json::array();
    for (const sim::DistinctPlacement& c : r.ranked) {
      ranked.push_back(Json{{"placement", c.text}, {"cpus", cpu_list(c.cpus)}, {"assignments", std::round(c.assignments)},
                            {"time_s", c.time_s}, {"local_access_ratio", c.local_access_ratio}, {"remote_share", c.remote_share},
                            {"energy_j", c.energy.total_j()}, {"dram_energy_j", c.energy.dram_j + c.energy.background_j}});
    }
    Json study = Json::array();
    for (const StrategyRow& s : strategies) {
      study.push_back(Json{{"strategy", s.name}, {"time_s", s.p.time_s}, {"local_access_ratio", s.p.local_access_ratio},
                           {"remote_share", s.p.remote_share}, {"energy_j", s.p.energy.total_j()}, {"rank_among_classes", s.rank}});
    }
    std::cout << Json{{"topology", t.name},
                      {"workload", sim::workload_kind_name(spec.kind)},
                      {"threads", spec.threads},
                      {"thread_groups", groups},
                      {"assignments", std::round(r.assignments)},
                      {"placements_up_to_machine_symmetry", std::round(r.machine_classes)},
                      {"classes", r.classes},
                      {"exhaustive", r.exhaustive},
                      {"automorphisms", r.automorphisms},
                      {"symmetry_complete", r.symmetry_complete},
                      {"simulations", r.simulations},
                      {"energy_basis", model::energy_basis(t.energy).description()},
                      {"energy_worst_minus_best", energy_difference_json(r)},
                      {"seconds", elapsed},
                      {"ranked", ranked},
                      {"study_strategies", study}}
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << fmt::format("{}: {} threads, {} ({} chunk groups of up to {} threads, {} chunks, selectivity {:g})\n", t.name, spec.threads,
                           sim::workload_kind_name(spec.kind), groups, spec.data.threads_per_chunk, spec.data.chunks,
                           spec.data.selectivity);
  std::cout << fmt::format("  {} assignments of distinct threads to nodes, one thread per core (sum over per-node counts k of {}! / prod k_n!)\n",
                           count_text(r.assignments), spec.threads);
  std::cout << fmt::format("  {} up to the machine's {} symmetr{} (Burnside's lemma: the mean number of assignments each symmetry fixes){}\n",
                           count_text(r.machine_classes), r.automorphisms, r.automorphisms == 1 ? "y" : "ies",
                           r.symmetry_complete ? "" : "; symmetry list incomplete");
  if (r.exhaustive) {
    std::cout << fmt::format("  {:.0f} classes once the threads the workload treats alike are exchanged too (a chunk group's threads; groups "
                             "with as many chunks): {} simulations ranked all {} in {:.2f} s\n",
                             r.classes, r.simulations, count_text(r.machine_classes), elapsed);
  } else {
    std::cout << fmt::format("  too many classes to enumerate: sampled and improved {} of them by local moves in {:.2f} s\n", r.simulations,
                             elapsed);
  }
  std::cout << "  energy: DRAM, remote-access, link and DRAM background energy of the memory traffic; rests on the "
            << model::energy_basis(t.energy).description() << "\n";
  if (r.ranked.empty()) return;
  const double best = r.ranked.front().time_s;
  // A class's share of the placements up to symmetry: its assignments / |Aut| when the symmetries
  // fix no assignment (then the shares add up to the count above), else not printed.
  double free_sum = 0.0;
  for (const sim::DistinctPlacement& c : r.ranked) free_sum += c.assignments / r.automorphisms;
  const bool shares_exact = r.exhaustive && std::abs(free_sum - r.machine_classes) < 0.5;
  auto print = [&](const char* title, int from, int to, int step) {
    TextTable table({"rank", "time s", "vs best", "local", "crosses a link", "energy J", shares_exact ? fmt::format("of the {}", count_text(r.machine_classes)) : "share",
                     "placement (per chunk group: threads per node; | between kinds of group)"});
    for (int i = from; i != to; i += step) {
      const sim::DistinctPlacement& c = r.ranked[i];
      table.add_row({std::to_string(i + 1), fmt::format("{:.4g}", c.time_s), fmt::format("{:.2f}x", c.time_s / best),
                     fmt::format("{:.1f} %", 100.0 * c.local_access_ratio), fmt::format("{:.1f} %", 100.0 * c.remote_share),
                     fmt::format("{:.3g}", c.energy.total_j()), shares_exact ? fmt::format("{:.0f}", c.assignments / r.automorphisms) : "-", c.text});
    }
    std::cout << "\n" << title << "\n" << table.render();
  };
  const int k = std::min<int>(top, static_cast<int>(r.ranked.size()));
  print("best", 0, k, 1);
  print("worst", static_cast<int>(r.ranked.size()) - 1, static_cast<int>(r.ranked.size()) - 1 - k, -1);
  if (r.ranked.size() > 1) {
    const sim::EnergyDifference d = sim::energy_difference(r.ranked.front().energy, r.ranked.back().energy);
    std::cout << fmt::format(
        "energy, worst minus best placement: {:+.3g} J = DRAM access {:+.3g} + remote access {:+.3g} + links {:+.3g} + "
        "DRAM background {:+.3g} (background power x run time): {} decides it\n",
        d.total_j, d.dram_j, d.remote_j, d.link_j, d.background_j,
        std::string(d.deciding_term) == "none" ? std::string("no term") : std::string("the ") + d.deciding_term + " term");
  }
  TextTable study({"strategy (Dominico et al.)", "time s", "vs best", "local", "crosses a link", "energy J", "rank among the classes"});
  for (const StrategyRow& s : strategies) {
    study.add_row({s.name, fmt::format("{:.4g}", s.p.time_s), fmt::format("{:.2f}x", s.p.time_s / best),
                   fmt::format("{:.1f} %", 100.0 * s.p.local_access_ratio), fmt::format("{:.1f} %", 100.0 * s.p.remote_share),
                   fmt::format("{:.3g}", s.p.energy.total_j()), !r.exhaustive                                   ? std::string("-")
                   : s.rank > static_cast<std::size_t>(r.classes) ? std::string("slower than every class")
                                                                   : fmt::format("{} of {:.0f}", s.rank, r.classes)});
  }
  std::cout << "\nthe study's strategies (compact fills a node in thread order, so it keeps chunk groups together when their size divides a "
               "node's cores: the study's \"shared\"; the OS "
               "default moves unpinned threads with probability --os-move-probability per unit of work, random pinning may "
               "put two threads on one core)\n"
            << study.render();
}

}  // namespace

void register_placement_commands(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto top = std::make_shared<int>(5);
  auto budget = std::make_shared<double>(10.0);
  auto json = std::make_shared<bool>(false);
  o->workload = "count";
  CLI::App* cmd = app.add_subcommand("placements", "Every distinct placement of R threads (up to the machine's symmetries), best and worst by predicted time");
  o->add_common(cmd);
  o->add_algorithm(cmd);
  cmd->add_option("--threads", o->threads, "Threads to place")->required()->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--top", *top, "How many of the best and of the worst to print")->capture_default_str();
  cmd->add_option("--budget", *budget, "Seconds for the sampling search when the space is too large to enumerate")->capture_default_str();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([o, top, budget, json] {
    const model::Topology t = model::find_topology(o->topology);
    const sim::WorkloadSpec spec = o->spec(t, o->threads);
    if (*top < 1) throw std::invalid_argument("--top must be >= 1");
    if (!(*budget > 0.0)) throw std::invalid_argument("--budget must be > 0");
    if (spec.kind == sim::WorkloadKind::kSubarray) {
      print_distinct_placements(t, spec, *top, *budget, *json);
      return;
    }
    sim::PlacementSearchOptions options;
    options.seed = spec.seed;
    const auto start = std::chrono::steady_clock::now();
    const double seconds = *budget;
    options.stop = [start, seconds](int) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds;
    };
    const sim::PlacementSearchResult r = sim::search_placements(t, spec, options);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int k = std::min<int>(*top, static_cast<int>(r.ranked.size()));
    if (*json) {
      Json ranked = Json::array();
      for (const sim::PlacementCandidate& c : r.ranked) {
        ranked.push_back(Json{{"placement", sim::occupancy_text(t, c.occupancy)}, {"cpus", cpu_list(c.cpus)}, {"time_s", c.time_s}});
      }
      std::cout << Json{{"topology", t.name},
                        {"workload", sim::workload_kind_name(spec.kind)},
                        {"threads", spec.threads},
                        {"space_size", r.space_size},
                        {"distinct_placements", r.distinct_placements},
                        {"exhaustive", r.exhaustive},
                        {"automorphisms", r.automorphisms},
                        {"symmetry_complete", r.symmetry_complete},
                        {"evaluated", r.evaluated},
                        {"seconds", elapsed},
                        {"ranked", ranked}}
                       .dump(2)
                << "\n";
      return;
    }
    if (r.exhaustive) {
      std::cout << fmt::format("{}: {} threads, {}: {:g} distinct placements ({:g} before removing {} symmetr{}{}), all evaluated in {:.2f} s\n",
                               t.name, spec.threads, sim::workload_kind_name(spec.kind), r.distinct_placements, r.space_size,
                               r.automorphisms, r.automorphisms == 1 ? "y" : "ies",
                               r.symmetry_complete ? "" : ", symmetry list incomplete", elapsed);
    } else {
      std::cout << fmt::format("{}: {} threads, {}: {:g} placements (before symmetry) are too many to enumerate; sampled and improved "
                               "{} of them by local search in {:.2f} s\n",
                               t.name, spec.threads, sim::workload_kind_name(spec.kind), r.space_size, r.evaluated, elapsed);
    }
    auto print = [&](const char* title, int from, int to, int step) {
      TextTable table({"rank", "time s", "vs best", "placement (node: threads (cores x threads per core))", "cpus"});
      for (int i = from; i != to; i += step) {
        const sim::PlacementCandidate& c = r.ranked[i];
        table.add_row({std::to_string(i + 1), fmt::format("{:.4g}", c.time_s), fmt::format("{:.2f}x", c.time_s / r.ranked.front().time_s),
                       sim::occupancy_text(t, c.occupancy), cpu_list(c.cpus)});
      }
      std::cout << "\n" << title << "\n" << table.render();
    };
    if (r.ranked.empty()) return;
    print("best", 0, k, 1);
    print("worst", static_cast<int>(r.ranked.size()) - 1, static_cast<int>(r.ranked.size()) - 1 - k, -1);
  });
}

}  // namespace numatwin::cli
