#include "commands/advise_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "numatwin/model/input_error.hpp"
#include "numatwin/sim/search/advise.hpp"
#include "numatwin/sim/search/advise_system.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/suite/switch_advice.hpp"
#include "run/advise_system_plan.hpp"
#include "options/balancing_options.hpp"
#include "run/parallel_for.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"
#include "options/workload_options.hpp"

namespace numatwin::cli {
namespace {

// The measured advice of a validation report's "switches" block, and its lines for the plan.
struct MeasuredAdvice {
  std::vector<validate::SwitchAdvice> switches;
  std::map<std::string, std::string> not_measured;
  std::string file;
};

MeasuredAdvice read_measured_advice(const std::string& file, const std::string& workload) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw model::InputError(file, "", "cannot read the file");
  const nlohmann::json report =
      nlohmann::json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), nullptr, false);
  if (report.is_discarded()) throw model::InputError(file, "", "expected JSON (a numatwin validation report)");
  if (!report.is_object() || report.value("format", std::string()) != "numatwin-validation-report")
    throw model::InputError(file, "/format", "expected \"numatwin-validation-report\"");
  if (!report.contains("switches"))
    throw model::InputError(file, "/switches", "expected measured switches: run `numatwin validate suite --switches`");
  MeasuredAdvice m;
  m.file = file;
  m.switches = validate::advise_switches(report["switches"], workload, file);
  if (report["switches"].contains("not_measured") && report["switches"]["not_measured"].is_object())
    for (const auto& [what, why] : report["switches"]["not_measured"].items())
      if (why.is_string()) m.not_measured[what] = why.get<std::string>();
  return m;
}

std::string advice_text(const validate::SwitchAdvice& a) {
  const std::string what = a.setting == "allocator" ? "allocator" : "transparent huge pages";
  const double gain = (a.baseline_s - a.fastest_other_s) / a.baseline_s;
  if (a.better)
    return fmt::format("{}: use {} ({:.4g} s vs {} {:.4g} s, {:.1f} % faster, beyond the {:.1f} % noise; on {})", what, a.value,
                       a.value_s, a.baseline, a.baseline_s, 100.0 * gain, 100.0 * a.noise, a.evidence);
  return fmt::format("{}: keep {} (fastest other: {} {:.4g} s vs {:.4g} s, {:+.1f} %, within the {:.1f} % noise; on {})", what,
                     a.baseline, a.fastest_other, a.fastest_other_s, a.baseline_s, -100.0 * gain, 100.0 * a.noise, a.evidence);
}

std::vector<std::string> measured_plan(const MeasuredAdvice& m) {
  std::vector<std::string> lines;
  for (const validate::SwitchAdvice& a : m.switches) {
    if (!a.better) continue;
    if (a.setting == "allocator") {
      const std::optional<std::string> path = validate::find_allocator_library(validate::allocator_by_name(a.value));
      lines.push_back("export LD_PRELOAD=" + path.value_or(validate::allocator_by_name(a.value).library) + "   # " + a.value +
                      " (measured)");
    } else if (a.value == "on") {
      lines.push_back("madvise(MADV_HUGEPAGE) on the large buffers, or: echo always > /sys/kernel/mm/transparent_hugepage/enabled   # (measured)");
    }
  }
  return lines;
}

// Whether the first and second choices swap within the costs' ranges: both are predicted under
// the same draws of the uncertain costs (sim/uncertainty/prediction_interval.hpp), and the draws in which
// the second is faster are counted.
struct ChoiceStability {
  std::string basis;  // the costs the first choice rests on
  std::vector<std::string> uncertain;
  int samples = 0;  // 0: fewer than two choices, or nothing uncertain
  int second_faster = 0;
};

