// Where two series cross, for sweeps that ask "up to which size does A beat B?".
//
// xs ascending and > 0; a and b the two series' values at each x (e.g. predicted times of two
// variants). d_i = a_i - b_i. The crossover is the first x at which d changes sign from its sign
// at its first non-zero value: between the last point i with d_i != 0 and the first point j
// after it whose d_j has the other sign, the root of d interpolated linearly against ln x:
//     ln x* = ln x_i + (ln x_j - ln x_i) d_i / (d_i - d_j).
// (Sizes in sweeps grow by factors, so ln x is the natural axis.)
#pragma once

#include <optional>
#include <vector>

namespace numatwin::sim {

struct Crossover {
  double x = 0.0;
  bool a_first = false;  // a is smaller than b before the crossover (a "wins" below x when they are times)
};

// nullopt when d keeps its sign (or the series have fewer than two points). Throws
// std::invalid_argument when the sizes differ or an x is not > 0.
std::optional<Crossover> first_crossover(const std::vector<double>& xs, const std::vector<double>& a, const std::vector<double>& b);

}  // namespace numatwin::sim
