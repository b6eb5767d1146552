// `numatwin predict | compare | sweep`: simulate workloads on a machine.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_sim_commands(CLI::App& app);

}  // namespace numatwin::cli
