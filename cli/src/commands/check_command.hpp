// `numatwin check published`: predicts the studies' algorithm-level figures and statements
// (tests/published/*.json, docs/published-checks.md) and prints predicted, published, ratio and
// verdict with the counts; fails (exit 1) when an entry marked must_hold misses.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_check_command(CLI::App& app);

}  // namespace numatwin::cli
