// The interval and the cost basis of a prediction, for predict and compare
// (sim/uncertainty/prediction_interval.hpp has the sampling; sim/workload/cost_basis.hpp the basis).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::cli {

using sim::PredictionUncertainty;

// "0.123 s [0.101, 0.160]" with the given number format.
std::string interval_text(const sim::Interval& interval, const char* unit, int digits = 4);

nlohmann::ordered_json uncertainty_json(const PredictionUncertainty& u, const sim::CostBasis& basis, const char* rate_name);

}  // namespace numatwin::cli
