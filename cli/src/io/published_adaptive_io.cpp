#include "io/published_adaptive_io.hpp"

#include <stdexcept>

#include "options/adaptive_overrides.hpp"
#include "io/adaptive_scenario_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/sim/adaptive/adaptive_engine.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {

sim::AdaptiveScenario read_published_adaptive_run(const model::JsonReader& r, const model::Topology& t) {
  const model::JsonReader scenario = r.field("scenario");
  const int sockets = static_cast<int>(sim::adaptive_sockets(t).size());
  if (sockets < 2) r.field("topology").fail("expected a machine with at least two sockets with cores and memory");
  sim::AdaptiveScenario sc;
  try {
    sc = load_adaptive_scenario(model::find_scenario(scenario.string(true)), sockets);
  } catch (const model::InputError&) {
    throw;  // the scenario file itself is bad: its own error names it
  } catch (const std::exception& ex) {
    scenario.fail(ex.what());
  }
  AdaptiveOverrides o;
  const auto text = [&r](const char* key, std::string& out) {
    if (r.has(key)) out = r.field(key).string(true);
  };
  text("placer", o.placer);
  text("stealing", o.stealing);
  if (r.has("seed")) o.seed = r.field("seed").unsigned_integer();
  if (r.has("duration")) o.duration_s = r.field("duration").number();
  if (r.has("parts")) o.parts = r.field("parts").small_integer(1);
  if (r.has("table-bytes")) o.table_bytes = r.field("table-bytes").number();
  if (r.has("selectivity")) o.selectivity = r.field("selectivity").number();
  try {
    apply_adaptive_overrides(o, sc);
  } catch (const std::invalid_argument& ex) {
    r.fail(ex.what());
  }
  return sc;
}

}  // namespace numatwin::cli
