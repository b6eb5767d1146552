// The machine-level figures a microbenchmark suite such as Intel MLC reports, as the model
// predicts them for a topology: the idle latency matrix, the bandwidth matrix (every hardware
// thread of one node reading one memory node, alone on the machine), and the loaded-latency
// curve of all nodes reading their own memory. `topo from-spec` prints them; the corpus check
// compares them with measurements.
//
// Loaded latency, from bandwidth_model.hpp: at utilisation u of the controllers a local read
// takes L0 + Q_mem u^e (Q_mem, e: the node's memory curve), while the machine moves u x the sum
// of the nodes' read bandwidths.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

struct LoadedLatencyPoint {
  double utilisation = 0.0;  // of every node's memory controller
  double bandwidth_gbps = 0.0;  // the whole machine
  double latency_ns = 0.0;      // of a read from node 0 to its own memory
};

struct MachineFigures {
  std::vector<NodeIndex> cpu_nodes;     // rows: nodes with cores
  std::vector<NodeIndex> memory_nodes;  // columns: nodes with memory
  std::vector<std::vector<double>> idle_latency_ns;
  std::vector<std::vector<double>> bandwidth_gbps;
  std::vector<LoadedLatencyPoint> loaded_latency;  // u = 0, 0.1, ..., 1
};

MachineFigures predict_machine_figures(const Topology& topology);

}  // namespace numatwin::model
