// `numatwin validate allocbench`: the allocator microbenchmark (one process per allocator) and,
// with --calibrate, each allocator's costs written into a topology (allocator_calibration.hpp).
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_allocbench(CLI::App& validate_app);

}  // namespace numatwin::cli
