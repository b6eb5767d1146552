// `numatwin validate run | suite | allocbench`: real kernels against the model.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_validate_run_commands(CLI::App& validate_app);

}  // namespace numatwin::cli
