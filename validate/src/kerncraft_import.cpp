#include "numatwin/validate/kerncraft_import.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

[[noreturn]] void fail(const std::string& file, const std::string& path, const std::string& what) {
  throw model::InputError(file, path, what);
}

YAML::Node need(const YAML::Node& parent, const std::string& key, const std::string& file, const std::string& path) {
  if (!parent.IsMap() || !parent[key]) fail(file, path + "/" + key, "missing required field");
  return parent[key];
}

int need_int(const YAML::Node& parent, const std::string& key, const std::string& file, const std::string& path) {
  try {
    const int value = need(parent, key, file, path).as<int>();
    if (value < 1) fail(file, path + "/" + key, "expected an integer >= 1");
    return value;
  } catch (const YAML::Exception&) {
    fail(file, path + "/" + key, "expected an integer");
  }
}

// "14.32 GB/s" (also MB/s, kB/s, B/s) in GB/s.
double bandwidth_gbps(const YAML::Node& node, const std::string& file, const std::string& path) {
  std::string text;
  try {
    text = node.as<std::string>();
  } catch (const YAML::Exception&) {
    fail(file, path, "expected a bandwidth such as \"14.32 GB/s\"");
  }
  std::istringstream in(text);
  double value = 0.0;
  std::string unit;
  in >> value >> unit;
  if (in.fail() || !std::isfinite(value) || value <= 0.0) fail(file, path, "expected a bandwidth > 0 such as \"14.32 GB/s\", found \"" + text + "\"");
  if (unit == "GB/s") return value;
  if (unit == "MB/s") return value / 1e3;
  if (unit == "kB/s") return value / 1e6;
  if (unit == "B/s") return value / 1e9;
  fail(file, path, "unknown unit \"" + unit + "\"; expected GB/s, MB/s, kB/s or B/s");
}

}  // namespace

KerncraftMachine load_kerncraft(const std::filesystem::path& path) {
  const std::string file = path.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    fail(file, "", "cannot open the file for reading");
  } catch (const YAML::Exception& e) {
    fail(file, "", "not valid YAML (line " + std::to_string(e.mark.line + 1) + "): expected a kerncraft machine file");
  }
  if (!root.IsMap()) fail(file, "", "expected a kerncraft machine file (a YAML mapping)");
  KerncraftMachine m;
  m.file = file;
  if (root["model name"]) m.model_name = root["model name"].as<std::string>("");
  m.sockets = need_int(root, "sockets", file, "");
  m.cores_per_socket = need_int(root, "cores per socket", file, "");
  m.threads_per_core = need_int(root, "threads per core", file, "");
  m.numa_domains_per_socket = need_int(root, "NUMA domains per socket", file, "");
  m.cores_per_numa_domain = need_int(root, "cores per NUMA domain", file, "");
  const std::string base = "/benchmarks/measurements/MEM";
  const YAML::Node mem = need(need(need(root, "benchmarks", file, ""), "measurements", file, "/benchmarks"), "MEM", file,
                              "/benchmarks/measurements");
  if (!mem.IsMap()) fail(file, base, "expected one entry per threads-per-core setting");
  for (const auto& entry : mem) {
    KerncraftCurve curve;
    const std::string key = entry.first.as<std::string>("");
    const std::string path_here = base + "/" + key;
    try {
      curve.threads_per_core = entry.first.as<int>();
    } catch (const YAML::Exception&) {
      fail(file, path_here, "expected a threads-per-core number as the key");
    }
    const YAML::Node cores = need(entry.second, "cores", file, path_here);
    const YAML::Node load = need(need(entry.second, "results", file, path_here), "load", file, path_here + "/results");
    if (!cores.IsSequence() || !load.IsSequence() || cores.size() != load.size() || cores.size() == 0) {
      fail(file, path_here + "/results/load", "expected one load bandwidth per entry of " + path_here + "/cores");
    }
    for (std::size_t i = 0; i < cores.size(); ++i) {
      int n = 0;
      try {
        n = cores[i].as<int>();
      } catch (const YAML::Exception&) {
        fail(file, path_here + "/cores/" + std::to_string(i), "expected a core count");
      }
      if (n < 1 || n > m.cores_per_socket) {
        fail(file, path_here + "/cores/" + std::to_string(i), "expected 1.." + std::to_string(m.cores_per_socket) + " cores");
      }
      curve.cores.push_back(n);
      curve.load_gbps.push_back(bandwidth_gbps(load[i], file, path_here + "/results/load/" + std::to_string(i)));
    }
    m.memory_load.push_back(curve);
  }
  return m;
}

CalibrationData calibration_data_from_kerncraft(const KerncraftMachine& m, const model::Topology& topology) {
  const auto curve = std::find_if(m.memory_load.begin(), m.memory_load.end(),
                                  [](const KerncraftCurve& c) { return c.threads_per_core == 1; });
  if (curve == m.memory_load.end()) {
    throw model::InputError(m.file, "/benchmarks/measurements/MEM/1", "missing: the one-thread-per-core curve is the one the model fits");
  }
  const std::vector<model::NodeIndex> numa = topology.numa_nodes();
  if (static_cast<int>(numa.size()) < m.numa_domains_per_socket) {
    throw model::InputError(m.file, "/NUMA domains per socket",
                            "the topology " + topology.name + " has " + std::to_string(numa.size()) + " NUMA nodes, fewer than the " +
                                std::to_string(m.numa_domains_per_socket) + " domains of one socket");
  }
  for (int d = 0; d < m.numa_domains_per_socket; ++d) {
    if (topology.nodes[numa[d]].cores < m.cores_per_numa_domain) {
      throw model::InputError(m.file, "/cores per NUMA domain",
                              "node " + topology.nodes[numa[d]].id + " of " + topology.name + " has " +
                                  std::to_string(topology.nodes[numa[d]].cores) + " cores, fewer than the file's " +
                                  std::to_string(m.cores_per_numa_domain));
    }
  }
  CalibrationData data;
  data.source = m.file + " (kerncraft machine file, MEM load, one thread per core)";
  for (std::size_t i = 0; i < curve->cores.size(); ++i) {
    CalibrationPoint p;
    p.id = "kerncraft-load-" + std::to_string(curve->cores[i]);
    p.description = std::to_string(curve->cores[i]) + " cores of socket 0 stream from their domain's memory (likwid-bench load)";
    p.metric = CalibrationMetric::kReadBandwidthGbps;
    int left = curve->cores[i];
    for (int d = 0; d < m.numa_domains_per_socket && left > 0; ++d) {
      const int here = std::min(left, m.cores_per_numa_domain);
      p.streams.push_back(model::MeasurementStream{numa[d], numa[d], here});
      left -= here;
    }
    p.value = curve->load_gbps[i];
    data.points.push_back(p);
  }
  data.notes.push_back("kerncraft values are the best of repeated runs (likwid-bench), not means");
  return data;
}

}  // namespace numatwin::validate
