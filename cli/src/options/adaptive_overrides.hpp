// What `numatwin adaptive`'s options change in a scenario (docs/adaptive.md), shared with the
// published-figures check's adaptive runs (docs/published-checks.md), whose runs name the same
// options without the dashes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::cli {

struct AdaptiveOverrides {
  std::string placer;    // "", on, off
  std::string stealing;  // "", allow, deny, adaptive
  std::optional<std::uint64_t> seed;
  std::optional<double> duration_s;
  std::optional<double> table_bytes;  // every table's size (the study gives rows, not bytes)
  std::optional<int> parts;           // every table's part count (the overhead of partitioning)
  std::optional<double> selectivity;  // every scan and join query type's selectivity
};

// Applies the overrides that are set. Throws std::invalid_argument naming the option
// ("--duration must be > 0") for a value out of range.
void apply_adaptive_overrides(const AdaptiveOverrides& o, sim::AdaptiveScenario& sc);

}  // namespace numatwin::cli
