// The measured runs of a saved `validate suite` report (validation_report.hpp's JSON), for
// `validate suite --measurements FILE`: predict and fit the same runs again (after a model or
// topology change) without running any kernel.
//
// Read per kernel: "id" and from "details": measured_s, repetition_s, work, work_unit, phases,
// allocator, huge_pages, verified, verification, checksum (the observed threads and datasets
// are not read back). Also the report's measured shared-line transfer
// ("measured_costs"/"shared_line_transfer_ns") and the cost microbenchmarks' timings
// ("operator_costs"/"timings", cost_microbenchmarks.hpp), when it has them (a report from before
// the microbenchmarks has neither or only the first).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "numatwin/validate/measure/cost_microbenchmarks.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

struct SavedRun {
  RealRun measured;
  std::string allocator;
};

struct SavedMeasurements {
  std::string file;
  std::map<std::string, SavedRun> runs;  // by kernel id
  std::optional<double> shared_line_transfer_ns;
  std::optional<CostTimings> cost_timings;
};

// The timings of the "operator_costs" section of a `validate measure` or `validate suite` report
// (for `validate suite --costs FILE`). Throws model::InputError naming the file and field, also
// when the report has no such section.
CostTimings read_cost_timings(const std::string& path);

// Throws model::InputError naming the file, the JSON pointer and what was expected.
SavedMeasurements read_saved_measurements(const std::string& path);

}  // namespace numatwin::validate
