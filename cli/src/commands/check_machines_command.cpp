#include "commands/check_machines_command.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "numatwin/model/corpus_json.hpp"
#include "numatwin/model/file_io.hpp"
#include "numatwin/model/machine_check.hpp"
#include "numatwin/model/spec_rule_fit.hpp"
#include "io/lab_machines.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::ordered_json;
using model::FigureCheck;
using model::FigureClass;
using model::MachineCheck;

constexpr double kMedianTargetPct = 15.0;
constexpr double kCoverageTarget = 0.8;
constexpr FigureClass kClasses[] = {FigureClass::kIdleLatency, FigureClass::kBandwidth, FigureClass::kPeakInjection,
                                    FigureClass::kLoadedLatency, FigureClass::kCoreToCore};

struct Options {
  std::string corpus;
  std::string machine;
  std::string out;
  bool json = false;
  bool rules = false;
};

Json rule_json(const model::RuleValue& v) {
  return Json{{"value", v.value}, {"low", v.low}, {"high", v.high}, {"basis", v.basis}};
}

// The rules fitted on every machine (none left out), as JSON.
Json rules_json(const model::SpecRules& r) {
  Json generations = Json::object();
  for (const auto& [name, g] : r.generations) {
    Json entry = Json::object();
    if (g.domain_latency_ns) entry["domain_latency_ns"] = rule_json(*g.domain_latency_ns);
    if (g.socket_step_ns) entry["socket_step_ns"] = rule_json(*g.socket_step_ns);
    if (g.lines_in_flight) entry["lines_in_flight"] = rule_json(*g.lines_in_flight);
    if (g.gmi_link_read_gbps) entry["gmi_link_read_gbps"] = rule_json(*g.gmi_link_read_gbps);
    if (!entry.empty()) generations[name] = entry;
  }
  Json eta = Json::object();
  for (const auto& [k, v] : r.dram_read_efficiency) eta[model::spec_memory_kind_name(k)] = rule_json(v);
  Json tau = Json::object();
  for (const auto& [k, v] : r.write_turnaround) tau[model::spec_memory_kind_name(k)] = rule_json(v);
  Json links = Json::object();
  for (const auto& [k, v] : r.link_efficiency) links[k] = rule_json(v);
  return Json{{"generations", generations}, {"die_step_ns", rule_json(r.die_step_ns)},
              {"dram_read_efficiency", eta}, {"write_turnaround", tau}, {"link_efficiency", links},
              {"queue_exponent", rule_json(r.queue_exponent)}};
}

std::vector<const FigureCheck*> of_class(const std::vector<const MachineCheck*>& checks, FigureClass c) {
  std::vector<const FigureCheck*> out;
  for (const MachineCheck* m : checks) {
    for (const FigureCheck& f : m->checks) {
      if (f.figure_class == c) out.push_back(&f);
    }
  }
  return out;
}

int unpredicted_count(const std::vector<const MachineCheck*>& checks, FigureClass c) {
  int n = 0;
  for (const MachineCheck* m : checks) {
    for (const auto& u : m->unpredicted) n += u.figure_class == c ? u.count : 0;
  }
  return n;
}

std::string pct(double v) { return fmt::format("{:.1f}", v); }

Json summary_json(const model::ErrorSummary& s) {
  return Json{{"count", s.count},
              {"median_abs_error_pct", s.median_abs_error_pct},
              {"worst_abs_error_pct", s.worst_abs_error_pct},
              {"inside_interval_share", s.inside_share}};
}

// The reasons a class's figures were not predicted, each with its figure count and machines.
std::map<std::string, std::pair<int, std::vector<std::string>>> reasons(const std::vector<const MachineCheck*>& checks,
                                                                         FigureClass c) {
  std::map<std::string, std::pair<int, std::vector<std::string>>> out;
  for (const MachineCheck* m : checks) {
    for (const auto& u : m->unpredicted) {
      if (u.figure_class != c) continue;
      auto& r = out[u.reason];
      r.first += u.count;
      if (r.second.empty() || r.second.back() != m->id) r.second.push_back(m->id);
    }
  }
  return out;
}

