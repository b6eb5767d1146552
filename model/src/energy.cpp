#include "numatwin/model/energy.hpp"

namespace numatwin::model {

EnergyBasis energy_basis(const std::optional<EnergyParameters>& from_file) {
  if (from_file) return EnergyBasis{*from_file, false};
  return EnergyBasis{EnergyParameters{}, true};
}

std::string EnergyBasis::description() const {
  if (defaults) {
    return "default energy figures, none of this machine (160 pJ/B DRAM from Horowitz's 45 nm figure; 20 pJ/B remote, 50 pJ/B per "
           "link, 3 W background per node: uncalibrated, order of magnitude only)";
  }
  return "energy figures of the topology file (" + parameters.source + ")";
}

}  // namespace numatwin::model
