// libFuzzer target for the Intel mlc text output reader behind `numatwin validate import-mlc` and
// `validate calibrate --from-mlc` (validate/mlc_import.hpp): for any input text,
// parse_mlc_output must return results or throw InputError. Accepted results must be what the
// header promises (one row of finite figures > 0 per row label, one figure per column label, rows
// among the columns), and calibration_data_from_mlc against a shipped machine with as many NUMA
// nodes as the matrices have columns must give finite points > 0 or refuse with InputError.
// Anything else is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace {

namespace model = numatwin::model;
namespace validate = numatwin::validate;

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "mlc_output_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

bool positive_finite(double x) { return std::isfinite(x) && x > 0.0; }

void check_matrix(const char* what, const std::vector<int>& columns, const std::vector<int>& rows,
                  const std::vector<std::vector<double>>& matrix) {
  if (matrix.size() != rows.size())
    report_finding("a matrix has another number of rows than row labels", what);
  for (int row : rows) {
    if (validate::mlc_index_of(columns, row) < 0)
      report_finding("a matrix row is not among its columns", what);
  }
  for (const std::vector<double>& row : matrix) {
    if (row.size() != columns.size())
      report_finding("a matrix row has another number of figures than columns", what);
    for (double x : row) {
      if (!positive_finite(x)) report_finding("a matrix figure is not finite and > 0", what);
    }
  }
}

void check_results(const validate::MlcResults& r) {
  check_matrix("bandwidth", r.bandwidth_nodes, r.bandwidth_cpu_nodes, r.bandwidth_matrix_gbps);
  check_matrix("latency", r.latency_nodes, r.latency_cpu_nodes, r.latency_matrix_ns);
  if (r.idle_latency_ns && !positive_finite(*r.idle_latency_ns))
    report_finding("the idle latency is not finite and > 0", "");
  for (const validate::MlcLoadedLatencyPoint& p : r.loaded_latency) {
    if (!positive_finite(p.latency_ns) || !positive_finite(p.bandwidth_gbps)) {
      report_finding("a loaded-latency point is not finite and > 0",
                     "line " + std::to_string(p.line));
    }
  }
}

// Shipped machines of 2, 4 (two of them CPU-less) and 8 NUMA nodes, read once.
const std::vector<model::Topology>& machines() {
  static const std::vector<model::Topology> loaded = [] {
    std::vector<model::Topology> out;
    for (const char* name : {"skylake-4114-2s", "spr-cxl-2s", "nehalem-ex-4s", "nehalem-ex-8s"}) {
      out.push_back(
          model::load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/" + name + ".json"));
    }
    return out;
  }();
  return loaded;
}

void check_calibration(const validate::MlcResults& r) {
  const std::size_t columns =
      !r.bandwidth_nodes.empty() ? r.bandwidth_nodes.size() : r.latency_nodes.size();
  for (const model::Topology& t : machines()) {
    if (columns != 0 && t.numa_nodes().size() != columns) continue;
    validate::CalibrationData data;
    try {
      data = validate::calibration_data_from_mlc(r, t);
    } catch (const model::InputError&) {
      continue;  // refused with a message: fine
    } catch (const std::exception& e) {
      report_finding("calibration_data_from_mlc threw something other than InputError",
                     t.name + ": " + e.what());
    }
    for (const validate::CalibrationPoint& p : data.points) {
      if (!positive_finite(p.value))
        report_finding("a calibration point is not finite and > 0", t.name + ": " + p.id);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  validate::MlcResults results;
  try {
    results = validate::parse_mlc_output(text, "<fuzz-input>");
  } catch (const model::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    report_finding("parse_mlc_output threw something other than InputError", e.what());
  }
  check_results(results);
  check_calibration(results);
  return 0;
}
