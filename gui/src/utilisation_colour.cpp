#include "numatwin/gui/utilisation_colour.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace numatwin::gui {
namespace {

struct Stop {
  double at;
  int r, g, b;
};

// Piecewise-linear stops whose relative luminance falls from stop to stop (233, 218, 159, 43);
// luminance is linear in RGB, so it falls monotonically along the whole scale and hotter
// always reads darker, also in grey print and for colour-blind readers.
constexpr std::array<Stop, 4> kStops = {{{0.0, 222, 235, 247}, {0.5, 254, 217, 118}, {0.8, 253, 141, 60}, {1.0, 189, 0, 38}}};

}  // namespace

QColor utilisation_colour(double utilisation) {
  if (std::isnan(utilisation)) return QColor(160, 160, 160);
  const double u = std::clamp(utilisation, 0.0, 1.0);
  for (std::size_t i = 1; i < kStops.size(); ++i) {
    if (u <= kStops[i].at) {
      const Stop& a = kStops[i - 1];
      const Stop& b = kStops[i];
      const double f = (u - a.at) / (b.at - a.at);
      auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + f * (y - x))); };
      return QColor(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
    }
  }
  return QColor(kStops.back().r, kStops.back().g, kStops.back().b);
}

}  // namespace numatwin::gui
