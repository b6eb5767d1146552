// The text and JSON of a sweep's crossovers (sim/uncertainty/sweep_crossover.hpp computes them).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "numatwin/sim/uncertainty/sweep_crossover.hpp"

namespace numatwin::cli {

using sim::SweepCrossover;
using sim::SweepTimes;

std::string crossover_text(const SweepCrossover& c);
nlohmann::ordered_json crossover_json(const SweepCrossover& c);

}  // namespace numatwin::cli