std::string render_text(const std::string& corpus, const std::vector<const MachineCheck*>& checks, int machines,
                        int lab, int with_spec, double seconds) {
  std::string out = fmt::format(
      "check machines: leave one out over {} ({} corpus machines and {} lab machines of lab/, {} with a spec sheet); "
      "each machine's rules fitted on the others only\nerror = (predicted - measured) / measured; inside = measured "
      "within the predicted [low, high]\n\n",
      corpus, machines, lab, with_spec);
  TextTable classes({"figure class", "count", "median |err| %", "worst |err| %", "inside", "not predicted", "median <= 15 %"});
  std::vector<const FigureCheck*> all;
  std::vector<std::string> misses;
  for (const FigureClass c : kClasses) {
    const auto list = of_class(checks, c);
    all.insert(all.end(), list.begin(), list.end());
    const model::ErrorSummary s = model::summarise(list);
    const int none = unpredicted_count(checks, c);
    std::string verdict = "-";
    if (s.count > 0) {
      const bool met = s.median_abs_error_pct <= kMedianTargetPct;
      verdict = met ? "met" : "NOT met";
      if (!met) misses.push_back(model::figure_class_name(c));
    } else if (none > 0) {
      verdict = "NOT met (nothing predicted)";
      misses.push_back(model::figure_class_name(c));
    }
    classes.add_row({model::figure_class_name(c), std::to_string(s.count), s.count ? pct(s.median_abs_error_pct) : "-",
                     s.count ? pct(s.worst_abs_error_pct) : "-", s.count ? pct(100.0 * s.inside_share) + " %" : "-",
                     std::to_string(none), verdict});
  }
  const model::ErrorSummary total = model::summarise(all);
  classes.add_row({"all predicted", std::to_string(total.count), pct(total.median_abs_error_pct),
                   pct(total.worst_abs_error_pct), pct(100.0 * total.inside_share) + " %", "", ""});
  out += "Per figure class\n" + classes.render() + "\n";

  TextTable per_machine({"machine", "figure class", "count", "median |err| %", "worst |err| %", "inside"});
  for (const MachineCheck* m : checks) {
    bool any = false;
    for (const FigureClass c : kClasses) {
      std::vector<const FigureCheck*> list;
      for (const FigureCheck& f : m->checks) {
        if (f.figure_class == c) list.push_back(&f);
      }
      if (list.empty()) continue;
      any = true;
      const model::ErrorSummary s = model::summarise(list);
      per_machine.add_row({m->id, model::figure_class_name(c), std::to_string(s.count), pct(s.median_abs_error_pct),
                           pct(s.worst_abs_error_pct), pct(100.0 * s.inside_share) + " %"});
    }
    if (!any) {
      int none = 0;
      for (const auto& u : m->unpredicted) none += u.count;
      per_machine.add_row({m->id, "(none predicted)", "0", "-", "-", fmt::format("{} not predicted", none)});
    }
  }
  out += "Per machine\n" + per_machine.render() + "\n";

  out += "Not predicted (figures, machines: reason)\n";
  for (const FigureClass c : kClasses) {
    for (const auto& [reason, what] : reasons(checks, c)) {
      std::string ids;
      for (const std::string& id : what.second) ids += (ids.empty() ? "" : ", ") + id;
      out += fmt::format("  {}: {} figures, {}: {}\n", model::figure_class_name(c), what.first, ids, reason);
    }
  }
  std::string missed;
  for (const std::string& m : misses) missed += (missed.empty() ? "" : ", ") + m;
  out += fmt::format(
      "\nTargets (issue 35): median |error| <= 15 % in every figure class: {}; intervals cover >= 80 % of the "
      "measured figures: {} ({} of {} inside)\n",
      misses.empty() ? "met" : "NOT met (" + missed + ")",
      total.inside_share >= kCoverageTarget ? "met" : fmt::format("NOT met ({:.1f} %)", 100.0 * total.inside_share),
      static_cast<int>(std::lround(total.inside_share * total.count)), total.count);
  out += fmt::format("({:.2f} s)\n", seconds);
  return out;
}

