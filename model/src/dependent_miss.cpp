#include "numatwin/model/dependent_miss.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>

namespace numatwin::model {
namespace {

std::vector<double> distinct(const DependentMissGrid& grid, double DependentMissPoint::*field) {
  std::set<double> values;
  for (const DependentMissPoint& p : grid.points) values.insert(p.*field);
  return {values.begin(), values.end()};
}

// The bracketing pair of x among sorted values (clamped) and the weight of the upper one;
// `scale` maps a value to the axis the interpolation is linear in.
struct Bracket {
  double low = 0.0;
  double high = 0.0;
  double t = 0.0;
};

template <typename Scale>
Bracket bracket(const std::vector<double>& values, double x, Scale scale) {
  if (x <= values.front()) return {values.front(), values.front(), 0.0};
  if (x >= values.back()) return {values.back(), values.back(), 0.0};
  const auto hi = std::upper_bound(values.begin(), values.end(), x);
  const double high = *hi;
  const double low = *(hi - 1);
  return {low, high, (scale(x) - scale(low)) / (scale(high) - scale(low))};
}

template <typename Value>
double at(const DependentMissGrid& grid, double k, double w, Value value) {
  for (const DependentMissPoint& p : grid.points)
    if (p.items_per_miss == k && p.work_units == w) return value(p);
  throw std::invalid_argument("dependent-miss grid: no point at k = " + std::to_string(k) + ", w = " + std::to_string(w));
}

// The bilinear lookup of the header over one figure of the points.
template <typename Value>
double lookup(const DependentMissGrid& grid, double items_per_miss, double work_units, Value value) {
  if (grid.points.empty()) throw std::invalid_argument("dependent-miss grid: no points");
  if (!(items_per_miss >= 1.0)) throw std::invalid_argument("dependent-miss lookup: items per miss must be >= 1");
  if (!(work_units >= 0.0)) throw std::invalid_argument("dependent-miss lookup: work units must be >= 0");
  const Bracket k = bracket(grid_items_per_miss(grid), items_per_miss, [](double v) { return std::log2(v); });
  const Bracket w = bracket(grid_work_units(grid), work_units, [](double v) { return v; });
  const double low_k = (1.0 - w.t) * at(grid, k.low, w.low, value) + w.t * at(grid, k.low, w.high, value);
  const double high_k = (1.0 - w.t) * at(grid, k.high, w.low, value) + w.t * at(grid, k.high, w.high, value);
  return (1.0 - k.t) * low_k + k.t * high_k;
}

}  // namespace

std::vector<double> grid_items_per_miss(const DependentMissGrid& grid) { return distinct(grid, &DependentMissPoint::items_per_miss); }
std::vector<double> grid_work_units(const DependentMissGrid& grid) { return distinct(grid, &DependentMissPoint::work_units); }

double dependent_miss_ns(const DependentMissGrid& grid, double items_per_miss, double work_units) {
  return lookup(grid, items_per_miss, work_units, [](const DependentMissPoint& p) { return p.miss_ns; });
}

std::optional<double> dependent_figure_ns(const DependentMissGrid& grid, double items_per_miss, double work_units,
                                          std::optional<double> DependentMissPoint::*field) {
  if (grid.points.empty() || !std::all_of(grid.points.begin(), grid.points.end(), [&](const DependentMissPoint& p) { return (p.*field).has_value(); }))
    return std::nullopt;
  return lookup(grid, items_per_miss, work_units, [&](const DependentMissPoint& p) { return *(p.*field); });
}

std::optional<double> dependent_second_miss_ns(const DependentMissGrid& grid, double items_per_miss, double work_units) {
  return dependent_figure_ns(grid, items_per_miss, work_units, &DependentMissPoint::second_miss_ns);
}
std::optional<double> dependent_split_head_ns(const DependentMissGrid& grid, double items_per_miss, double work_units) {
  return dependent_figure_ns(grid, items_per_miss, work_units, &DependentMissPoint::split_head_ns);
}
std::optional<double> dependent_split_miss_ns(const DependentMissGrid& grid, double items_per_miss, double work_units) {
  return dependent_figure_ns(grid, items_per_miss, work_units, &DependentMissPoint::split_miss_ns);
}

void check_dependent_miss_grid(const DependentMissGrid& grid) {
  if (grid.points.empty()) throw std::invalid_argument("dependent-miss grid: expected at least one point");
  if (!(grid.work_unit_ns > 0.0)) throw std::invalid_argument("dependent-miss grid: work_unit_ns must be > 0");
  std::set<std::pair<double, double>> seen;
  for (std::size_t i = 0; i < grid.points.size(); ++i) {
    const DependentMissPoint& p = grid.points[i];
    const std::string where = "dependent-miss grid point " + std::to_string(i) + ": ";
    if (!(p.items_per_miss >= 1.0)) throw std::invalid_argument(where + "items_per_miss must be >= 1");
    if (!(p.work_units >= 0.0)) throw std::invalid_argument(where + "work_units must be >= 0");
    if (!(p.miss_ns >= 0.0)) throw std::invalid_argument(where + "miss_ns must be >= 0");
    if (!seen.insert({p.items_per_miss, p.work_units}).second) throw std::invalid_argument(where + "repeats its (items_per_miss, work_units)");
    for (const OptionalMissFigure& f : kOptionalMissFigures) {
      const std::optional<double>& v = p.*f.field;
      if (v && !(*v >= 0.0)) throw std::invalid_argument(where + f.name + " must be >= 0");
      if (v.has_value() != (grid.points.front().*f.field).has_value())
        throw std::invalid_argument(where + "has " + f.name + " where point 0 has not, or the other way round (every point or none)");
    }
  }
  for (double k : grid_items_per_miss(grid))
    for (double w : grid_work_units(grid))
      if (!seen.contains({k, w}))
        throw std::invalid_argument("dependent-miss grid: no point at items_per_miss " + std::to_string(k) + ", work_units " +
                                    std::to_string(w) + " (every measured k with every measured w)");
}

}  // namespace numatwin::model
