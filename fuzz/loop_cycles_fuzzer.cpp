// libFuzzer target for the loop-cycle table reader and the rule behind `topo derive-costs`
// (model/core_cost_rules.hpp): for any input text, parse_loop_cycles must return a table or throw
// InputError; for every core of an accepted table, derive_core_costs must give costs with
// finite 0 <= low <= value <= high (the topology checks' rule for operator costs), or refuse the
// core with std::invalid_argument. Anything else is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>

#include "numatwin/model/core_cost_rules_json.hpp"
#include "numatwin/model/input_error.hpp"

namespace {

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "loop_cycles_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace model = numatwin::model;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  model::LoopCycleTable table;
  try {
    table = model::parse_loop_cycles(text, "<fuzz-input>");
  } catch (const model::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    report_finding("parse_loop_cycles threw something other than InputError", e.what());
  }
  for (const auto& [name, core] : table.cores) {
    try {
      for (const model::NamedCost& c : model::derive_core_costs(table, name)) {
        const model::CostValue& v = c.cost;
        if (!(std::isfinite(v.low) && std::isfinite(v.value) && std::isfinite(v.high) && 0.0 <= v.low && v.low <= v.value &&
              v.value <= v.high)) {
          report_finding("derive_core_costs gave a cost outside finite 0 <= low <= value <= high",
                         name + " " + c.name + " " + std::to_string(v.low) + " " + std::to_string(v.value) + " " + std::to_string(v.high));
        }
      }
    } catch (const std::invalid_argument&) {
      // refused: no scheduling model
    } catch (const std::exception& e) {
      report_finding("derive_core_costs threw something other than std::invalid_argument", e.what());
    }
  }
  return 0;
}
