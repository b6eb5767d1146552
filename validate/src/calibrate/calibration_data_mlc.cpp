// Calibration data from Intel mlc output (calibration.hpp, calibration_data_from_mlc): the figures
// are checked against each other, the bandwidth matrix's outliers are left out, and every other
// figure becomes a point the model can predict.
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"
#include "numatwin/validate/calibrate/mlc_consistency.hpp"
#include "numatwin/validate/calibrate/mlc_outliers.hpp"

namespace numatwin::validate {
namespace {

constexpr double kAlikeFactor = 1.15;  // entries whose prior predictions are within 15 % are compared

std::string fixed(double value, int digits = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

// mlc's node numbers against the topology's NUMA nodes (mlc node k is the k-th).
class NodeMap {
 public:
  NodeMap(const MlcResults& mlc, const model::Topology& topology) : mlc_(mlc), topology_(topology), numa_(topology.numa_nodes()) {}

  [[nodiscard]] model::NodeIndex operator()(int mlc_node) const {
    if (mlc_node < 0 || mlc_node >= static_cast<int>(numa_.size())) {
      throw model::InputError(mlc_.file, "", "expected NUMA nodes 0.." + std::to_string(numa_.size() - 1) + " of topology " +
                                                 topology_.name + ", found node " + std::to_string(mlc_node));
    }
    return numa_[static_cast<std::size_t>(mlc_node)];
  }

  // Rows must be nodes with cores and columns nodes with memory; a node with cores and no row is a note.
  void check_roles(const char* section, const std::vector<int>& rows, const std::vector<int>& columns,
                   std::vector<std::string>& notes) const {
    for (int r : rows) {
      const model::Node& n = topology_.nodes[(*this)(r)];
      if (!n.has_cores()) {
        throw model::InputError(mlc_.file, std::string(section) + " [row of node " + std::to_string(r) + "]",
                                "mlc measured from node " + std::to_string(r) + "'s CPUs, but its node " + n.id + " in topology " +
                                    topology_.name + " has no cores (expected mlc's node numbers to be the topology's NUMA nodes in order)");
      }
    }
    for (int c : columns) {
      const model::Node& n = topology_.nodes[(*this)(c)];
      if (!n.has_memory()) {
        throw model::InputError(mlc_.file, std::string(section) + " [column of node " + std::to_string(c) + "]",
                                "mlc measured node " + std::to_string(c) + "'s memory, but its node " + n.id + " in topology " +
                                    topology_.name + " has none");
      }
      if (n.has_cores() && mlc_index_of(rows, c) < 0) {
        notes.push_back(std::string(section) + ": node " + std::to_string(c) + " (" + n.id + ") has cores in topology " + topology_.name +
                        " but mlc printed no row for it (no CPUs of it online when mlc ran?): nothing measured from its CPUs");
      }
    }
  }

 private:
  const MlcResults& mlc_;
  const model::Topology& topology_;
  std::vector<model::NodeIndex> numa_;
};

CalibrationPoint bandwidth_point(const MlcResults& mlc, const model::Topology& t, const NodeMap& node, std::size_t i, std::size_t j) {
  const model::NodeIndex cpu = node(mlc.bandwidth_cpu_nodes[i]);
  const model::NodeIndex mem = node(mlc.bandwidth_nodes[j]);
  CalibrationPoint p;
  p.id = "mlc-bandwidth-" + std::to_string(mlc.bandwidth_cpu_nodes[i]) + "-" + std::to_string(mlc.bandwidth_nodes[j]);
  p.description = "mlc --bandwidth_matrix: all threads of " + t.nodes[cpu].id + " read " + t.nodes[mem].id;
  p.metric = CalibrationMetric::kReadBandwidthGbps;
  p.streams = {model::MeasurementStream{cpu, mem, t.nodes[cpu].hardware_threads()}};
  p.value = mlc.bandwidth_matrix_gbps[i][j];
  return p;
}

// Entries are alike when the topology's predictions of them are within kAlikeFactor.
AlikeEntries alike_by_prediction(const MlcResults& mlc, const model::Topology& t, const NodeMap& node) {
  const auto& b = mlc.bandwidth_matrix_gbps;
  std::vector<std::vector<double>> predicted(b.size());
  for (std::size_t i = 0; i < b.size(); ++i) {
    for (std::size_t j = 0; j < b[i].size(); ++j) predicted[i].push_back(predict_point(t, bandwidth_point(mlc, t, node, i, j)));
  }
  return [predicted](std::size_t i, std::size_t j, std::size_t k, std::size_t l) {
    const double a = predicted[i][j];
    const double c = predicted[k][l];
    return a > 0.0 && c > 0.0 && std::max(a, c) <= kAlikeFactor * std::min(a, c);
  };
}

void add_bandwidth_points(const MlcResults& mlc, const model::Topology& t, const NodeMap& node, CalibrationData& data) {
  std::set<std::pair<int, int>> left_out;
  for (const BandwidthOutlier& o : find_bandwidth_outliers(mlc, alike_by_prediction(mlc, t, node))) {
    left_out.insert({o.cpu_node, o.memory_node});
    data.warnings.push_back(describe_outlier(mlc, o));
  }
  for (std::size_t i = 0; i < mlc.bandwidth_matrix_gbps.size(); ++i) {
    for (std::size_t j = 0; j < mlc.bandwidth_matrix_gbps[i].size(); ++j) {
      if (left_out.count({mlc.bandwidth_cpu_nodes[i], mlc.bandwidth_nodes[j]}) == 0) data.points.push_back(bandwidth_point(mlc, t, node, i, j));
    }
  }
}

void add_latency_points(const MlcResults& mlc, const model::Topology& t, const NodeMap& node, CalibrationData& data) {
  for (std::size_t i = 0; i < mlc.latency_matrix_ns.size(); ++i) {
    for (std::size_t j = 0; j < mlc.latency_matrix_ns[i].size(); ++j) {
      const model::NodeIndex cpu = node(mlc.latency_cpu_nodes[i]);
      const model::NodeIndex mem = node(mlc.latency_nodes[j]);
      CalibrationPoint p;
      p.id = "mlc-latency-" + std::to_string(mlc.latency_cpu_nodes[i]) + "-" + std::to_string(mlc.latency_nodes[j]);
      p.description = "mlc --latency_matrix: idle latency from " + t.nodes[cpu].id + " to " + t.nodes[mem].id;
      p.metric = CalibrationMetric::kIdleLatencyNs;
      p.chaser = model::MeasurementStream{cpu, mem, 1};
      p.value = mlc.latency_matrix_ns[i][j];
      data.points.push_back(p);
    }
  }
  if (mlc.idle_latency_ns && mlc.latency_matrix_ns.empty()) {
    const model::NodeIndex first = node(0);
    CalibrationPoint p;
    p.id = "mlc-idle-latency";
    p.description = "mlc --idle_latency: first node, its own memory";
    p.metric = CalibrationMetric::kIdleLatencyNs;
    p.chaser = model::MeasurementStream{first, first, 1};
    p.value = *mlc.idle_latency_ns;
    data.points.push_back(p);
  } else if (mlc.idle_latency_ns) {
    data.notes.push_back("mlc --idle_latency left out: the latency matrix has the same figure");
  }
}

void add_loaded_latency_points(const MlcResults& mlc, const model::Topology& t, const std::vector<model::MeasurementStream>& everyone,
                               CalibrationData& data) {
  if (mlc.loaded_latency.empty()) {
    data.notes.push_back("the loaded-latency curve is not measured: the file has no mlc --loaded_latency sweep, so the queueing terms "
                         "rest on the bandwidth figures alone (the memory queue starts from Little's law on the saturated local "
                         "bandwidth) and the latency under load is the model's prediction, not a fit");
    return;
  }
  if (everyone.empty() || t.nodes[everyone[0].cpu_node].hardware_threads() < 2) {
    data.notes.push_back("mlc --loaded_latency left out: the topology's first node cannot hold a chaser and load threads");
    return;
  }
  std::vector<model::MeasurementStream> load = everyone;
  load[0].threads -= 1;  // the chaser's hardware thread
  for (const MlcLoadedLatencyPoint& point : mlc.loaded_latency) {
    CalibrationPoint p;
    p.id = "mlc-loaded-latency-" + std::to_string(point.inject_delay);
    p.description = "mlc --loaded_latency, inject delay " + std::to_string(point.inject_delay) + ": " + fixed(point.bandwidth_gbps, 4) +
                    " GB/s of local reads";
    p.metric = CalibrationMetric::kLoadedLatencyNs;
    p.chaser = model::MeasurementStream{everyone[0].cpu_node, everyone[0].memory_node, 1};
    p.streams = load;
    p.load_bandwidth_gbps = std::max(1e-3, point.bandwidth_gbps - 64.0 / point.latency_ns);
    p.value = point.latency_ns;
    data.points.push_back(p);
  }
}

}  // namespace

CalibrationData calibration_data_from_mlc(const MlcResults& mlc, const model::Topology& topology) {
  CalibrationData data;
  data.warnings = check_mlc_consistency(mlc);  // contradictions are refused here, not absorbed by the fit
  data.source = "Intel mlc " + (mlc.version.empty() ? std::string("output") : mlc.version) + " (" + mlc.file + ")";
  const NodeMap node(mlc, topology);
  node.check_roles("--bandwidth_matrix", mlc.bandwidth_cpu_nodes, mlc.bandwidth_nodes, data.notes);
  node.check_roles("--latency_matrix", mlc.latency_cpu_nodes, mlc.latency_nodes, data.notes);
  add_bandwidth_points(mlc, topology, node, data);
  add_latency_points(mlc, topology, node, data);
  std::vector<model::MeasurementStream> everyone;
  for (model::NodeIndex n : topology.numa_nodes()) {
    if (topology.nodes[n].has_cores() && topology.nodes[n].has_memory()) {
      everyone.push_back(model::MeasurementStream{n, n, topology.nodes[n].hardware_threads()});
    }
  }
  const auto all_reads = mlc.peak_injection_gbps.find("ALL Reads");
  if (all_reads != mlc.peak_injection_gbps.end() && !everyone.empty()) {
    CalibrationPoint p;
    p.id = "mlc-peak-injection-all-reads";
    p.description = "mlc --peak_injection_bandwidth, ALL Reads: every hardware thread reads its own node";
    p.metric = CalibrationMetric::kReadBandwidthGbps;
    p.streams = everyone;
    p.value = all_reads->second;
    data.points.push_back(p);
  }
  if (!mlc.peak_injection_gbps.empty()) data.notes.push_back("mlc peak injection with writes left out: the model's measurements are reads");
  if (!mlc.max_bandwidth_gbps.empty()) data.notes.push_back("mlc --max_bandwidth left out: it repeats the peak injection bandwidths");
  add_loaded_latency_points(mlc, topology, everyone, data);
  if (data.points.empty()) throw model::InputError(mlc.file, "", "expected at least one mlc figure the model can reproduce");
  return data;
}

}  // namespace numatwin::validate
