// libFuzzer target for the adaptive scenario reader behind `numatwin adaptive --scenario FILE`
// (cli/src/io/adaptive_scenario_io.hpp, docs/adaptive.md): for any input text,
// parse_adaptive_scenario must return a scenario or throw InputError. An accepted scenario's
// names must resolve (every table, task class and query type index a client group, query type
// or join names is in range; table sockets below the machine's) and its figures must be finite,
// since the engine indexes and divides by them unchecked. Anything else is a finding.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <vector>

#include "io/adaptive_scenario_io.hpp"
#include "numatwin/model/input_error.hpp"

namespace {

namespace sim = numatwin::sim;

constexpr int kSockets = 4;  // the shipped scenarios' largest machine has four

[[noreturn]] void report_finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "adaptive_scenario_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

bool in_range(int index, std::size_t size) {
  return index >= 0 && static_cast<std::size_t>(index) < size;
}

void check_choices(const std::vector<sim::WeightedChoice>& choices, std::size_t size,
                   const char* what) {
  for (const sim::WeightedChoice& c : choices) {
    if (!in_range(c.index, size))
      report_finding("a client group names an index out of range", what);
    if (!std::isfinite(c.weight) || !(c.weight > 0.0))
      report_finding("a client group's weight is not finite and > 0", what);
  }
}

void check_scenario(const sim::AdaptiveScenario& sc) {
  for (double x : {sc.duration_s, sc.page_bytes, sc.task_bytes}) {
    if (!std::isfinite(x) || !(x > 0.0))
      report_finding("duration_s, page_bytes or task_bytes is not finite and > 0", sc.name);
  }
  if (sc.tables.empty() || sc.clients.empty() || sc.classes.empty())
    report_finding("no tables, clients or task classes", sc.name);
  for (const sim::AdaptiveTable& t : sc.tables) {
    if (!in_range(t.socket, kSockets)) report_finding("a table's socket is out of range", t.name);
    if (!std::isfinite(t.size_bytes) || !(t.size_bytes > 0.0) || t.parts < 1)
      report_finding("a table's size or parts", t.name);
  }
  for (const sim::AdaptiveQueryType& q : sc.query_types) {
    for (int c : q.class_of_phase) {
      if (!in_range(c, sc.classes.size()))
        report_finding("a query type's phase class is out of range", q.name);
    }
    if (q.kind == sim::AdaptiveQueryKind::kJoin && !in_range(q.join_table, sc.tables.size())) {
      report_finding("a join's table is out of range", q.name);
    }
  }
  for (const sim::AdaptiveClientGroup& g : sc.clients) {
    if (g.tables.empty() || (g.classes.empty() && g.query_types.empty()))
      report_finding("a client group with nothing to draw", "");
    check_choices(g.tables, sc.tables.size(), "tables");
    check_choices(g.classes, sc.classes.size(), "task classes");
    check_choices(g.query_types, sc.query_types.size(), "query types");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  sim::AdaptiveScenario scenario;
  try {
    scenario = numatwin::cli::parse_adaptive_scenario(text, "<fuzz-input>", kSockets);
  } catch (const numatwin::model::InputError&) {
    return 0;
  } catch (const std::exception& e) {
    report_finding("parse_adaptive_scenario threw something other than InputError", e.what());
  }
  check_scenario(scenario);
  return 0;
}
