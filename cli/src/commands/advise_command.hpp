// `numatwin advise`: the best configuration for a workload on a machine, and why.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_advise_command(CLI::App& app);

}  // namespace numatwin::cli
