// The energy estimate of a simulated run (model/energy.hpp has the maths and where the figures
// come from): the bytes each memory controller and link served are their mean utilisation x
// capacity x the run's time; the remote bytes are the run's.
#pragma once

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/result.hpp"

namespace numatwin::sim {

struct EnergyEstimate {
  double dram_j = 0.0;
  double remote_j = 0.0;
  double link_j = 0.0;
  double background_j = 0.0;
  bool defaults = true;  // the uncalibrated default figures (no /energy in the topology file)
  [[nodiscard]] double total_j() const { return dram_j + remote_j + link_j + background_j; }
};

EnergyEstimate estimate_energy(const model::Topology& topology, const SimulationResult& result);

// Why two runs' energies differ: each term of `to` minus the same term of `from`, and the term
// whose difference is largest in magnitude (the one that decides a ranking by energy). Two
// placements of the same work read the same bytes from DRAM, so their DRAM-access terms are
// equal; what differs is the remote and link traffic and the background power x run time.
struct EnergyDifference {
  double total_j = 0.0;
  double dram_j = 0.0;
  double remote_j = 0.0;
  double link_j = 0.0;
  double background_j = 0.0;
  const char* deciding_term = "none";  // "DRAM access", "remote access", "links", "DRAM background"
};
[[nodiscard]] EnergyDifference energy_difference(const EnergyEstimate& from, const EnergyEstimate& to);

}  // namespace numatwin::sim
