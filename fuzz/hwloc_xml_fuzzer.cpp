// libFuzzer target for the hwloc XML import behind `numatwin validate import-hwloc FILE`
// (validate/machine_discovery.hpp): for any input text, import_hwloc_xml_text must return a
// machine or throw InputError. It runs the same path as the command: our pre-check
// (hwloc_xml_check.hpp), then libhwloc's own XML reader on whatever the pre-check lets through,
// so a crash inside libhwloc is a finding too (an input the pre-check should refuse: hwloc 2.9
// dies on some damaged files instead of refusing them, issue 39 F). An accepted machine must
// give a topology skeleton that loads again (what `--out` writes), or be refused with
// std::invalid_argument (no NUMA node, no node with cores) or an InputError naming the file (its
// figures make no valid topology). Anything else is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

// libhwloc 2.9 leaks the objects it had read when it refuses a damaged file (its XML reader's
// error paths, e.g. a <topology> whose objects end in the middle of a tag): a leak inside the
// library in a one-shot command, not a crash, and not ours to mend. LeakSanitizer ignores
// allocations made inside libhwloc; everything of ours (the topology and the bitmaps we allocate
// are freed by unique_ptr deleters) is still checked.
extern "C" const char* __lsan_default_suppressions() { return "leak:libhwloc.so\n"; }

namespace {

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "hwloc_xml_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();  // libFuzzer saves the input as a crash artifact
}

void check_skeleton(const numatwin::validate::DiscoveredMachine& machine) {
  namespace model = numatwin::model;
  namespace validate = numatwin::validate;
  validate::TopologySkeleton skeleton;
  try {
    skeleton = validate::make_topology_skeleton(machine, "fuzz");
  } catch (const std::invalid_argument&) {
    return;  // no NUMA node or none with cores: refused with a message
  } catch (const model::InputError& e) {
    if (e.file() == "<fuzz-input>")
      return;  // figures that make no valid topology, named against the file
    report_finding("make_topology_skeleton threw an InputError that does not name the file",
                   e.what());
  } catch (const std::exception& e) {
    report_finding(
        "make_topology_skeleton threw something other than std::invalid_argument or InputError",
        e.what());
  }
  const std::string text = model::topology_to_json_text(skeleton.topology);
  try {
    (void)model::parse_topology(text, "<fuzz-skeleton>");
  } catch (const std::exception& e) {
    report_finding("the skeleton of an accepted file does not load again",
                   std::string(e.what()) + "\n" + text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace model = numatwin::model;
  namespace validate = numatwin::validate;
  std::string text(reinterpret_cast<const char*>(data), size);
  validate::DiscoveredMachine machine;
  try {
    machine = validate::import_hwloc_xml_text(std::move(text), "<fuzz-input>");
  } catch (const model::InputError&) {
    return 0;  // refused with the one-line error: fine
  } catch (const std::exception& e) {
    report_finding("import_hwloc_xml_text threw something other than InputError", e.what());
  }
  check_skeleton(machine);
  return 0;
}
