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
#include <string_view>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"

namespace numatwin::validate {

struct KerncraftCurve {
  int threads_per_core = 1;
  std::vector<int> cores;
  std::vector<double> load_gbps;  // per core count
};

// One level of `memory hierarchy` (L1, L2, L3, MEM): what the Execution-Cache-Memory model of a
// loop needs from it. A cache's `size per group` is shared by `cores per group` cores (kB, MB, GB
// are read as 1024, 1024^2, 1024^3 bytes: the files write a 32 KiB L1 as "32.00 kB"). Its
// `upstream throughput` is [N B/cy, duplex] for the transfers from the next level, or for L1 the
// in-core model's ports ("architecture code analyzer") and for MEM the measured bandwidth ("full
// socket memory bandwidth"): bytes_per_cycle 0 then. `transfers overlap`: whether its transfers
// overlap with the core's other work (Intel cores: false, AMD Zen: true for L1-L3).
struct KerncraftLevel {
  std::string name;
  double size_bytes = 0.0;  // per group; 0 for MEM
  int cores_per_group = 1;
  double bytes_per_cycle = 0.0;
  bool full_duplex = false;
  bool transfers_overlap = false;
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
  double clock_ghz = 0.0;      // `clock`, 0 when the file has none
  std::string llvm_mca_cpu;    // `in-core model`'s LLVM-MCA entry, e.g. "skylake-avx512"; may be empty
  std::vector<KerncraftLevel> hierarchy;  // `memory hierarchy`, outermost last; may be empty
};

// Throws model::InputError(file, json-pointer-like path, expectation) for unreadable files and
// missing or malformed fields, and for a hierarchy that contradicts itself: a cache larger than
// the next level's, fewer cores per group than the level below, a throughput of zero.
KerncraftMachine load_kerncraft(const std::filesystem::path& path);
// The same for the text of such a file; `file` names it in errors and in KerncraftMachine::file.
KerncraftMachine parse_kerncraft(std::string_view text, const std::string& file);

// Calibration points from the one-thread-per-core MEM load curve. Throws model::InputError naming
// the kerncraft file when the topology has fewer NUMA nodes or cores than the curve needs.
CalibrationData calibration_data_from_kerncraft(const KerncraftMachine& machine, const model::Topology& topology);

}  // namespace numatwin::validate
