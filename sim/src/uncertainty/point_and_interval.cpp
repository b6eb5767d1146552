#include "numatwin/sim/uncertainty/point_and_interval.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <cstdio>

namespace numatwin::sim {
namespace {

// Four significant digits, as "%.4g" (sim/ formats with the C library, not fmt).
std::string g4(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", x);
  return buffer;
}

std::string range_text(double low, double high) { return "[" + g4(low) + ", " + g4(high) + "]"; }

}  // namespace

std::string_view point_side_name(PointSide side) {
  switch (side) {
    case PointSide::kInside: return "inside";
    case PointSide::kBelow: return "below";
    case PointSide::kAbove: return "above";
  }
  return "inside";
}

double log_position(double value, double low, double high) {
  if (!(low > 0.0) || !(high > low)) {
    throw std::invalid_argument("log_position: the range " + range_text(low, high) + " is not 0 < low < high");
  }
  return std::log(value / low) / std::log(high / low);
}

PointVersusInterval point_versus_interval(double point, const Interval& interval, const CostBasis& basis,
                                          const std::vector<std::string>& uncertain) {
  PointVersusInterval out;
  out.point = point;
  out.interval = interval;
  // Within a rounding of the ends is inside: a point equal to every sample differs from the
  // interpolated percentiles only in the last bits.
  const double slack = kPointSlack * std::max(std::abs(interval.low), std::abs(interval.high));
  if (point < interval.low - slack) out.side = PointSide::kBelow;
  if (point > interval.high + slack) out.side = PointSide::kAbove;
  for (const std::string& name : uncertain) {
    const model::CostValue& c = basis.at(name).cost;
    if (!(c.low > 0.0) || !(c.high > c.low)) continue;  // not drawn on a log scale
    const double position = log_position(c.value, c.low, c.high);
    if (position <= kRangeEndShare || position >= 1.0 - kRangeEndShare) {
      out.at_range_end.push_back(CostAtRangeEnd{name, c.value, c.low, c.high, position >= 1.0 - kRangeEndShare});
    }
  }
  return out;
}

std::string point_outside_note(const PointVersusInterval& p, std::string_view what, std::string_view unit) {
  if (p.side == PointSide::kInside) return "";
  std::string out = "the " + std::string(what) + " (" + g4(p.point) + std::string(unit) + ") lies " +
                    (p.side == PointSide::kBelow ? "below" : "above") + " its 90 % interval " + range_text(p.interval.low, p.interval.high) +
                    ": it is the prediction at the costs' own values, the interval that of the samples drawn within their ranges";
  if (p.at_range_end.empty()) {
    return out + "; no drawn cost stands at an end of its range, so the costs' own values sit among the draws and "
                 "the prediction moves with them more one way than the other";
  }
  std::string ends;
  for (std::size_t i = 0; i < p.at_range_end.size(); ++i) {
    const CostAtRangeEnd& c = p.at_range_end[i];
    const char* sep = i == 0 ? "" : (i + 1 == p.at_range_end.size() ? " and " : ", ");
    ends += sep + c.name + (i == 0 ? " is" : "") + " at the " + (c.at_high ? "high" : "low") + " end of its range (" + g4(c.value) +
            " in " + range_text(c.low, c.high) + ")";
  }
  return out + "; of the drawn costs, " + ends + ", so the samples draw " + (p.at_range_end.size() == 1 ? "it" : "them") +
         " on one side only";
}

std::string point_outside_summary(const PointVersusInterval& p) {
  if (p.side == PointSide::kInside) return "";
  std::string out = p.side == PointSide::kBelow ? "below it" : "above it";
  for (std::size_t i = 0; i < p.at_range_end.size(); ++i) {
    const CostAtRangeEnd& c = p.at_range_end[i];
    out += (i == 0 ? ": " : ", ") + c.name + " at the " + (c.at_high ? "high" : "low") + " end of its range";
  }
  return out;
}

}  // namespace numatwin::sim
