// The measured runs of a saved `validate suite` report (validation_report.hpp's JSON), for
// `validate suite --measurements FILE`: predict and fit the same runs again (after a model or
// topology change) without running any kernel.
//
// Read per kernel: "id" and from "details": measured_s, repetition_s, work, work_unit, phases,
// allocator, huge_pages, verified, verification, checksum (the observed threads and datasets
// are not read back). Also the report's measured shared-line transfer
// ("measured_costs"/"shared_line_transfer_ns"), when it has one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "numatwin/validate/workload_run.hpp"

namespace numatwin::validate {

struct SavedRun {
  RealRun measured;
  std::string allocator;
};

struct SavedMeasurements {
  std::string file;
  std::map<std::string, SavedRun> runs;  // by kernel id
  std::optional<double> shared_line_transfer_ns;
};

// Throws model::InputError naming the file, the JSON pointer and what was expected.
SavedMeasurements read_saved_measurements(const std::string& path);

}  // namespace numatwin::validate
