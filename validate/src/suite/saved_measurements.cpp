#include "numatwin/validate/suite/saved_measurements.hpp"

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::validate {

namespace {

nlohmann::json parse_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw model::InputError(path, "", "cannot read the file");
  try {
    return nlohmann::json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number too large for a double (1e400)
    throw model::InputError(path, "", std::string("expected JSON: ") + e.what());
  }
}

}  // namespace

CostTimings read_cost_timings(const std::string& path) {
  const nlohmann::json doc = parse_file(path);
  const model::JsonReader root(doc, "", path);
  root.expect_object("a report of numatwin validate measure or validate suite");
  return cost_timings_from_json(root.field("operator_costs"));
}

SavedMeasurements read_saved_measurements(const std::string& path) {
  const nlohmann::json doc = parse_file(path);
  const model::JsonReader root(doc, "", path);
  root.expect_object("a validation report");
  if (root.field("format").string(false) != "numatwin-validation-report")
    root.field("format").fail("expected \"numatwin-validation-report\" (a report of numatwin validate suite)");
  const model::JsonReader kernels = root.field("kernels");
  kernels.expect_array("the report's kernels");
  SavedMeasurements out;
  out.file = path;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const model::JsonReader k = kernels.element(i);
    k.expect_object("a kernel");
    const model::JsonReader d = k.field("details");
    d.expect_object("the kernel's details");
    SavedRun run;
    RealRun& m = run.measured;
    m.seconds = d.field("measured_s").number();
    if (!(m.seconds > 0.0)) d.field("measured_s").fail("expected a number > 0");
    m.work = d.field("work").number();
    m.work_unit = d.field("work_unit").string(true);
    m.verified = d.field("verified").boolean();
    m.verification = d.field("verification").string(false);
    m.huge_pages = d.field("huge_pages").boolean();
    if (d.has("huge_pages_setting")) m.huge_pages_setting = d.field("huge_pages_setting").string(false);
    m.checksum = d.field("checksum").unsigned_integer();
    run.allocator = d.field("allocator").string(true);
    const model::JsonReader reps = d.field("repetition_s");
    reps.expect_array("the repetitions' seconds");
    for (std::size_t j = 0; j < reps.size(); ++j) m.repetition_seconds.push_back(reps.element(j).number());
    const model::JsonReader phases = d.field("phases");
    phases.expect_array("the phases");
    for (std::size_t j = 0; j < phases.size(); ++j) {
      const model::JsonReader p = phases.element(j);
      m.phases.push_back({p.field("name").string(true), p.field("seconds").number()});
    }
    const model::JsonReader id = k.field("id");
    if (!out.runs.emplace(id.string(true), std::move(run)).second) id.fail("this kernel appears twice");
  }
  if (root.has("measured_costs")) {
    const model::JsonReader ns = root.field("measured_costs").field("shared_line_transfer_ns");
    out.shared_line_transfer_ns = ns.number();
    if (!(*out.shared_line_transfer_ns > 0.0)) ns.fail("expected a number > 0");
  }
  if (root.has("operator_costs")) out.cost_timings = cost_timings_from_json(root.field("operator_costs"));
  return out;
}

}  // namespace numatwin::validate
