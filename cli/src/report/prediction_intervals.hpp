// The interval and the cost basis of a prediction, for predict and compare
// (sim/uncertainty/prediction_interval.hpp has the sampling; sim/workload/cost_basis.hpp the basis).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/uncertainty/point_and_interval.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::cli {

using sim::PredictionUncertainty;

// "0.123 s [0.101, 0.160]" with the given number format.
std::string interval_text(const sim::Interval& interval, const char* unit, int digits = 4);

// "0.123 [0.101, 0.160]" and a "*" when the point lies outside (a table cell: the note under the
// table says why, table_point_notes).
std::string interval_cell(const sim::PointVersusInterval& p, int digits = 4);

// The JSON of a point against its interval: {"value", "side", "costs_at_range_end", "note"}.
nlohmann::ordered_json point_json(const sim::PointVersusInterval& p, std::string_view what, std::string_view unit);

// The lines under a table whose cells `marked` (a row's name and its point) were starred: one per
// row, "* NAME: NOTE", the figure named `what` in `unit`.
std::string table_point_notes(const std::vector<std::pair<std::string, sim::PointVersusInterval>>& marked, std::string_view what,
                              std::string_view unit);

// The uncertainty of a prediction whose point (at the costs' own values) is `point_time_s` and
// `point_rate`: the basis, the costs, the intervals and, for each figure, the point against its
// interval ("point": {"time_s": ..., rate_name: ...}).
nlohmann::ordered_json uncertainty_json(const PredictionUncertainty& u, const sim::CostBasis& basis, const char* rate_name,
                                        double point_time_s, double point_rate);

}  // namespace numatwin::cli