Json render_json(const std::string& corpus, const std::vector<const MachineCheck*>& checks) {
  Json classes = Json::object();
  for (const FigureClass c : kClasses) {
    Json entry = summary_json(model::summarise(of_class(checks, c)));
    entry["not_predicted"] = unpredicted_count(checks, c);
    Json why = Json::array();
    for (const auto& [reason, what] : reasons(checks, c)) {
      why.push_back(Json{{"reason", reason}, {"figures", what.first}, {"machines", what.second}});
    }
    entry["not_predicted_reasons"] = why;
    classes[model::figure_class_name(c)] = entry;
  }
  Json machines = Json::array();
  for (const MachineCheck* m : checks) {
    Json figures = Json::array();
    for (const FigureCheck& f : m->checks) {
      figures.push_back(Json{{"class", model::figure_class_name(f.figure_class)}, {"what", f.what}, {"pointer", f.pointer},
                             {"measured", f.measured}, {"predicted", f.predicted}, {"low", f.low}, {"high", f.high},
                             {"error_pct", f.error_pct()}, {"inside", f.inside()}});
    }
    Json none = Json::array();
    for (const auto& u : m->unpredicted) {
      none.push_back(Json{{"class", model::figure_class_name(u.figure_class)}, {"what", u.what}, {"pointer", u.pointer},
                          {"figures", u.count}, {"reason", u.reason}});
    }
    Json per_class = Json::object();
    for (const FigureClass c : kClasses) {
      std::vector<const FigureCheck*> list;
      for (const FigureCheck& f : m->checks) {
        if (f.figure_class == c) list.push_back(&f);
      }
      if (!list.empty()) per_class[model::figure_class_name(c)] = summary_json(model::summarise(list));
    }
    machines.push_back(Json{{"id", m->id}, {"classes", per_class}, {"figures", figures}, {"not_predicted", none}});
  }
  return Json{{"corpus", corpus}, {"classes", classes}, {"machines", machines}};
}

void run(const Options& o) {
  const auto start = std::chrono::steady_clock::now();
  const std::filesystem::path dir = o.corpus.empty() ? model::topology_dir() / "corpus" : std::filesystem::path(o.corpus);
  std::vector<model::MeasuredMachine> machines = model::load_corpus(dir);
  const int corpus_machines = static_cast<int>(machines.size());
  for (model::MeasuredMachine& m : load_lab_machines(dir / "lab")) {
    for (const model::MeasuredMachine& other : machines) {
      if (other.id == m.id) throw std::invalid_argument(m.file + ": /id: expected an id no corpus file has (" + other.file + ")");
    }
    machines.push_back(std::move(m));
  }
  int with_spec = 0;
  bool found = o.machine.empty();
  std::string ids;
  for (const auto& m : machines) {
    with_spec += m.spec ? 1 : 0;
    found = found || m.id == o.machine;
    ids += (ids.empty() ? "" : ", ") + m.id;
  }
  if (!found) throw std::invalid_argument("--machine \"" + o.machine + "\": no such corpus machine; the corpus has: " + ids);
  const model::SpecRules base = model::default_spec_rules();
  if (o.rules) {
    std::vector<const model::MeasuredMachine*> all;
    for (const auto& m : machines) all.push_back(&m);
    const std::string text = rules_json(model::fit_spec_rules(all, base)).dump(2) + "\n";
    if (o.out.empty()) std::cout << text;
    else model::write_file_atomically(o.out, text);
    return;
  }
  std::vector<MachineCheck> results;
  if (o.machine.empty()) {
    results = model::check_leave_one_out(machines, base);
  } else {
    std::vector<model::MeasuredMachine> others;
    const model::MeasuredMachine* own = nullptr;
    for (const auto& m : machines) {
      if (m.id == o.machine) own = &m;
      else others.push_back(m);
    }
    // The same leave-one-out rules: fitted on every other machine.
    results = model::check_leave_one_out({*own}, base, others);
  }
  std::vector<const MachineCheck*> checks;
  for (const MachineCheck& r : results) checks.push_back(&r);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string text = o.json ? render_json(dir.string(), checks).dump(2) + "\n"
                                  : render_text(dir.string(), checks, corpus_machines,
                                                static_cast<int>(machines.size()) - corpus_machines, with_spec, seconds);
  if (o.out.empty()) {
    std::cout << text;
  } else {
    model::write_file_atomically(o.out, text);
  }
}

}  // namespace

void register_check_machines_command(CLI::App& check) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = check.add_subcommand(
      "machines",
      "Leave one machine out: predict each corpus machine's measured figures from its spec sheet with the rules "
      "fitted on the other machines; error per figure class and per machine, interval coverage");
  cmd->add_option("--corpus", o->corpus, "Folder of corpus machines (default: the bundled topologies' corpus/)");
  cmd->add_option("--machine", o->machine, "Only this machine (its rules still fitted on all the others)");
  cmd->add_flag("--json", o->json, "Print JSON (every figure: measured, predicted, interval)");
  cmd->add_option("--out", o->out, "Write the output here (atomically) instead of stdout");
  cmd->add_flag("--rules", o->rules,
                "Print instead the rules fitted on every machine (none left out), as JSON, each with its basis");
  cmd->callback([o] { run(*o); });
}

}  // namespace numatwin::cli
