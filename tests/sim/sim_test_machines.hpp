// Small machines and a one-call prediction that several sim tests share.
#pragma once

#include "numatwin/model/generators.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim::test_machines {

// One node of 2 cores (one hardware thread each) with the generator's caches.
inline model::Topology one_node_two_cores() {
  model::GeneratorParams params;
  params.nodes = 1;
  params.cores_per_node = 2;
  params.threads_per_core = 1;
  return model::generate_topology(params);
}

// The spec's predicted time on t.
inline double predicted_s(const model::Topology& t, const WorkloadSpec& spec) {
  Simulation simulation(t);
  return simulation.run(build_plan(t, spec, nullptr)).time_s;
}

}  // namespace numatwin::sim::test_machines
