// The colour scale every view uses for utilisation: cool grey-blue when idle, through yellow,
// to red when saturated, so hot lanes and controllers stand out in any picture.
#pragma once

#include <QColor>

namespace numatwin::gui {

// `utilisation` in [0, 1]; values outside are clamped; NaN gives the "no data" grey.
QColor utilisation_colour(double utilisation);

}  // namespace numatwin::gui
