// Predicts a ring shuffle on a machine file with the installed libraries and checks that the
// simulation moved data and took time.
#include <cstdio>
#include <numatwin/model/topology_json.hpp>
#include <numatwin/sim/plan/operator_plan.hpp>
#include <numatwin/sim/engine/simulation.hpp>
#include <numatwin/sim/workload/workload_spec.hpp>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const numatwin::model::Topology topology = numatwin::model::load_topology(argv[1]);
  numatwin::sim::WorkloadSpec spec;
  spec.threads = 8;
  spec.total_bytes = 1e9;
  numatwin::sim::Simulation simulation(topology);
  const numatwin::sim::SimulationResult result = simulation.run(numatwin::sim::build_plan(topology, spec));
  std::printf("%s: ring shuffle of 1 GB on 8 threads in %.4g s\n", topology.name.c_str(), result.time_s);
  return result.time_s > 0.0 ? 0 : 1;
}
