// `numatwin validate ...`: discover, import-hwloc, import-mlc, measure, calibrate, selfcheck —
// the real machine (or descriptions of one) through the validate library.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_validate_commands(CLI::App& app);

}  // namespace numatwin::cli
