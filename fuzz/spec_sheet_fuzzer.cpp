// libFuzzer target for the spec sheet reader and the derivation behind `topo from-spec`: for any
// input text, parse_spec_sheet must return a SpecSheet or throw InputError, and an accepted
// sheet must derive (in its own mode and in every mode of its vendor) into a topology that
// passes the topology checks, or be refused with InputError. Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/spec_derivation.hpp"
#include "numatwin/model/spec_sheet_json.hpp"

namespace {

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "spec_sheet_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

void derive_or_refuse(const numatwin::model::SpecSheet& spec, const numatwin::model::SpecRules& rules,
                      const char* mode) {
  namespace model = numatwin::model;
  model::DerivationOptions options;
  options.source_name = "<fuzz-input>";
  if (mode != nullptr) options.mode = model::parse_numa_mode(mode);
  try {
    (void)model::derive_machine(spec, rules, options);
  } catch (const model::InputError&) {
    // refused with a message: fine
  } catch (const std::exception& e) {
    report_finding("derive_machine threw something other than InputError", e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace model = numatwin::model;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  model::SpecSheet spec;
  try {
    spec = model::parse_spec_sheet(text, "<fuzz-input>");
  } catch (const model::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    report_finding("parse_spec_sheet threw something other than InputError", e.what());
  }
  static const model::SpecRules rules = model::default_spec_rules();
  derive_or_refuse(spec, rules, nullptr);
  for (const char* mode : {"snc2", "snc3", "snc4", "nps2", "nps4"}) derive_or_refuse(spec, rules, mode);
  return 0;
}
