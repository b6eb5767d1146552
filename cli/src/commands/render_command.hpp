// `numatwin render ...`: the GUI's headless rendering, for reports without a display. The CLI
// must not link Qt, so it runs `numatwin-gui --render` with the same arguments.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_render_command(CLI::App& app);

}  // namespace numatwin::cli
