// `numatwin flows`: any set of memory streams started together, with every flow's rate, latency
// and bottleneck and every resource's load (sim/engine/flows.hpp).
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_flows_command(CLI::App& app);

}  // namespace numatwin::cli
