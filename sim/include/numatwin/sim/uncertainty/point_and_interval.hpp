// A point prediction beside the 90 % interval of its samples, and why the point may lie outside.
//
// The point is the prediction at the costs' own values (measured, calibrated, transferred,
// derived or default: cost_basis.hpp); the interval is the 5th and 95th percentiles of the
// predictions at costs drawn log-uniformly within their ranges (prediction_interval.hpp). The
// two answer different questions and need not agree: a cost whose value stands at an end of its
// range (a default share of 1 in [0.5, 1]) is drawn on one side of its value only, so the samples
// all move the prediction one way and the point can fall outside their interval.
//
// Where a drawn cost stands in its range, on the same log scale the draws use:
//   position = ln(value / low) / ln(high / low),  0 at the low end, 1 at the high end;
// the cost stands at an end when position <= 0.05 or >= 0.95 (the outer 5 % of its log-range,
// where fewer than 1 in 20 draws fall on its near side).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"

namespace numatwin::sim {

inline constexpr double kRangeEndShare = 0.05;
// A point within 1e-9 of the interval's magnitude beyond an end is inside (rounding).
inline constexpr double kPointSlack = 1e-9;

enum class PointSide { kInside, kBelow, kAbove };
std::string_view point_side_name(PointSide side);  // "inside", "below", "above"

struct CostAtRangeEnd {
  std::string name;
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
  bool at_high = false;  // the high end (else the low end)
};

struct PointVersusInterval {
  double point = 0.0;
  Interval interval;
  PointSide side = PointSide::kInside;
  std::vector<CostAtRangeEnd> at_range_end;  // drawn costs at an end of their range, in `uncertain` order
};

// Log-position of `value` in [low, high] (see above); throws std::invalid_argument unless
// 0 < low < high. Values outside the range give positions outside [0, 1].
double log_position(double value, double low, double high);

// The point against the interval (inside when low <= point <= high, within kPointSlack), and which of the drawn
// costs `uncertain` (names of `basis`) stand at an end of their range.
PointVersusInterval point_versus_interval(double point, const Interval& interval, const CostBasis& basis,
                                          const std::vector<std::string>& uncertain);

// One sentence on a point outside its interval, naming the figure (`what`, e.g. "time") with its
// unit and formatting (4 significant digits): why it is outside, as far as the costs tell:
//   "the time (7.502 s) lies below its 90 % interval: it is the prediction at the costs' own
//    values, the interval that of the samples drawn within their ranges; of the drawn costs,
//    llc_usable_share is at the high end of its range (1 in [0.5, 1]), so the samples
//    draw it on one side only"
// "" when the point is inside.
std::string point_outside_note(const PointVersusInterval& p, std::string_view what, std::string_view unit);

// The same in a few words, for a status line: "below it: llc_usable_share at the high end of its
// range" ("below it" alone when no drawn cost stands at an end); "" when the point is inside.
std::string point_outside_summary(const PointVersusInterval& p);

}  // namespace numatwin::sim
