#include "io/lab_machines.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"
#include "numatwin/model/spec_sheet_json.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::cli {
namespace {

double mlc_write_fraction(const std::string& mix) {
  if (mix == "ALL Reads") return 0.0;
  if (mix == "3:1 Reads-Writes") return 0.25;
  if (mix == "2:1 Reads-Writes") return 1.0 / 3.0;
  if (mix == "1:1 Reads-Writes") return 0.5;
  if (mix == "Stream-triad like") return 1.0 / 3.0;
  return -1.0;
}

void add_matrix(const std::vector<int>& rows, const std::vector<int>& columns, const std::vector<std::vector<double>>& x,
                const std::string& section, std::vector<model::NodePairFigure>* out) {
  for (std::size_t r = 0; r < x.size(); ++r) {
    for (std::size_t c = 0; c < x[r].size(); ++c) {
      out->push_back({rows[r], columns[c], x[r][c], section + " " + std::to_string(rows[r]) + " -> " + std::to_string(columns[c])});
    }
  }
}

model::MeasuredMachine lab_machine(const std::filesystem::path& manifest) {
  const std::string file = manifest.string();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(model::read_input_file(manifest));
  } catch (const nlohmann::json::exception& e) {  // a parse error, or a number too large for a double (1e400)
    throw model::InputError(file, "", std::string("expected JSON (") + e.what() + ")");
  }
  const model::JsonReader r(doc, "", file);
  r.expect_object("a lab machine {\"format\", \"format_version\", \"id\", \"spec_sheet\", \"mlc_output\", \"provenance\"}");
  r.allow_only({"format", "format_version", "id", "spec_sheet", "mlc_output", "provenance"});
  if (r.field("format").string(true) != "numatwin-lab-machine") r.field("format").fail("expected \"numatwin-lab-machine\"");
  if (r.field("format_version").integer(1, 1) != 1) r.field("format_version").fail("expected 1");
  model::MeasuredMachine m;
  m.id = r.field("id").string(true);
  m.file = file;
  const std::filesystem::path base = manifest.parent_path();
  const std::filesystem::path spec = base / r.field("spec_sheet").string(true);
  const std::filesystem::path mlc_path = base / r.field("mlc_output").string(true);
  m.spec = model::load_spec_sheet(spec);
  m.spec_file = spec.string();
  const validate::MlcResults mlc = validate::load_mlc_output(mlc_path);
  const std::string at = mlc_path.filename().string() + ":";
  add_matrix(mlc.latency_cpu_nodes, mlc.latency_nodes, mlc.latency_matrix_ns, at + " latency matrix", &m.idle_latency_ns);
  add_matrix(mlc.bandwidth_cpu_nodes, mlc.bandwidth_nodes, mlc.bandwidth_matrix_gbps, at + " bandwidth matrix",
             &m.bandwidth_gbps);
  if (mlc.idle_latency_ns) m.idle_latency_ns.push_back({0, 0, *mlc.idle_latency_ns, at + " idle latency"});
  const auto peaks = [&](const std::map<std::string, double>& section, const std::string& name) {
    for (const auto& [mix, gbps] : section) {
      const double w = mlc_write_fraction(mix);
      if (w < 0.0) {
        m.unpredicted.push_back({model::FigureClass::kPeakInjection, at + " " + name, mix, 1, "a mix the model does not know"});
        continue;
      }
      m.peak_injection.push_back({mix, w, model::FigureScope::kWholeMachine, gbps, at + " " + name + " " + mix});
    }
  };
  peaks(mlc.peak_injection_gbps, "peak injection");
  peaks(mlc.max_bandwidth_gbps, "max bandwidth");
  if (!mlc.loaded_latency.empty()) {
    model::LoadedLatencyCurve curve{"read-only", 0.0, model::FigureScope::kWholeMachine, {}, at + " loaded latency"};
    for (const auto& p : mlc.loaded_latency) curve.points.push_back({p.bandwidth_gbps, p.latency_ns});
    m.loaded_latency.push_back(std::move(curve));
  }
  return m;
}

}  // namespace

std::vector<model::MeasuredMachine> load_lab_machines(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<model::MeasuredMachine> out;
  for (const auto& f : files) out.push_back(lab_machine(f));
  return out;
}

}  // namespace numatwin::cli
