// `numatwin check machines [--corpus DIR] [--machine ID] [--json] [--out FILE]`: the corpus's
// leave-one-out check (model/machine_check.hpp, docs/spec-sheet.md "Checking the rules machine
// by machine"): per figure class and per machine, the count, median and worst |error| and the
// share of measurements inside the predicted interval; every figure not predicted, with why.
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

// Adds `machines` under the `check` command.
void register_check_machines_command(CLI::App& check);

}  // namespace numatwin::cli
