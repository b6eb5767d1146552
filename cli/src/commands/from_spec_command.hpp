// `numatwin topo from-spec SPEC [--mode M] [--out FILE] [--json]`: a machine derived from its
// spec sheet (model/spec_derivation.hpp), with every derived figure's rule, basis and range, and
// the machine-level figures the model then predicts (model/machine_figures.hpp).
#pragma once

namespace CLI {
class App;
}

namespace numatwin::cli {

void register_from_spec_command(CLI::App& topo);

}  // namespace numatwin::cli
