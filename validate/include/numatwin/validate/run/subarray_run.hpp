// The subarray filter run for real (sim/src/plan/operators/subarray.cpp is what it mirrors): the array
// of --records doubles cut into --chunks chunks, laid out chunk group by chunk group; each member
// of a group first-touches a 1/k share of its group's region (the same shares the model places)
// and then filters a 1/k slice of every chunk of its group (subarray_kernel.hpp), appending the
// selected cells to the chunk's result through the chunk's shared cursor.
// Verified against a serial reference (count and bit-pattern sum of the cells below the
// selectivity), and the result buffers against what the workers appended.
#pragma once

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

// The array and the result (2 x records x 8 bytes) and the cursors.
double subarray_memory_bytes(const sim::WorkloadSpec& spec);

// Throws std::invalid_argument for a spec the kernel cannot run (before any allocation) and
// std::runtime_error when the result differs from the reference.
RealRun run_subarray_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                              const RunOptions& options);

}  // namespace numatwin::validate
