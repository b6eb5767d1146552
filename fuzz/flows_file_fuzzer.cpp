// libFuzzer target for the flows file reader behind `numatwin flows --flows-file FILE`
// (cli/src/io/flow_spec.hpp): for any input text, parse_flows_file against a shipped machine
// (nehalem-ex-4s-4link, four sockets with SMT, and spr-cxl-2s, with CPU-less CXL nodes) must
// return the flows or throw InputError. Accepted flows must be what the simulator is handed:
// every flow has threads, each on a CPU of the machine that no other thread holds, cores in
// range, and read and write shares on nodes with memory that sum to 1. Anything else is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/flow_spec.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/model/topology_json.hpp"

namespace {

namespace model = numatwin::model;
namespace cli = numatwin::cli;

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "flows_file_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

const std::vector<model::Topology>& machines() {
  static const std::vector<model::Topology> loaded = [] {
    std::vector<model::Topology> out;
    for (const char* name : {"nehalem-ex-4s-4link", "spr-cxl-2s"}) {
      out.push_back(
          model::load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/" + name + ".json"));
    }
    return out;
  }();
  return loaded;
}

void check_shares(const std::vector<model::NodeShare>& shares, const model::Topology& t,
                  const std::string& flow) {
  double sum = 0.0;
  for (const model::NodeShare& s : shares) {
    if (s.node < 0 || static_cast<std::size_t>(s.node) >= t.nodes.size() ||
        !t.nodes[s.node].has_memory()) {
      report_finding("a flow accesses a node that does not exist or has no memory", flow);
    }
    if (!std::isfinite(s.fraction) || !(s.fraction > 0.0))
      report_finding("a flow's share of a node is not finite and > 0", flow);
    sum += s.fraction;
  }
  if (!shares.empty() && std::abs(sum - 1.0) > 1e-9)
    report_finding("a flow's shares do not sum to 1", flow);
}

void check_flows(const std::vector<cli::ResolvedFlow>& flows, const model::Topology& t) {
  std::set<int> taken;
  for (const cli::ResolvedFlow& f : flows) {
    const std::string name = t.name + ": " + f.cpus_text + " " + f.access_text;
    if (f.cpu_ids.empty() || f.cpu_ids.size() != f.flow.cores.size())
      report_finding("a flow without threads, or cores not per thread", name);
    for (int cpu : f.cpu_ids) {
      if (cpu < 0 || cpu >= t.total_hardware_threads() || !taken.insert(cpu).second)
        report_finding("a CPU out of range or taken twice", name);
    }
    for (int core : f.flow.cores) {
      if (core < 0 || core >= t.total_cores()) report_finding("a core out of range", name);
    }
    if (f.flow.read.empty() && f.flow.write.empty())
      report_finding("a flow that neither reads nor writes", name);
    check_shares(f.flow.read, t, name);
    check_shares(f.flow.write, t, name);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const model::Topology& t : machines()) {
    std::vector<cli::ResolvedFlow> flows;
    try {
      flows = cli::parse_flows_file(text, "<fuzz-input>", t);
    } catch (const model::InputError&) {
      continue;
    } catch (const std::exception& e) {
      report_finding("parse_flows_file threw something other than InputError",
                     t.name + ": " + e.what());
    }
    check_flows(flows, t);
  }
  return 0;
}
