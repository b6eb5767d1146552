#include "numatwin/model/energy.hpp"

namespace numatwin::model {

EnergyBasis energy_basis(const std::optional<EnergyParameters>& from_file) {
  if (from_file) return EnergyBasis{*from_file, false};
  return EnergyBasis{EnergyParameters{}, true};
}

std::string EnergyBasis::description() const {
  if (defaults) {
    return "uncalibrated default energy figures (150 pJ/B DRAM, 20 pJ/B remote, 50 pJ/B per link, 3 W background per node: "
           "order of magnitude only)";
  }
  return "energy figures of the topology file (" + parameters.source + ")";
}

}  // namespace numatwin::model
