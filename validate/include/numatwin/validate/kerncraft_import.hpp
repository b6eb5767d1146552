// Reading kerncraft machine files (YAML): the socket's measured streaming bandwidth per core
// count, which calibrates a node's memory bandwidth and per-core outstanding misses.
//
// Each `benchmarks/measurements/MEM/<threads per core>` entry lists core counts n = 1..C and,
// per kernel, the best of repeated likwid-bench runs on socket 0 (threads placed so that one
// NUMA domain fills before the next, data first-touched by the workers; PROVENANCE.md of the
// data). The `load` kernel only reads, so it is the model's read bandwidth: n threads, one per
// core, the first `cores per NUMA domain` on the first domain, the rest on the next.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/calibration.hpp"

namespace numatwin::validate {

struct KerncraftCurve {
  int threads_per_core = 1;
  std::vector<int> cores;
  std::vector<double> load_gbps;  // per core count
};

struct KerncraftMachine {
  std::string file;
  std::string model_name;
  int sockets = 0;
  int cores_per_socket = 0;
  int threads_per_core = 0;
  int numa_domains_per_socket = 0;
  int cores_per_numa_domain = 0;
  std::vector<KerncraftCurve> memory_load;  // one per threads-per-core setting
};

// Throws model::InputError(file, json-pointer-like path, expectation) for unreadable files and
// missing or malformed fields.
KerncraftMachine load_kerncraft(const std::filesystem::path& path);

// Calibration points from the one-thread-per-core MEM load curve. Throws model::InputError naming
// the kerncraft file when the topology has fewer NUMA nodes or cores than the curve needs.
CalibrationData calibration_data_from_kerncraft(const KerncraftMachine& machine, const model::Topology& topology);

}  // namespace numatwin::validate
