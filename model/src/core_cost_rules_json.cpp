#include "numatwin/model/core_cost_rules_json.hpp"

#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::model {
namespace {

// A loop's cycles per tuple: >= 0 and below kMostCycles (a loop of a million cycles a tuple is no
// in-core figure; it would also overflow the rule's range products).
constexpr double kMostCycles = 1e6;

double cycles(const JsonReader& r) {
  const double v = r.number();
  if (!(v >= 0.0 && v < kMostCycles)) r.fail("expected cycles >= 0 and below 1e6");
  return v;
}

}  // namespace

LoopCycleTable parse_loop_cycles(std::string_view json_text, const std::string& source_name) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json_text.begin(), json_text.end());
  } catch (const nlohmann::json::exception& e) {
    throw InputError(source_name, "", std::string("not valid JSON (") + e.what() + "): expected a loop-cycle table");
  }
  const JsonReader root(document, "", source_name);
  root.expect_object("a loop-cycle table {\"provenance\": ..., \"microarchitectures\": ...}");
  LoopCycleTable table;
  table.file = source_name;
  table.analyser = root.field("provenance").field("llvm_mca").string(true);
  const JsonReader cores = root.field("microarchitectures");
  cores.expect_object("one entry per microarchitecture");
  if (cores.size() == 0) cores.fail("expected at least one microarchitecture");
  for (const auto& [name, value] : document.at("microarchitectures").items()) {
    const JsonReader core = cores.field(name.c_str());
    core.expect_object("a microarchitecture's analysed loops");
    AnalysedCore c;
    c.name = name;
    const JsonReader model = core.field("scheduling_model");
    model.expect_object("{\"model\": ..., \"borrowed\": ...}");
    const JsonReader model_name = model.field("model");
    if (!model_name.json().is_null()) {
      c.scheduling_model = model_name.string(true);
      c.borrowed = model.field("borrowed").boolean();
      const JsonReader costs = core.field("model_costs");
      costs.expect_object("the analysed cycles per operator cost");
      for (const std::string_view cost : kAnalysedLoopCosts) {
        const std::string key(cost);
        c.costs[key] = cycles(costs.field(key.c_str()).field("value"));
      }
      c.costs["sort_cycles_per_comparison"] = cycles(costs.field("sort_cycles_per_comparison").field("value"));
      c.costs["index_cycles_per_level"] = cycles(costs.field("index_join").field("inner_level"));
      const JsonReader select = costs.field("select_cycles_per_value");
      c.select_16 = cycles(select.field("select_16"));
      c.select_256 = cycles(select.field("select_256"));
    }
    table.cores.emplace(name, std::move(c));
  }
  return table;
}

LoopCycleTable load_loop_cycles(const std::filesystem::path& path) { return parse_loop_cycles(read_input_file(path), path.string()); }

}  // namespace numatwin::model
