// `numatwin adaptive`: a column store serving clients over time, with the Data Placer and
// adaptive task stealing (docs/adaptive.md); `--calibrate` prints the stealing calibration.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_adaptive_command(CLI::App& app);

}  // namespace numatwin::cli
