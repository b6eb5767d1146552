#include "advise_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "numatwin/sim/advise.hpp"
#include "text_table.hpp"
#include "topology_lookup.hpp"
#include "workload_options.hpp"

namespace numatwin::cli {

void register_advise_command(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto top = std::make_shared<int>(5);
  auto budget = std::make_shared<double>(10.0);
  auto json = std::make_shared<bool>(false);
  auto apply = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("advise", "Recommend algorithm, thread placement, memory policy and thread count, with reasons");
  o->add_common(cmd);
  o->add_algorithm(cmd);
  cmd->add_option("--threads", o->threads, "Threads the program would use (default: one per core)");
  cmd->add_option("--top", *top, "How many recommendations to print")->capture_default_str();
  cmd->add_option("--budget", *budget, "Seconds of search at most")->capture_default_str();
  cmd->add_flag("--apply-plan", *apply, "Print the commands and settings that apply the best configuration");
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([o, top, budget, json, apply] {
    const model::Topology t = find_topology(o->topology);
    const sim::WorkloadSpec spec = o->spec(t, o->threads);
    if (*top < 1) throw std::invalid_argument("--top must be >= 1");
    if (!(*budget > 0.0)) throw std::invalid_argument("--budget must be > 0");
    sim::AdviceOptions options;
    const auto start = std::chrono::steady_clock::now();
    const double seconds = *budget;
    options.stop = [start, seconds](int) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds;
    };
    const sim::Advice advice = sim::advise(t, spec, options);
    const int k = std::min<int>(*top, static_cast<int>(advice.ranked.size()));
    const std::string allocator_note =
        "allocator, transparent huge pages, automatic NUMA balancing: not predicted by the model; measure them with numatwin validate";
    if (*json) {
      using Json = nlohmann::ordered_json;
      auto row = [&](const sim::AdviceCandidate& c) {
        return Json{{"configuration", sim::configuration_text(t, c.spec)}, {"time_s", c.time_s}, {"speedup_vs_default", c.speedup},
                    {"bottleneck", c.bottleneck}, {"bottleneck_saturated_fraction", c.bottleneck_saturated},
                    {"busiest", c.busiest}, {"busiest_mean_utilisation", c.busiest_utilisation},
                    {"local_access_ratio", c.local_access_ratio}, {"reason", c.reason}, {"basis", "predicted"}};
      };
      Json ranked = Json::array();
      for (int i = 0; i < k; ++i) ranked.push_back(row(advice.ranked[i]));
      Json out{{"topology", t.name}, {"default", row(advice.os_default)}, {"recommendations", ranked},
               {"evaluated", advice.evaluated}, {"candidates", advice.candidates}, {"not_predicted", allocator_note}};
      if (*apply) out["apply_plan"] = sim::apply_plan(t, advice.ranked.front().spec);
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("{}: {} of {} configurations simulated; default (unpinned threads, first touch by a loader): {:.4g} s\n\n",
                             t.name, advice.evaluated, advice.candidates, advice.os_default.time_s);
    TextTable table({"rank", "configuration", "time s", "speedup", "bottleneck", "why (predicted)"});
    for (int i = 0; i < k; ++i) {
      const sim::AdviceCandidate& c = advice.ranked[i];
      table.add_row({std::to_string(i + 1), sim::configuration_text(t, c.spec), fmt::format("{:.4g}", c.time_s),
                     fmt::format("{:.2f}x", c.speedup),
                     c.bottleneck.empty() ? "-" : fmt::format("{} {:.0f}%", c.bottleneck, 100.0 * c.bottleneck_saturated), c.reason});
    }
    std::cout << table.render() << "\n" << allocator_note << "\n";
    if (*apply) {
      std::cout << "\nto apply #1:\n";
      for (const std::string& line : sim::apply_plan(t, advice.ranked.front().spec)) std::cout << "  " << line << "\n";
    }
  });
}

}  // namespace numatwin::cli
