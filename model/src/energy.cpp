#include "numatwin/model/energy.hpp"

namespace numatwin::model {

EnergyBasis energy_basis(const std::optional<EnergyParameters>& from_file) {
  if (from_file) return EnergyBasis{*from_file, false};
  return EnergyBasis{EnergyParameters{}, true};
}

std::string EnergyBasis::description() const {
  if (defaults) {
    return "default energy figures, not this machine's (DRAM 160 pJ/B: Horowitz, 45 nm; remote 20 pJ/B, link 50 pJ/B, "
           "background 3 W per node: uncalibrated)";
  }
  return "energy figures of the topology file (" + parameters.source + ")";
}

}  // namespace numatwin::model
