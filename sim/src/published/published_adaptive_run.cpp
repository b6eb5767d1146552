// The published-figures check's adaptive engine runs (published_check.hpp): a scenario run as
// `numatwin adaptive` runs it, its queries per second the metric. With adaptive stealing and no
// threshold in the scenario, the threshold is first calibrated on the machine
// (calibrate_stealing with its default options), as the command does.
#include <stdexcept>

#include "numatwin/sim/adaptive/adaptive_engine.hpp"
#include "numatwin/sim/adaptive/adaptive_stealing_calibration.hpp"
#include "numatwin/sim/published/published_check.hpp"

namespace numatwin::sim {

double adaptive_run_metric(const model::Topology& topology, AdaptiveScenario scenario,
                           PublishedMetric metric) {
  if (metric != PublishedMetric::kQueriesPerS) {
    throw std::invalid_argument("an adaptive engine run has one metric, queries_per_s; found " +
                                published_metric_name(metric));
  }
  if (scenario.stealing == StealingMode::kAdaptive && !scenario.stealing_threshold_bytes_per_s)
    scenario.stealing_threshold_bytes_per_s = calibrate_stealing(topology).threshold_bytes_per_s;
  const AdaptiveResult result = run_adaptive(topology, scenario);
  if (!(result.duration_s > 0.0)) throw std::logic_error("an adaptive run took no time");
  return result.queries_per_s;
}

}  // namespace numatwin::sim
