// `numatwin sweep`: every variant as the thread count grows (shuffles; the sort-merge join with
// the time per phase), or as the groups per partition grow (partitioned aggregation), with 90 %
// intervals and the crossovers the study asks about.
#pragma once

#include <CLI/CLI.hpp>

namespace numatwin::cli {

void register_sweep_command(CLI::App& app);

}  // namespace numatwin::cli
