// Calibration data from `numatwin validate measure` reports (Intel mlc output: calibration_data_mlc.cpp;
// kerncraft: kerncraft_import.cpp). Each becomes a list of points the model can predict
// (calibration.hpp says which and how).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"

namespace numatwin::validate {
namespace {

using Json = nlohmann::ordered_json;

std::string fixed(double value, int digits = 3) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

}  // namespace

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
