#include "placement_commands.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "numatwin/sim/placement_search.hpp"
#include "text_table.hpp"
#include "topology_lookup.hpp"
#include "workload_options.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;

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
  cmd->add_option("--threads", o->threads, "Threads to place")->required();
  cmd->add_option("--top", *top, "How many of the best and of the worst to print")->capture_default_str();
  cmd->add_option("--budget", *budget, "Seconds for the sampling search when the space is too large to enumerate")->capture_default_str();
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([o, top, budget, json] {
    const model::Topology t = find_topology(o->topology);
    const sim::WorkloadSpec spec = o->spec(t, o->threads);
    if (*top < 1) throw std::invalid_argument("--top must be >= 1");
    if (!(*budget > 0.0)) throw std::invalid_argument("--budget must be > 0");
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