ChoiceStability choice_stability(const model::Topology& t, const sim::SystemAdvice& advice, const sim::CostBasis& basis) {
  ChoiceStability out;
  if (advice.ranked.empty()) return out;
  const auto time_of = [&](const sim::WorkloadSpec& s) { return sim::Simulation(t).run(sim::build_plan(t, s)).time_s; };
  const sim::WorkloadSpec& first = advice.ranked[0].placement.spec;
  std::vector<std::string> depends = sim::costs_depended_on(t, first, parallel_for);
  out.basis = sim::cost_basis_summary(basis, depends);
  if (advice.ranked.size() < 2) return out;
  const sim::WorkloadSpec& second = advice.ranked[1].placement.spec;
  for (const std::string& name : sim::costs_depended_on(t, second, parallel_for)) {
    if (std::find(depends.begin(), depends.end(), name) == depends.end()) depends.push_back(name);
  }
  out.uncertain = sim::uncertain_costs(basis, depends);
  if (out.uncertain.empty()) return out;
  const std::vector<sim::WorkloadSpec> a = sim::cost_samples(first, basis, out.uncertain);
  const std::vector<sim::WorkloadSpec> b = sim::cost_samples(second, basis, out.uncertain);  // same seed: same draws
  out.samples = static_cast<int>(a.size());
  std::vector<int> faster(a.size(), 0);
  parallel_for(a.size(), [&](std::size_t i) { faster[i] = time_of(b[i]) < time_of(a[i]) ? 1 : 0; });
  for (int f : faster) out.second_faster += f;
  return out;
}

std::string stability_text(const ChoiceStability& s) {
  std::string out = s.basis;
  if (s.samples == 0) return out;
  out += "\n";
  if (s.second_faster == 0) {
    return out + fmt::format("#1 stays ahead of #2 in all {} samples of the uncertain costs' ranges", s.samples);
  }
  std::string names;
  for (const std::string& n : s.uncertain) names += (names.empty() ? "" : ", ") + n;
  return out + fmt::format("#1 and #2 swap within the costs' ranges: #2 is faster in {} of {} samples ({})", s.second_faster,
                           s.samples, names);
}

}  // namespace

