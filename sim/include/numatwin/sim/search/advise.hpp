// Recommending a configuration for a workload on a machine, with the model's reasons.
//
// The search space: the algorithm variant (shuffle order, migration, partitioning strategy, as
// far as the workload has them), the thread placement (dense, sparse, shared), the memory
// policy (operators: first-touch by the workers, localalloc, interleave) and the thread count
// (one per core, one per hardware thread, and the count asked for). Every candidate is
// simulated; they are ranked by predicted time and compared with the OS default: unpinned
// threads (placement "none", seeded) and first touch by one loader thread, at the asked count.
// The default is always among the candidates, so the recommendation is never predicted slower.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct AdviceCandidate {
  WorkloadSpec spec;
  double time_s = 0.0;
  double local_access_ratio = 1.0;
  std::string bottleneck;           // resource saturated longest ("" if none)
  double bottleneck_saturated = 0.0;  // its share of the run
  std::string busiest;              // resource with the highest mean utilisation
  double busiest_utilisation = 0.0;
  double speedup = 1.0;  // default time / this time
  std::string reason;    // one line in plain words
};

struct Advice {
  AdviceCandidate os_default;
  std::vector<AdviceCandidate> ranked;  // fastest first
  int evaluated = 0;
  int candidates = 0;  // size of the search space
};

struct AdviceOptions {
  // Called before each evaluation after the default; true ends the search early.
  std::function<bool(int evaluated)> stop = [](int) { return false; };
};

// One configuration simulated (its reason left empty). Throws std::invalid_argument for a bad spec.
AdviceCandidate evaluate_candidate(const model::Topology& topology, const WorkloadSpec& spec);

// Throws std::invalid_argument for a bad spec.
Advice advise(const model::Topology& topology, const WorkloadSpec& spec, const AdviceOptions& options = {});

// A one-line description of a candidate's configuration ("ring tight, 32 threads sparse, interleave").
std::string configuration_text(const model::Topology& topology, const WorkloadSpec& spec);

// Commands that apply a configuration on Linux: numactl / taskset lines and OpenMP variables.
std::vector<std::string> apply_plan(const model::Topology& topology, const WorkloadSpec& spec);

}  // namespace numatwin::sim
