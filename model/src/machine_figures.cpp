#include "numatwin/model/machine_figures.hpp"

#include <cmath>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"

namespace numatwin::model {

MachineFigures predict_machine_figures(const Topology& topology) {
  MachineFigures f;
  for (const NodeIndex n : topology.numa_nodes()) {
    const Node& node = topology.nodes[static_cast<std::size_t>(n)];
    if (node.has_cores()) f.cpu_nodes.push_back(n);
    if (node.has_memory()) f.memory_nodes.push_back(n);
  }
  const Routing routing(topology);
  BandwidthModel model(topology, routing);
  for (const NodeIndex cpu : f.cpu_nodes) {
    std::vector<double> latency;
    std::vector<double> bandwidth;
    for (const NodeIndex memory : f.memory_nodes) {
      latency.push_back(routing.access_latency_ns(cpu, memory));
      Measurement m;
      m.id = "bandwidth";
      m.metric = MeasurementMetric::kReadBandwidthGbps;
      m.streams = {MeasurementStream{cpu, memory, topology.nodes[static_cast<std::size_t>(cpu)].hardware_threads()}};
      bandwidth.push_back(predict_measurement(topology, routing, model, m).predicted);
    }
    f.idle_latency_ns.push_back(std::move(latency));
    f.bandwidth_gbps.push_back(std::move(bandwidth));
  }
  if (!f.cpu_nodes.empty()) {
    const NodeIndex first = f.cpu_nodes.front();
    const Node& node = topology.nodes[static_cast<std::size_t>(first)];
    double total_gbps = 0.0;
    for (const NodeIndex n : f.cpu_nodes) {
      const Node& c = topology.nodes[static_cast<std::size_t>(n)];
      if (c.has_memory()) total_gbps += c.memory_read_bandwidth_gbps;
    }
    double queue_ns = topology.performance.memory_queue_ns;
    double exponent = topology.performance.queue_exponent;
    if (node.memory_kind) {
      const auto curve = topology.memory_kind_curves.find(*node.memory_kind);
      if (curve != topology.memory_kind_curves.end()) {
        queue_ns = curve->second.memory_queue_ns;
        exponent = curve->second.queue_exponent;
      }
    }
    for (int i = 0; i <= 10; ++i) {
      const double u = i / 10.0;
      f.loaded_latency.push_back({u, u * total_gbps, node.local_latency_ns + queue_ns * std::pow(u, exponent)});
    }
  }
  return f;
}

}  // namespace numatwin::model
