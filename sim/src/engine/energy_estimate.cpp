#include "numatwin/sim/engine/energy_estimate.hpp"

namespace numatwin::sim {

EnergyEstimate estimate_energy(const model::Topology& t, const SimulationResult& r) {
  const model::EnergyBasis basis = model::energy_basis(t.energy);
  const model::EnergyParameters& e = basis.parameters;
  EnergyEstimate out;
  out.defaults = basis.defaults;
  double memory_bytes = 0.0;
  double link_bytes = 0.0;
  for (std::size_t i = 0; i < r.resources.size() && i < r.mean_utilisation.size(); ++i) {
    const double bytes = r.mean_utilisation[i] * r.resources[i].capacity_bytes_per_s * r.time_s;
    if (r.resources[i].kind == model::ResourceKind::kMemoryController) memory_bytes += bytes;
    if (r.resources[i].kind == model::ResourceKind::kLink) link_bytes += bytes;
  }
  int memory_nodes = 0;
  for (const model::Node& n : t.nodes) memory_nodes += n.has_memory() ? 1 : 0;
  out.dram_j = e.dram_pj_per_byte * 1e-12 * memory_bytes;
  out.remote_j = e.remote_access_pj_per_byte * 1e-12 * r.remote_bytes;
  out.link_j = e.link_pj_per_byte * 1e-12 * link_bytes;
  out.background_j = e.dram_background_watts_per_node * memory_nodes * r.time_s;
  return out;
}

}  // namespace numatwin::sim
