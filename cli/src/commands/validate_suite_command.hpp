// `numatwin validate suite`: the standard suite for real and in the model, the cost fit, the
// report the GUI opens.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_validate_suite(CLI::App& validate_app);

}  // namespace numatwin::cli
