// What the model predicts for a machine file's measured microbenchmarks (the "measurements"
// block): steady-state read bandwidth of groups of streaming threads, or idle latency. The
// same prediction is what the validator's calibration fits against.
//
// Thread placement: the threads a measurement puts on one node take its cores in order, one
// hardware thread per core first, then the second hardware thread of each core, and so on;
// streams on the same node continue where the previous stream stopped.
#pragma once

#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/topology.hpp"

namespace numatwin::model {

struct MeasurementPrediction {
  double predicted = 0.0;  // in the measurement's unit
  double measured = 0.0;
  [[nodiscard]] double relative_error() const { return (predicted - measured) / measured; }
};

// Throws std::invalid_argument when the measurement does not fit the topology (checked files
// always fit).
MeasurementPrediction predict_measurement(const Topology& topology, const Routing& routing, BandwidthModel& model,
                                          const Measurement& measurement);

// Streams of a bandwidth measurement with their cores assigned as described above.
std::vector<Stream> measurement_streams(const Topology& topology, const BandwidthModel& model,
                                        const Measurement& measurement);

}  // namespace numatwin::model
