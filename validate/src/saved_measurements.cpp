#include "numatwin/validate/saved_measurements.hpp"

#include <fstream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

using Json = nlohmann::json;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& expectation) const {
    throw model::InputError(file_, pointer, expectation);
  }

  const Json& field(const Json& object, const std::string& pointer, const char* name) const {
    if (!object.is_object() || !object.contains(name)) fail(pointer + "/" + name, "missing");
    return object[name];
  }

  double number(const Json& object, const std::string& pointer, const char* name, bool positive) const {
    const Json& v = field(object, pointer, name);
    if (!v.is_number() || (positive && !(v.get<double>() > 0.0))) fail(pointer + "/" + name, positive ? "expected a number > 0" : "expected a number");
    return v.get<double>();
  }

  std::string text(const Json& object, const std::string& pointer, const char* name) const {
    const Json& v = field(object, pointer, name);
    if (!v.is_string()) fail(pointer + "/" + name, "expected a string");
    return v.get<std::string>();
  }

  bool flag(const Json& object, const std::string& pointer, const char* name) const {
    const Json& v = field(object, pointer, name);
    if (!v.is_boolean()) fail(pointer + "/" + name, "expected true or false");
    return v.get<bool>();
  }

 private:
  std::string file_;
};

}  // namespace

SavedMeasurements read_saved_measurements(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw model::InputError(path, "", "cannot read the file");
  const Reader r(path);
  Json doc;
  try {
    doc = Json::parse(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  } catch (const Json::parse_error& e) {
    r.fail("", std::string("expected JSON: ") + e.what());
  }
  if (!doc.is_object() || doc.value("format", "") != "numatwin-validation-report")
    r.fail("/format", "expected \"numatwin-validation-report\" (a report of numatwin validate suite)");
  const Json& kernels = r.field(doc, "", "kernels");
  if (!kernels.is_array()) r.fail("/kernels", "expected an array");
  SavedMeasurements out;
  out.file = path;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const std::string at = "/kernels/" + std::to_string(i);
    const Json& k = kernels[i];
    const std::string id = r.text(k, at, "id");
    const Json& d = r.field(k, at, "details");
    const std::string dp = at + "/details";
    SavedRun run;
    RealRun& m = run.measured;
    m.seconds = r.number(d, dp, "measured_s", true);
    m.work = r.number(d, dp, "work", false);
    m.work_unit = r.text(d, dp, "work_unit");
    m.verified = r.flag(d, dp, "verified");
    m.verification = r.text(d, dp, "verification");
    m.huge_pages = r.flag(d, dp, "huge_pages");
    run.allocator = r.text(d, dp, "allocator");
    const Json& reps = r.field(d, dp, "repetition_s");
    if (!reps.is_array()) r.fail(dp + "/repetition_s", "expected an array of seconds");
    for (std::size_t j = 0; j < reps.size(); ++j) {
      if (!reps[j].is_number()) r.fail(dp + "/repetition_s/" + std::to_string(j), "expected a number");
      m.repetition_seconds.push_back(reps[j].get<double>());
    }
    const Json& phases = r.field(d, dp, "phases");
    if (!phases.is_array()) r.fail(dp + "/phases", "expected an array");
    for (std::size_t j = 0; j < phases.size(); ++j) {
      const std::string pp = dp + "/phases/" + std::to_string(j);
      m.phases.push_back({r.text(phases[j], pp, "name"), r.number(phases[j], pp, "seconds", false)});
    }
    const Json& checksum = r.field(d, dp, "checksum");
    if (!checksum.is_number_unsigned() && !checksum.is_number_integer()) r.fail(dp + "/checksum", "expected an integer");
    m.checksum = checksum.get<std::uint64_t>();
    if (!out.runs.emplace(id, std::move(run)).second) r.fail(at + "/id", "kernel \"" + id + "\" appears twice");
  }
  if (doc.contains("measured_costs")) {
    out.shared_line_transfer_ns = r.number(doc["measured_costs"], "/measured_costs", "shared_line_transfer_ns", true);
  }
  return out;
}

}  // namespace numatwin::validate
