#include "numatwin/validate/suite/switch_advice.hpp"

#include <algorithm>
#include <cmath>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

double spread(const std::vector<double>& reps, double median) {
  if (reps.size() < 2 || median <= 0.0) return 0.0;
  const auto [lo, hi] = std::minmax_element(reps.begin(), reps.end());
  return (*hi - *lo) / median;
}

}  // namespace

nlohmann::ordered_json switches_json(const std::vector<SwitchRun>& runs, const nlohmann::ordered_json& system,
                                     const std::map<std::string, std::string>& not_measured) {
  nlohmann::ordered_json out_runs = nlohmann::ordered_json::array();
  for (const SwitchRun& r : runs) {
    out_runs.push_back({{"id", r.id}, {"workload", r.workload}, {"setting", r.setting}, {"value", r.value},
                        {"measured_s", r.measured_s}, {"repetition_s", r.repetition_s}});
  }
  nlohmann::ordered_json reasons = nlohmann::ordered_json::object();
  for (const auto& [what, why] : not_measured) reasons[what] = why;
  return {{"system", system}, {"runs", out_runs}, {"not_measured", reasons}};
}

std::vector<SwitchAdvice> advise_switches(const nlohmann::json& switches, const std::string& workload, const std::string& file) {
  if (!switches.is_object() || !switches.contains("runs") || !switches["runs"].is_array())
    throw model::InputError(file, "/switches/runs", "expected an array of measured runs (numatwin validate suite --switches)");
  std::vector<SwitchRun> runs;
  for (std::size_t i = 0; i < switches["runs"].size(); ++i) {
    const nlohmann::json& r = switches["runs"][i];
    const std::string at = "/switches/runs/" + std::to_string(i);
    auto text = [&](const char* key) {
      if (!r.contains(key) || !r[key].is_string()) throw model::InputError(file, at + "/" + key, "expected a string");
      return r[key].get<std::string>();
    };
    SwitchRun run;
    run.id = text("id");
    run.workload = text("workload");
    run.setting = text("setting");
    run.value = text("value");
    if (!r.contains("measured_s") || !r["measured_s"].is_number() || !(r["measured_s"].get<double>() > 0.0))
      throw model::InputError(file, at + "/measured_s", "expected a number > 0");
    run.measured_s = r["measured_s"].get<double>();
    if (r.contains("repetition_s")) {
      if (!r["repetition_s"].is_array()) throw model::InputError(file, at + "/repetition_s", "expected an array of numbers");
      for (const auto& x : r["repetition_s"]) {
        if (!x.is_number()) throw model::InputError(file, at + "/repetition_s", "expected an array of numbers");
        run.repetition_s.push_back(x.get<double>());
      }
    }
    if (run.workload == workload) runs.push_back(run);
  }
  std::vector<SwitchAdvice> advice;
  for (const auto& [setting, baseline] : {std::pair<std::string, std::string>{"allocator", "glibc"}, {"huge_pages", "off"}}) {
    // Per kernel id: the baseline run and the fastest other value.
    std::map<std::string, std::vector<const SwitchRun*>> by_id;
    for (const SwitchRun& r : runs)
      if (r.setting == setting) by_id[r.id].push_back(&r);
    for (const auto& [id, list] : by_id) {
      const SwitchRun* base = nullptr;
      const SwitchRun* best = nullptr;
      for (const SwitchRun* r : list) {
        if (r->value == baseline) base = r;
        else if (best == nullptr || r->measured_s < best->measured_s) best = r;
      }
      if (base == nullptr || best == nullptr) continue;
      SwitchAdvice a;
      a.setting = setting;
      a.baseline = baseline;
      a.baseline_s = base->measured_s;
      a.evidence = id;
      const double noise = std::max({0.03, spread(base->repetition_s, base->measured_s), spread(best->repetition_s, best->measured_s)});
      a.noise = noise;
      a.fastest_other = best->value;
      a.fastest_other_s = best->measured_s;
      a.better = (base->measured_s - best->measured_s) / base->measured_s > noise;
      a.value = a.better ? best->value : baseline;
      a.value_s = a.better ? best->measured_s : base->measured_s;
      advice.push_back(a);
      break;  // one kernel per workload and setting in the suite's subset
    }
  }
  return advice;
}

}  // namespace numatwin::validate
