// libFuzzer target for the kerncraft machine file (YAML) reader behind `numatwin validate
// import-kerncraft` and `validate calibrate --from-kerncraft` (validate/kerncraft_import.hpp):
// for any input text, parse_kerncraft must return a machine or throw InputError. An accepted
// machine must be what the header promises (counts >= 1, core counts 1..cores per socket with a
// finite load bandwidth > 0 each, a memory hierarchy ending in MEM), and
// calibration_data_from_kerncraft against a shipped machine with 56 cores a socket (spr-cxl-2s)
// must give finite points > 0 or refuse with InputError. Anything else is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"
#include "numatwin/validate/calibrate/kerncraft_import.hpp"

namespace {

namespace model = numatwin::model;
namespace validate = numatwin::validate;

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "kerncraft_machine_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

bool positive_finite(double x) { return std::isfinite(x) && x > 0.0; }

void check_machine(const validate::KerncraftMachine& m) {
  if (m.sockets < 1 || m.cores_per_socket < 1 || m.threads_per_core < 1 ||
      m.numa_domains_per_socket < 1 || m.cores_per_numa_domain < 1) {
    report_finding("an accepted machine has a count below 1", m.model_name);
  }
  if (m.clock_ghz != 0.0 && !positive_finite(m.clock_ghz))
    report_finding("the clock is not finite and > 0", "");
  for (const validate::KerncraftCurve& curve : m.memory_load) {
    if (curve.cores.empty() || curve.cores.size() != curve.load_gbps.size())
      report_finding("a load curve is empty or uneven", "");
    for (std::size_t i = 0; i < curve.cores.size(); ++i) {
      if (curve.cores[i] < 1 || curve.cores[i] > m.cores_per_socket)
        report_finding("a core count outside 1..cores per socket", "");
      if (!positive_finite(curve.load_gbps[i]))
        report_finding("a load bandwidth is not finite and > 0", "");
    }
  }
  if (!m.hierarchy.empty() && m.hierarchy.back().name != "MEM")
    report_finding("the memory hierarchy does not end in MEM", "");
  for (const validate::KerncraftLevel& level : m.hierarchy) {
    if (level.cores_per_group < 1 || !std::isfinite(level.size_bytes) || level.size_bytes < 0.0 ||
        !std::isfinite(level.bytes_per_cycle) || level.bytes_per_cycle < 0.0) {
      report_finding("a level of the memory hierarchy has a figure out of range", level.name);
    }
  }
}

void check_calibration(const validate::KerncraftMachine& m) {
  static const model::Topology machine =
      model::load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/spr-cxl-2s.json");
  validate::CalibrationData data;
  try {
    data = validate::calibration_data_from_kerncraft(m, machine);
  } catch (const model::InputError&) {
    return;
  } catch (const std::exception& e) {
    report_finding("calibration_data_from_kerncraft threw something other than InputError",
                   e.what());
  }
  for (const validate::CalibrationPoint& p : data.points) {
    if (!positive_finite(p.value))
      report_finding("a calibration point is not finite and > 0", p.id);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  validate::KerncraftMachine machine;
  try {
    machine = validate::parse_kerncraft(text, "<fuzz-input>");
  } catch (const model::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    report_finding("parse_kerncraft threw something other than InputError", e.what());
  }
  check_machine(machine);
  check_calibration(machine);
  return 0;
}
