#include "numatwin/validate/calibrate/kerncraft_import.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
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

// "32.00 kB" (B, kB, MB, GB; binary multiples) in bytes, > 0.
double size_bytes(const YAML::Node& node, const std::string& file, const std::string& path) {
  std::string text;
  try {
    text = node.as<std::string>();
  } catch (const YAML::Exception&) {
    fail(file, path, "expected a size such as \"32.00 kB\"");
  }
  std::istringstream in(text);
  double value = 0.0;
  std::string unit;
  in >> value >> unit;
  if (in.fail() || !std::isfinite(value) || value <= 0.0) fail(file, path, "expected a size > 0 such as \"32.00 kB\", found \"" + text + "\"");
  if (unit == "B") return value;
  if (unit == "kB") return value * 1024.0;
  if (unit == "MB") return value * 1024.0 * 1024.0;
  if (unit == "GB") return value * 1024.0 * 1024.0 * 1024.0;
  fail(file, path, "unknown unit \"" + unit + "\"; expected B, kB, MB or GB");
}

// `clock: 2.4 GHz` in GHz, > 0.
double clock_ghz(const YAML::Node& node, const std::string& file) {
  std::istringstream in(node.as<std::string>(""));
  double value = 0.0;
  std::string unit;
  in >> value >> unit;
  if (in.fail() || !std::isfinite(value) || value <= 0.0 || (unit != "GHz" && unit != "MHz")) {
    fail(file, "/clock", "expected a clock > 0 such as \"2.4 GHz\"");
  }
  return unit == "MHz" ? value / 1e3 : value;
}

KerncraftLevel read_level(const YAML::Node& node, const std::string& file, const std::string& path) {
  KerncraftLevel level;
  try {
    level.name = need(node, "level", file, path).as<std::string>();
  } catch (const YAML::Exception&) {
    fail(file, path + "/level", "expected a level name such as L1");
  }
  level.cores_per_group = need_int(node, "cores per group", file, path);
  const bool memory = level.name == "MEM";
  if (!memory) {
    // The size as written, or from the cache's geometry (sets x ways x line); both: they must agree.
    double geometry = 0.0;
    if (const YAML::Node cache = node["cache per group"]; cache && cache.IsMap() && cache["sets"] && cache["ways"] && cache["cl_size"]) {
      const std::string cache_path = path + "/cache per group";
      geometry = static_cast<double>(need_int(cache, "sets", file, cache_path)) * need_int(cache, "ways", file, cache_path) *
                 need_int(cache, "cl_size", file, cache_path);
    }
    if (node["size per group"]) {
      level.size_bytes = size_bytes(node["size per group"], file, path + "/size per group");
      if (geometry > 0.0 && std::abs(level.size_bytes - geometry) > 0.01 * geometry) {
        fail(file, path + "/size per group",
             std::to_string(static_cast<long long>(level.size_bytes)) + " B, but cache per group gives sets x ways x cl_size = " +
                 std::to_string(static_cast<long long>(geometry)) + " B: one of them is wrong");
      }
    } else if (geometry > 0.0) {
      level.size_bytes = geometry;
    } else {
      fail(file, path + "/size per group", "missing required field (or cache per group with sets, ways and cl_size)");
    }
  }
  const YAML::Node up = need(node, "upstream throughput", file, path);
  const std::string up_path = path + "/upstream throughput";
  if (!up.IsSequence() || up.size() != 2) fail(file, up_path, "expected [throughput, duplex or ports], e.g. [64 B/cy, half-duplex]");
  const std::string rate = up[0].IsScalar() ? up[0].as<std::string>() : "";
  if (rate == "architecture code analyzer" || rate == "full socket memory bandwidth") {
    level.bytes_per_cycle = 0.0;
  } else {
    std::istringstream in(rate);
    std::string unit;
    in >> level.bytes_per_cycle >> unit;
    if (in.fail() || unit != "B/cy" || !std::isfinite(level.bytes_per_cycle) || level.bytes_per_cycle <= 0.0) {
      fail(file, up_path + "/0", "expected a throughput > 0 such as \"64 B/cy\" (or \"architecture code analyzer\", \"full socket memory "
                                 "bandwidth\"), found \"" + rate + "\"");
    }
    const std::string duplex = up[1].IsScalar() ? up[1].as<std::string>() : "";
    if (duplex != "half-duplex" && duplex != "full-duplex") fail(file, up_path + "/1", "expected half-duplex or full-duplex");
    level.full_duplex = duplex == "full-duplex";
  }
  try {
    level.transfers_overlap = need(node, "transfers overlap", file, path).as<bool>();
  } catch (const YAML::Exception&) {
    fail(file, path + "/transfers overlap", "expected true or false");
  }
  return level;
}

std::vector<KerncraftLevel> read_hierarchy(const YAML::Node& root, const std::string& file) {
  std::vector<KerncraftLevel> levels;
  if (!root["memory hierarchy"]) return levels;
  const YAML::Node h = root["memory hierarchy"];
  const std::string base = "/memory hierarchy";
  if (!h.IsSequence() || h.size() == 0) fail(file, base, "expected a list of levels, L1 first");
  for (std::size_t i = 0; i < h.size(); ++i) levels.push_back(read_level(h[i], file, base + "/" + std::to_string(i)));
  for (std::size_t i = 1; i < levels.size(); ++i) {
    const KerncraftLevel& below = levels[i - 1];
    const KerncraftLevel& here = levels[i];
    const std::string path = base + "/" + std::to_string(i);
    if (here.cores_per_group < below.cores_per_group) {
      fail(file, path + "/cores per group",
           "expected at least the " + std::to_string(below.cores_per_group) + " cores per group of " + below.name + " (a level serves the cores below it)");
    }
    if (here.name != "MEM" && below.size_bytes > here.size_bytes) {
      fail(file, base + "/" + std::to_string(i - 1) + "/size per group",
           below.name + " per group (" + std::to_string(static_cast<long long>(below.size_bytes)) + " B) is larger than the next level, " + here.name +
               " (" + std::to_string(static_cast<long long>(here.size_bytes)) + " B): a cache larger than the level behind it");
    }
  }
  if (levels.back().name != "MEM") fail(file, base + "/" + std::to_string(levels.size() - 1) + "/level", "expected the last level to be MEM");
  return levels;
}

}  // namespace

KerncraftMachine load_kerncraft(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(file, "", "cannot open the file for reading");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_kerncraft(text, file);
}

KerncraftMachine parse_kerncraft(std::string_view text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
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
  if (root["clock"]) m.clock_ghz = clock_ghz(root["clock"], file);
  if (const YAML::Node in_core = root["in-core model"]; in_core && in_core.IsSequence()) {
    for (const auto& entry : in_core) {
      if (!entry.IsMap() || !entry["LLVM-MCA"]) continue;
      const std::string flags = entry["LLVM-MCA"].as<std::string>("");
      const std::string prefix = "-mcpu=";
      if (flags.rfind(prefix, 0) == 0) m.llvm_mca_cpu = flags.substr(prefix.size());
    }
  }
  m.hierarchy = read_hierarchy(root, file);
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
