// The machine the tests run on, as the validator's kernels see it: a discovery skeleton of it
// and its host map. Built once per test binary.
#pragma once

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace numatwin::validate::test_support {

struct ThisMachine {
  model::Topology topology;
  HostMap host;
};

inline const ThisMachine& this_machine() {
  static const ThisMachine machine = [] {
    model::Topology topology = make_topology_skeleton(discover_machine(), "this machine").topology;
    HostMap host = map_this_host(topology);
    return ThisMachine{std::move(topology), std::move(host)};
  }();
  return machine;
}

}  // namespace numatwin::validate::test_support
