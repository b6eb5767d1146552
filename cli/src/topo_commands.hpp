// `numatwin topo ...`: list, show, validate, hops, export, generate.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_topo_commands(CLI::App& app);

}  // namespace numatwin::cli
