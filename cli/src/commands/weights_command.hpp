// `numatwin weights`: weighted-interleave weights for a machine and a workload, against Linux's
// automatic weights, pairwise-isolated ones, plain interleave and local memory
// (sim/search/weights_search.hpp has the maths).
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_weights_command(CLI::App& app);

}  // namespace numatwin::cli
