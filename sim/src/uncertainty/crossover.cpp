#include "numatwin/sim/uncertainty/crossover.hpp"

#include <cmath>
#include <stdexcept>

namespace numatwin::sim {

std::optional<Crossover> first_crossover(const std::vector<double>& xs, const std::vector<double>& a, const std::vector<double>& b) {
  if (xs.size() != a.size() || xs.size() != b.size()) throw std::invalid_argument("crossover: series of different lengths");
  for (double x : xs) {
    if (!(x > 0.0)) throw std::invalid_argument("crossover: x must be > 0");
  }
  if (xs.size() < 2) return std::nullopt;
  int sign = 0;
  double previous_d = 0.0;
  std::size_t previous_i = 0;  // the last point with d != 0
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double d = a[i] - b[i];
    const int s = d > 0.0 ? 1 : (d < 0.0 ? -1 : 0);
    if (sign == 0) {
      sign = s;
    } else if (s != 0 && s != sign) {
      const double lx0 = std::log(xs[previous_i]);
      const double lx1 = std::log(xs[i]);
      const double lx = lx0 + (lx1 - lx0) * previous_d / (previous_d - d);
      return Crossover{std::exp(lx), sign < 0};
    }
    if (s != 0) {
      previous_d = d;
      previous_i = i;
    }
  }
  return std::nullopt;
}

}  // namespace numatwin::sim
