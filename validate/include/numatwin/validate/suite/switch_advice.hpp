// Allocators and transparent huge pages are not predicted by the model: `validate suite
// --switches` measures them on a subset of the suite (COUNT, MEDIAN, hash join at T threads),
// and `advise --validation-report` recommends from those measurements.
//
// Report block "switches":
//   {"system": {THP and numa_balancing as found},
//    "runs": [{"id", "workload", "setting" ("allocator" | "huge_pages"), "value" ("jemalloc",
//              "on", ...), "measured_s", "repetition_s": [...]}],
//    "not_measured": {"numa_balancing": "reason", "allocator tbbmalloc": "reason", ...}}
// A setting is recommended over the default (glibc; huge pages off) only when it is faster by
// more than the noise: the relative difference of the medians exceeds max(3 %, the larger
// relative spread (max - min) / median of the two runs' repetitions).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace numatwin::validate {

struct SwitchRun {
  std::string id;        // the suite kernel's id
  std::string workload;  // sim::workload_kind_name
  std::string setting;   // "allocator" or "huge_pages"
  std::string value;     // "glibc", "jemalloc", ..., "on", "off"
  double measured_s = 0.0;
  std::vector<double> repetition_s;
};

nlohmann::ordered_json switches_json(const std::vector<SwitchRun>& runs, const nlohmann::ordered_json& system,
                                     const std::map<std::string, std::string>& not_measured);

struct SwitchAdvice {
  std::string setting;    // "allocator" or "huge_pages"
  std::string value;      // recommended value (the default when nothing is measurably better)
  std::string baseline;   // the default it was compared with
  double value_s = 0.0;
  double baseline_s = 0.0;
  std::string fastest_other;  // the fastest non-default value measured, and its time
  double fastest_other_s = 0.0;
  double noise = 0.0;         // the relative difference needed to count (see above)
  std::string evidence;   // kernel id the figures come from
  bool better = false;    // measurably faster than the default
};

// One piece of advice per setting measured for `workload` (an empty list when the report has no
// run of that workload). Throws model::InputError(file, pointer, ...) for a malformed block.
std::vector<SwitchAdvice> advise_switches(const nlohmann::json& switches, const std::string& workload, const std::string& file);

}  // namespace numatwin::validate
