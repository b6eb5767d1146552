#include "numatwin/model/microbenchmark.hpp"

#include <map>
#include <stdexcept>

namespace numatwin::model {

std::vector<Stream> measurement_streams(const Topology& topology, const BandwidthModel& model,
                                        const Measurement& measurement) {
  std::vector<Stream> streams;
  std::map<NodeIndex, int> used;  // hardware threads already placed per node
  for (const MeasurementStream& ms : measurement.streams) {
    const Node& node = topology.nodes.at(ms.cpu_node);
    for (int t = 0; t < ms.threads; ++t) {
      const int slot = used[ms.cpu_node]++;
      if (slot >= node.hardware_threads()) {
        throw std::invalid_argument("measurement " + measurement.id + " puts more threads on " + node.id +
                                    " than it has hardware threads");
      }
      Stream s;
      s.cpu_node = ms.cpu_node;
      s.core = model.core_of(ms.cpu_node, slot % node.cores);
      s.read_node = ms.memory_node;
      streams.push_back(s);
    }
  }
  return streams;
}

MeasurementPrediction predict_measurement(const Topology& topology, const Routing& routing, BandwidthModel& model,
                                          const Measurement& measurement) {
  MeasurementPrediction p;
  p.measured = measurement.value;
  switch (measurement.metric) {
    case MeasurementMetric::kIdleLatencyNs: {
      const MeasurementStream& s = measurement.streams.at(0);
      p.predicted = routing.access_latency_ns(s.cpu_node, s.memory_node);
      break;
    }
    case MeasurementMetric::kReadBandwidthGbps: {
      const std::vector<Stream> streams = measurement_streams(topology, model, measurement);
      const StreamRates& rates = model.solve(streams);
      double total = 0.0;
      for (double r : rates.rate_bytes_per_s) total += r;
      p.predicted = total / 1e9;
      break;
    }
  }
  return p;
}

}  // namespace numatwin::model
