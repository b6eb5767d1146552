// `numatwin placements`: every distinct thread placement of a workload, ranked by predicted time.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_placement_commands(CLI::App& app);

}  // namespace numatwin::cli