void register_advise_command(CLI::App& app) {
  auto o = std::make_shared<WorkloadOptions>();
  auto balancing = std::make_shared<BalancingOptions>();
  auto top = std::make_shared<int>(5);
  auto budget = std::make_shared<double>(10.0);
  auto json = std::make_shared<bool>(false);
  auto apply = std::make_shared<bool>(false);
  auto report = std::make_shared<std::string>();
  auto allocators = std::make_shared<std::string>("calibrated");
  auto pages = std::make_shared<std::string>("host");
  CLI::App* cmd = app.add_subcommand(
      "advise", "Recommend allocator, huge pages, NUMA balancing, memory policy, thread placement and count, with reasons");
  o->add_common(cmd);
  o->add_algorithm(cmd);
  balancing->add_to(cmd);
  cmd->add_option("--threads", o->threads, "Threads the program would use (default: one per core)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--top", *top, "How many recommendations to print")->capture_default_str();
  cmd->add_option("--budget", *budget, "Seconds of search at most")->capture_default_str();
  cmd->add_option("--allocators", *allocators,
                  "Allocators to rank (with --allocation per-group or per-bucket): calibrated (the topology's "
                  "/allocator_costs, else all four), all, or names: glibc,jemalloc,tcmalloc,tbbmalloc")
      ->capture_default_str();
  cmd->add_option("--default-huge-pages", *pages,
                  "The system default's pages: host (this machine's transparent_hugepage/enabled, else madvise), on, off, madvise")
      ->capture_default_str();
  cmd->add_flag("--apply-plan", *apply, "Print the settings and commands that apply the best configuration");
  cmd->add_option("--validation-report", *report,
                  "Report of `numatwin validate suite --switches` on this machine: recommend allocator and huge pages from its measurements");
  cmd->add_flag("--json", *json, "Print JSON");
  cmd->callback([o, balancing, top, budget, json, apply, report, allocators, pages] {
    const model::Topology t = model::find_topology(o->topology);
    const sim::WorkloadSpec spec = o->spec(t, o->threads);
    if (*top < 1) throw std::invalid_argument("--top must be >= 1");
    if (!(*budget > 0.0)) throw std::invalid_argument("--budget must be > 0");
    sim::SystemAdviceOptions options;
    std::string allocator_basis;
    std::string pages_basis;
    options.allocators = candidate_allocators(t, *allocators, allocator_basis);
    options.os_default.huge_pages = default_huge_pages(*pages, pages_basis);
    options.os_default.numa_balancing = balancing->on();
    options.executions = balancing->executions;
    options.balancing = balancing->parameters;
    sim::check_numa_balancing(options.balancing);
    const auto start = std::chrono::steady_clock::now();
    const double seconds = *budget;
    options.search.stop = [start, seconds](int) {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > seconds;
    };
    const std::optional<MeasuredAdvice> measured =
        report->empty() ? std::nullopt : std::optional<MeasuredAdvice>(read_measured_advice(*report, sim::workload_kind_name(spec.kind)));
    const sim::SystemAdvice advice = sim::advise_system(t, spec, options);
    const bool balancing_varied = std::any_of(advice.trials.begin(), advice.trials.end(),
                                              [](const sim::FactorTrial& f) { return f.factor == "balancing"; });
    const int k = std::min<int>(*top, static_cast<int>(advice.ranked.size()));
    const ChoiceStability stability = choice_stability(t, advice, o->cost_basis(t));
    const std::string default_text =
        fmt::format("glibc malloc, huge pages {} ({}), balancing {} ({}), first touch by a loader thread, threads unpinned",
                    model::huge_pages_name(advice.os_default.huge_pages), pages_basis, advice.os_default.numa_balancing ? "on" : "off",
                    balancing_varied || advice.os_default.numa_balancing ? "as given" : "as given; not varied here");
    const std::string executions_text =
        options.executions == 1 ? std::string("one execution") : fmt::format("{} executions back to back", options.executions);
    std::vector<std::string> plan;
    if (*apply) {
      plan = system_apply_plan(t, advice.ranked.front(), advice.os_default, balancing_varied);
      if (measured) {
        for (const std::string& line : measured_plan(*measured)) plan.push_back(line);
      }
    }
    if (*json) {
      using Json = nlohmann::ordered_json;
      auto row = [&](const sim::SystemCandidate& sc) {
        const sim::AdviceCandidate& c = sc.placement;
        return Json{{"configuration", sim::system_configuration_text(t, sc)},
                    {"options", {{"workload", sim::workload_kind_name(c.spec.kind)}, {"algorithm", sim::algorithm_name(c.spec.algorithm)},
                                 {"sync", sim::sync_name(c.spec.sync)}, {"strategy", sim::strategy_name(c.spec.strategy)},
                                 {"join_algorithm", sim::join_algorithm_name(c.spec.join_algorithm)},
                                 {"threads", c.spec.threads}, {"placement", sim::placement_name(c.spec.placement)},
                                 {"memory_policy", sim::memory_policy_name(c.spec.memory, t)},
                                 {"allocation", sim::allocation_name(c.spec.allocation)}, {"allocator", c.spec.allocator},
                                 {"huge_pages", std::string(model::huge_pages_name(c.spec.huge_pages))},
                                 {"numa_balancing", sc.numa_balancing ? "on" : "off"}}},
                    {"time_s", sc.time_s}, {"executions", options.executions}, {"speedup_vs_default", sc.speedup},
                    {"gain_vs_default", 1.0 - 1.0 / sc.speedup}, {"migrated_bytes", sc.migrated_bytes},
                    {"bottleneck", c.bottleneck}, {"bottleneck_saturated_fraction", c.bottleneck_saturated},
                    {"busiest", c.busiest}, {"busiest_mean_utilisation", c.busiest_utilisation},
                    {"local_access_ratio", c.local_access_ratio}, {"reasons", sc.reasons}, {"basis", "predicted"}};
      };
      Json ranked = Json::array();
      for (int i = 0; i < k; ++i) ranked.push_back(row(advice.ranked[i]));
      Json trials = Json::array();
      for (const sim::FactorTrial& f : advice.trials)
        trials.push_back({{"factor", f.factor}, {"value", f.value}, {"time_s", f.time_s}, {"kept", f.kept}, {"note", f.note}});
      Json out{{"topology", t.name}, {"default_is", default_text}, {"allocators_ranked", allocator_basis},
               {"default", row(advice.default_candidate)}, {"recommendations", ranked}, {"factors_alone", trials},
               {"search", advice.search}, {"simulated", advice.simulated}, {"full_product", advice.full_product},
               {"rests_on_defaults", advice.rests_on_defaults}, {"costs", stability.basis}};
      if (stability.samples > 0) {
        out["first_vs_second"] = Json{{"samples", stability.samples}, {"second_faster", stability.second_faster},
                                      {"uncertain_costs", stability.uncertain}};
      }
      if (measured) {
        Json items = Json::array();
        for (const validate::SwitchAdvice& a : measured->switches)
          items.push_back({{"setting", a.setting}, {"recommend", a.value}, {"baseline", a.baseline}, {"value_s", a.value_s},
                           {"baseline_s", a.baseline_s}, {"fastest_other", a.fastest_other}, {"fastest_other_s", a.fastest_other_s},
                           {"noise", a.noise}, {"better", a.better}, {"evidence", a.evidence}, {"basis", "measured"},
                           {"report", measured->file}});
        out["measured"] = items;
        Json reasons = Json::object();
        for (const auto& [what, why] : measured->not_measured) reasons[what] = why;
        out["not_measured"] = reasons;
      }
      if (*apply) out["apply_plan"] = plan;
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("{}: default = {}: {:.4g} s ({})\n", t.name, default_text, advice.default_candidate.time_s, executions_text);
    std::cout << "allocators ranked: " << allocator_basis << "\nsearch:\n";
    for (const std::string& line : advice.search) std::cout << "  " << line << "\n";
    std::cout << "\n";
    TextTable table({"rank", "configuration", "time s", "gain", "why (predicted)"});
    for (int i = 0; i < k; ++i) {
      const sim::SystemCandidate& c = advice.ranked[i];
      std::string why;
      for (const std::string& r : c.reasons) why += (why.empty() ? "" : "; ") + r;
      table.add_row({std::to_string(i + 1), sim::system_configuration_text(t, c), fmt::format("{:.4g}", c.time_s),
                     fmt::format("{:+.1f}% ({:.2f}x)", 100.0 * (1.0 - 1.0 / c.speedup), c.speedup), why});
    }
    std::cout << table.render();
    std::cout << "\nfactors varied alone from the default:\n";
    for (const sim::FactorTrial& f : advice.trials)
      std::cout << fmt::format("  {} {}: {:.4g} s{} - {}\n", f.factor, f.value, f.time_s, f.kept ? " (kept)" : "", f.note);
    std::cout << "rests on default (uncalibrated) parameters: ";
    if (advice.rests_on_defaults.empty()) std::cout << "none of the allocator, TLB or balancing figures";
    for (std::size_t i = 0; i < advice.rests_on_defaults.size(); ++i) std::cout << (i ? "; " : "") << advice.rests_on_defaults[i];
    std::cout << "\n" << stability_text(stability) << "\n";
    if (measured) {
      std::cout << "\nmeasured on this machine (" << measured->file << "):\n";
      if (measured->switches.empty())
        std::cout << "  the report has no allocator or huge-page runs of " << sim::workload_kind_name(spec.kind) << "\n";
      for (const validate::SwitchAdvice& a : measured->switches) std::cout << "  " << advice_text(a) << "\n";
      for (const auto& [what, why] : measured->not_measured) std::cout << "  " << what << ": not measured: " << why << "\n";
    }
    if (*apply) {
      std::cout << "\nto apply #1:\n";
      for (const std::string& line : plan) std::cout << "  " << line << "\n";
    }
  });
}

}  // namespace numatwin::cli
