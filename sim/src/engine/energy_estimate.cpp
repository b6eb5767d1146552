#include "numatwin/sim/engine/energy_estimate.hpp"

#include <cmath>
#include <utility>

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

EnergyDifference energy_difference(const EnergyEstimate& from, const EnergyEstimate& to) {
  EnergyDifference d;
  d.dram_j = to.dram_j - from.dram_j;
  d.remote_j = to.remote_j - from.remote_j;
  d.link_j = to.link_j - from.link_j;
  d.background_j = to.background_j - from.background_j;
  d.total_j = to.total_j() - from.total_j();
  const std::pair<const char*, double> terms[] = {
      {"DRAM access", d.dram_j}, {"remote access", d.remote_j}, {"links", d.link_j}, {"DRAM background", d.background_j}};
  double largest = 0.0;
  for (const auto& [name, value] : terms) {
    if (std::abs(value) > largest) {
      largest = std::abs(value);
      d.deciding_term = name;
    }
  }
  return d;
}

}  // namespace numatwin::sim
