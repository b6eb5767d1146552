// libFuzzer target for the topology reader: for any input text, parse_topology must either
// return a Topology or throw InputError. Any other exception, crash, leak or undefined
// behaviour is a finding. Accepted inputs must also survive a round trip through the writer.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/model/topology_json.hpp"

namespace {

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "topology_loader_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();  // libFuzzer saves the input as a crash artifact
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace model = numatwin::model;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  model::Topology topology;
  try {
    topology = model::parse_topology(text, "<fuzz-input>");
  } catch (const model::InputError&) {
    return 0;  // rejected with a proper message: the expected outcome for most inputs
  }

  // docs: "Re-parsing [the canonical text] gives an equal Topology". An InputError here is a
  // finding too: the writer produced a document the reader rejects.
  const std::string canonical = model::topology_to_json_text(topology);
  model::Topology reparsed;
  try {
    reparsed = model::parse_topology(canonical, "<fuzz-canonical>");
  } catch (const model::InputError& error) {
    report_finding("canonical text of an accepted input is rejected",
                   std::string(error.what()) + "\n" + canonical);
  }
  if (!(reparsed == topology)) {
    report_finding("round trip changed the topology; canonical text:", canonical);
  }
  return 0;
}
