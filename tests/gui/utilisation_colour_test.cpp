// The utilisation scale: idle and saturated are far apart, lightness falls monotonically so
// hotter always looks darker, out-of-range values clamp, NaN is the neutral grey.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "numatwin/gui/utilisation_colour.hpp"

namespace numatwin::gui {
namespace {

// Relative luminance (ITU-R BT.709 weights) of a colour, 0..255.
double luminance(const QColor& c) { return 0.2126 * c.red() + 0.7152 * c.green() + 0.0722 * c.blue(); }

TEST(UtilisationColourTest, LuminanceFallsMonotonically) {
  double previous = 256.0;
  for (int i = 0; i <= 1000; ++i) {
    const double y = luminance(utilisation_colour(i / 1000.0));
    // Components are rounded to integers: allow half a unit per component of slack.
    EXPECT_LE(y, previous + 0.5) << "at utilisation " << i / 1000.0;
    previous = std::min(previous, y);
  }
  EXPECT_GT(luminance(utilisation_colour(0.0)) - luminance(utilisation_colour(1.0)), 150.0);
}

TEST(UtilisationColourTest, SaturatedIsRedAndIdleIsBlue) {
  const QColor hot = utilisation_colour(1.0);
  const QColor cold = utilisation_colour(0.0);
  EXPECT_GT(hot.red(), hot.blue());
  EXPECT_GT(cold.blue(), cold.red());
}

TEST(UtilisationColourTest, ClampsAndHandlesNaN) {
  EXPECT_EQ(utilisation_colour(-3.0), utilisation_colour(0.0));
  EXPECT_EQ(utilisation_colour(7.0), utilisation_colour(1.0));
  const QColor none = utilisation_colour(std::nan(""));
  EXPECT_EQ(none.red(), none.green());
  EXPECT_EQ(none.green(), none.blue());
}

}  // namespace
}  // namespace numatwin::gui
