// Predicted vs measured for one workload: the spec is run for real (workload_run.hpp) and
// simulated on the topology of this machine (ideally calibrated: `validate calibrate`), and the
// two times are compared: error = (predicted - measured) / measured.
//
// Throughput is reported as GB/s of the workload's work: the bytes shuffled for the shuffle
// family, the input tuples x tuple bytes for operators (records, plus build records for the hash
// and sort-merge joins; an index join's index is prebuilt, untimed), as the kernels count them,
// so a kernel's error is the same whichever rate is shown.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace numatwin::validate {

struct PredictedPhase {
  std::string name;     // sim::phase_name
  double wall_s = 0.0;  // the run's time the working threads spend in it (sim::PhaseTime::wall_s)
};

struct Prediction {
  double seconds = 0.0;
  std::string bottleneck;  // resource saturated longest, or "none"
  double local_access_ratio = 0.0;
  std::vector<PredictedPhase> phases;  // those with wall time; they add up to `seconds`
};

// Simulates `spec` on `topology`. Throws std::invalid_argument for specs the model rejects.
Prediction predict_workload(const model::Topology& topology, const sim::WorkloadSpec& spec);

// The workload's work in bytes (see above).
double work_bytes(const sim::WorkloadSpec& spec);

struct KernelComparison {
  std::string id;  // e.g. "count-zipf_0.5-1000g-2t-dense-first-touch"
  sim::WorkloadSpec spec;
  std::string allocator;  // active_allocator() of the process that ran it
  RealRun measured;
  Prediction predicted;
  [[nodiscard]] double error() const { return (predicted.seconds - measured.seconds) / measured.seconds; }
  [[nodiscard]] double measured_gbps() const { return work_bytes(spec) / measured.seconds / 1e9; }
  [[nodiscard]] double predicted_gbps() const { return work_bytes(spec) / predicted.seconds / 1e9; }
};

// A short stable id: workload, variant (a radix hash join: "hash-join-radix-..."; the
// non-partitioned join has none), key distribution and groups (operators), threads, placement,
// memory policy (operators).
std::string comparison_id(const model::Topology& topology, const sim::WorkloadSpec& spec);

KernelComparison compare_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                                  const RunOptions& options);

}  // namespace numatwin::validate
