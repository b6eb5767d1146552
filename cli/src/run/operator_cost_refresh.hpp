// The operator costs measured on this machine, put into a topology: the suite does it for the
// topology it calibrates, and `validate measure --costs-only --topology T --out-topology T2` does it
// for a topology calibrated earlier, so that the costs a machine's state moves (the LLC share its
// neighbours leave on a shared host, the load latencies behind it) can be measured again in
// seconds just before a run, without the rest of the calibration.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/measure/cost_microbenchmarks.hpp"

namespace numatwin::cli {

class ProgressBar;

// "hostname; kernel; THP ...; numa_balancing ...": where a figure was measured, for its source.
std::string host_text();

// `topology` with every derived cost the model knows (model::find_operator_cost) set to its
// measured value, origin measured, source `source_prefix` + ": " + its derivation; a cost of the
// same name already there is replaced. A value under the cost's floor is raised to it, its range
// kept around it.
model::Topology with_measured_operator_costs(const model::Topology& topology, const std::vector<validate::DerivedCost>& derived,
                                             const std::string& source_prefix);

// Measures the cost microbenchmarks on `topology_name`'s caches and its first node's CPUs and
// frequency, and writes the topology with them (atomically) to `out`. Returns the text of the
// costs that moved: name, the topology's value, the value measured now. Throws
// std::runtime_error when interrupted (nothing written).
std::string refresh_operator_costs(const std::string& topology_name, const std::string& out, bool quick, const std::atomic<bool>* stop,
                                   const ProgressBar& bar);

}  // namespace numatwin::cli
