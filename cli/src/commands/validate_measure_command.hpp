// `numatwin validate measure`: this machine measured like Intel mlc (bandwidth against threads,
// idle and loaded latency per node pair), the operator-cost microbenchmarks, the TLB walk.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_validate_measure(CLI::App& validate_app);

}  // namespace numatwin::cli
