// A small machine that several model tests share (round trips of optional topology blocks).
#pragma once

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::model::test_machines {

// One node of 2 cores (one hardware thread each) with the generator's caches.
inline Topology small_machine() {
  GeneratorParams p;
  p.nodes = 1;
  p.cores_per_node = 2;
  p.threads_per_core = 1;
  return generate_topology(p);
}

}  // namespace numatwin::model::test_machines
