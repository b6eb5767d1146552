// What the calibration's data bound: calibration_problem.hpp, "what the data bound".
#include <cmath>

#include "calibration_problem.hpp"

namespace numatwin::validate::calibration_internal {
namespace {

// log2 of the farthest scale towards `direction` (+1 up, -1 down) whose profile stays within the
// tolerance; kBoundHalvings + 1 when it stays inside over the whole search.
double farthest_inside(double fitted_rms, const std::function<double(double)>& profile_rms, int direction) {
  const auto within = [&](double log2_scale) {
    return profile_rms(std::exp2(direction * log2_scale)) <= fitted_rms + kBoundTolerance;
  };
  double inside = 0.0;
  double outside = -1.0;
  for (int k = 1; k <= kBoundHalvings; ++k) {
    if (!within(k)) {
      outside = k;
      break;
    }
    inside = k;
  }
  if (outside < 0.0) return kBoundHalvings + 1.0;
  for (int step = 0; step < kBoundBisections; ++step) {
    const double middle = 0.5 * (inside + outside);
    (within(middle) ? inside : outside) = middle;
  }
  return inside;
}

}  // namespace

DataBound data_bound(double v, double fitted_rms, const std::function<double(double)>& profile_rms) {
  DataBound out;
  if (!(v > 0.0)) return out;
  const double down = farthest_inside(fitted_rms, profile_rms, -1);
  const double up = farthest_inside(fitted_rms, profile_rms, +1);
  out.lower = down > kBoundHalvings ? 0.0 : v * std::exp2(-down);
  out.upper = up > kBoundHalvings ? HUGE_VAL : v * std::exp2(up);
  out.determined = down < 1.0 && up < 1.0;
  return out;
}

}  // namespace numatwin::validate::calibration_internal
