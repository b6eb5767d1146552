// Calibration data from the two kinds of measurement files besides kerncraft's
// (kerncraft_import.cpp): Intel mlc output and `numatwin validate measure` reports. Each becomes a
// list of points the model can predict (calibration.hpp says which and how).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibration.hpp"
#include "numatwin/validate/mlc_consistency.hpp"

namespace numatwin::validate {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double value, int digits = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::string node_text(const model::Topology& t, int node) { return t.nodes.at(node).id; }

}  // namespace

CalibrationData calibration_data_from_mlc(const MlcResults& mlc, const model::Topology& topology) {
  check_mlc_consistency(mlc);  // contradictions are named here, not absorbed by the fit
  CalibrationData data;
  data.source = "Intel mlc " + (mlc.version.empty() ? std::string("output") : mlc.version) + " (" + mlc.file + ")";
  const std::vector<model::NodeIndex> numa = topology.numa_nodes();
  auto node = [&](int mlc_node, int line_hint) -> model::NodeIndex {
    (void)line_hint;
    if (mlc_node < 0 || mlc_node >= static_cast<int>(numa.size())) {
      throw model::InputError(mlc.file, "", "expected NUMA nodes 0.." + std::to_string(numa.size() - 1) + " of topology " +
                                                topology.name + ", found node " + std::to_string(mlc_node));
    }
    return numa[static_cast<std::size_t>(mlc_node)];
  };
  for (std::size_t i = 0; i < mlc.bandwidth_matrix_gbps.size(); ++i) {
    for (std::size_t j = 0; j < mlc.bandwidth_matrix_gbps[i].size(); ++j) {
      const model::NodeIndex cpu = node(mlc.bandwidth_nodes[i], 0);
      const model::NodeIndex mem = node(mlc.bandwidth_nodes[j], 0);
      if (!topology.nodes[cpu].has_cores() || !topology.nodes[mem].has_memory()) continue;
      CalibrationPoint p;
      p.id = "mlc-bandwidth-" + std::to_string(mlc.bandwidth_nodes[i]) + "-" + std::to_string(mlc.bandwidth_nodes[j]);
      p.description = "mlc --bandwidth_matrix: all threads of " + node_text(topology, cpu) + " read " + node_text(topology, mem);
      p.metric = CalibrationMetric::kReadBandwidthGbps;
      p.streams = {model::MeasurementStream{cpu, mem, topology.nodes[cpu].hardware_threads()}};
      p.value = mlc.bandwidth_matrix_gbps[i][j];
      data.points.push_back(p);
    }
  }
  for (std::size_t i = 0; i < mlc.latency_matrix_ns.size(); ++i) {
    for (std::size_t j = 0; j < mlc.latency_matrix_ns[i].size(); ++j) {
      const model::NodeIndex cpu = node(mlc.latency_nodes[i], 0);
      const model::NodeIndex mem = node(mlc.latency_nodes[j], 0);
      if (!topology.nodes[cpu].has_cores() || !topology.nodes[mem].has_memory()) continue;
      CalibrationPoint p;
      p.id = "mlc-latency-" + std::to_string(mlc.latency_nodes[i]) + "-" + std::to_string(mlc.latency_nodes[j]);
      p.description = "mlc --latency_matrix: idle latency from " + node_text(topology, cpu) + " to " + node_text(topology, mem);
      p.metric = CalibrationMetric::kIdleLatencyNs;
      p.chaser = model::MeasurementStream{cpu, mem, 1};
      p.value = mlc.latency_matrix_ns[i][j];
      data.points.push_back(p);
    }
  }
  if (mlc.idle_latency_ns && mlc.latency_matrix_ns.empty()) {
    CalibrationPoint p;
    p.id = "mlc-idle-latency";
    p.description = "mlc --idle_latency: first node, its own memory";
    p.metric = CalibrationMetric::kIdleLatencyNs;
    p.chaser = model::MeasurementStream{numa.at(0), numa.at(0), 1};
    p.value = *mlc.idle_latency_ns;
    data.points.push_back(p);
  } else if (mlc.idle_latency_ns) {
    data.notes.push_back("mlc --idle_latency left out: the latency matrix has the same figure");
  }
  std::vector<model::MeasurementStream> everyone;
  for (model::NodeIndex n : numa) {
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
  if (!mlc.loaded_latency.empty()) {
    if (everyone.empty() || topology.nodes[everyone[0].cpu_node].hardware_threads() < 2) {
      data.notes.push_back("mlc --loaded_latency left out: the topology's first node cannot hold a chaser and load threads");
    } else {
      std::vector<model::MeasurementStream> load = everyone;
      load[0].threads -= 1;  // the chaser's hardware thread
      for (const MlcLoadedLatencyPoint& point : mlc.loaded_latency) {
        CalibrationPoint p;
        p.id = "mlc-loaded-latency-" + std::to_string(point.inject_delay);
        p.description = "mlc --loaded_latency, inject delay " + std::to_string(point.inject_delay) + ": " +
                        fixed(point.bandwidth_gbps, 4) + " GB/s of local reads";
        p.metric = CalibrationMetric::kLoadedLatencyNs;
        p.chaser = model::MeasurementStream{everyone[0].cpu_node, everyone[0].memory_node, 1};
        p.streams = load;
        p.load_bandwidth_gbps = std::max(1e-3, point.bandwidth_gbps - 64.0 / point.latency_ns);
        p.value = point.latency_ns;
        data.points.push_back(p);
      }
    }
  }
  if (data.points.empty()) throw model::InputError(mlc.file, "", "expected at least one mlc figure the model can reproduce");
  return data;
}

CalibrationData calibration_data_from_measurements(const Json& report, const model::Topology& topology, const std::string& file) {
  auto fail = [&](const std::string& pointer, const std::string& expectation) { return model::InputError(file, pointer, expectation); };
  if (!report.is_object() || report.value("format", "") != "numatwin-measurements") {
    throw fail("/format", "expected a `numatwin validate measure` report (\"format\": \"numatwin-measurements\")");
  }
  if (!report.contains("nodes") || !report["nodes"].is_array()) throw fail("/nodes", "expected an array of nodes");
  const std::vector<model::NodeIndex> numa = topology.numa_nodes();
  std::map<int, model::NodeIndex> by_os;
  for (std::size_t k = 0; k < report["nodes"].size(); ++k) {
    const Json& n = report["nodes"][k];
    if (!n.contains("os_index") || !n["os_index"].is_number_integer()) {
      throw fail("/nodes/" + std::to_string(k) + "/os_index", "expected an integer");
    }
    const int os = n["os_index"].get<int>();
    if (const auto named = topology.find_node("n" + std::to_string(os))) {
      by_os[os] = *named;
    } else if (k < numa.size()) {
      by_os[os] = numa[k];
    } else {
      throw fail("/nodes/" + std::to_string(k), "expected a node of topology " + topology.name + " for NUMA node " +
                                                    std::to_string(os) + " (it has " + std::to_string(numa.size()) + ")");
    }
  }
  auto node = [&](const Json& point, const std::string& pointer, const char* key) {
    if (!point.contains(key) || !point[key].is_number_integer()) throw fail(pointer + "/" + key, "expected an integer node");
    const auto it = by_os.find(point[key].get<int>());
    if (it == by_os.end()) throw fail(pointer + "/" + key, "expected a node listed in /nodes, found " + point[key].dump());
    return it->second;
  };
  auto number = [&](const Json& point, const std::string& pointer, const char* key) {
    if (!point.contains(key) || !point[key].is_number() || !(point[key].get<double>() > 0.0)) {
      throw fail(pointer + "/" + key, "expected a number > 0");
    }
    return point[key].get<double>();
  };
  CalibrationData data;
  data.source = "numatwin validate measure report " + file + " (host " +
                (report.contains("host") ? report["host"].value("hostname", "?") : std::string("?")) + ")";
  if (!report.value("complete", false)) data.notes.push_back("the report is incomplete (interrupted): calibrating on its finished points");
  if (report.value("quick", false)) data.notes.push_back("the report is a --quick run: small buffers, figures partly from caches");
  const Json empty = Json::array();
  const Json& bandwidth = report.contains("bandwidth") ? report["bandwidth"] : empty;
  for (std::size_t i = 0; i < bandwidth.size(); ++i) {
    const Json& p = bandwidth[i];
    const std::string pointer = "/bandwidth/" + std::to_string(i);
    if (p.value("kernel", "") != "read") continue;
    CalibrationPoint point;
    const model::NodeIndex cpu = node(p, pointer, "cpu_node");
    const model::NodeIndex mem = node(p, pointer, "memory_node");
    const int threads = static_cast<int>(number(p, pointer, "threads"));
    point.id = "read-" + topology.nodes[cpu].id + "-" + topology.nodes[mem].id + "-" + std::to_string(threads);
    point.description = std::to_string(threads) + " thread(s) of " + topology.nodes[cpu].id + " stream from " +
                        topology.nodes[mem].id + "'s memory";
    point.metric = CalibrationMetric::kReadBandwidthGbps;
    point.streams = {model::MeasurementStream{cpu, mem, threads}};
    point.value = number(p, pointer, "bandwidth_gbps");
    if (threads > topology.nodes[cpu].hardware_threads()) throw fail(pointer + "/threads", "expected at most the node's hardware threads");
    // Several threads that did not run together the whole time did not share the memory as the
    // model's point says: left out, and named.
    if (threads > 1 && p.contains("cpu_share") && p["cpu_share"].is_number() && p["cpu_share"].get<double>() < 0.9) {
      data.notes.push_back(point.id + " left out: a thread had its CPU only " +
                           std::to_string(static_cast<int>(std::lround(100.0 * p["cpu_share"].get<double>()))) +
                           " % of the time (another process ran), so its threads did not read together (" + pointer + ")");
      continue;
    }
    data.points.push_back(point);
  }
  const Json& idle = report.contains("idle_latency") ? report["idle_latency"] : empty;
  for (std::size_t i = 0; i < idle.size(); ++i) {
    const Json& p = idle[i];
    const std::string pointer = "/idle_latency/" + std::to_string(i);
    CalibrationPoint point;
    const model::NodeIndex cpu = node(p, pointer, "cpu_node");
    const model::NodeIndex mem = node(p, pointer, "memory_node");
    point.id = "idle-latency-" + topology.nodes[cpu].id + "-" + topology.nodes[mem].id;
    point.description = "pointer chase from " + topology.nodes[cpu].id + " in " + topology.nodes[mem].id + "'s memory";
    point.metric = CalibrationMetric::kIdleLatencyNs;
    point.chaser = model::MeasurementStream{cpu, mem, 1};
    point.value = number(p, pointer, "latency_ns");
    data.points.push_back(point);
  }
  const Json& loaded = report.contains("loaded_latency") ? report["loaded_latency"] : empty;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const Json& p = loaded[i];
    const std::string pointer = "/loaded_latency/" + std::to_string(i);
    CalibrationPoint point;
    const model::NodeIndex cpu = node(p, pointer, "cpu_node");
    const model::NodeIndex mem = node(p, pointer, "memory_node");
    const int delay = static_cast<int>(p.value("inject_delay", 0));
    point.id = "loaded-latency-" + topology.nodes[cpu].id + "-" + topology.nodes[mem].id + "-" + std::to_string(delay);
    point.metric = CalibrationMetric::kLoadedLatencyNs;
    point.chaser = model::MeasurementStream{cpu, mem, 1};
    point.streams = {model::MeasurementStream{cpu, mem, static_cast<int>(number(p, pointer, "load_threads"))}};
    point.load_bandwidth_gbps = number(p, pointer, "load_bandwidth_gbps");
    point.value = number(p, pointer, "latency_ns");
    point.description = "pointer chase from " + topology.nodes[cpu].id + " while " + std::to_string(point.streams[0].threads) +
                        " thread(s) read " + fixed(point.load_bandwidth_gbps) + " GB/s (delay " + std::to_string(delay) + ")";
    data.points.push_back(point);
  }
  if (data.points.empty()) throw fail("", "expected at least one read bandwidth or latency point");
  return data;
}

}  // namespace numatwin::validate
