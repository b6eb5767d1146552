// Reading the text output of Intel Memory Latency Checker (mlc v3.x): the bandwidth matrix
// (--bandwidth_matrix), idle latency matrix (--latency_matrix), idle latency (--idle_latency),
// peak injection and maximum bandwidths (--peak_injection_bandwidth, --max_bandwidth) and the
// loaded-latency table (--loaded_latency), from one file holding any of those sections.
// Bandwidths are converted from mlc's MB/sec (1e6 bytes/s) to GB/s.
//
// A matrix has a column for every NUMA node and a row for every node with CPUs: on a machine with
// CPU-less nodes (CXL expanders, HBM in flat mode) mlc prints fewer rows than columns, e.g.
//                 Numa node
// Numa node            0       1       2
//        0         117.4   184.3   561.7
//        1         186.0   117.9   391.0
// The rows are read up to the blank line that ends the matrix (or the next section); each row's
// node must be a column of the header, after the previous row's.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace numatwin::validate {

struct MlcLoadedLatencyPoint {
  int inject_delay = 0;  // mlc's injection delay (cycles of delay between requests)
  double latency_ns = 0.0;
  double bandwidth_gbps = 0.0;
  int line = 0;  // where it was read, for messages
};

struct MlcResults {
  std::string file;
  std::string version;                                     // "v3.5", or empty
  std::vector<int> bandwidth_nodes;                        // columns: every memory node (mlc's labels)
  std::vector<int> bandwidth_cpu_nodes;                    // rows: the nodes with CPUs
  std::vector<std::vector<double>> bandwidth_matrix_gbps;  // [row][column]
  std::vector<int> latency_nodes;                          // columns
  std::vector<int> latency_cpu_nodes;                      // rows
  std::vector<std::vector<double>> latency_matrix_ns;      // [row][column]
  std::optional<double> idle_latency_ns;
  std::map<std::string, double> peak_injection_gbps;  // "ALL Reads", "3:1 Reads-Writes", ...
  std::map<std::string, double> max_bandwidth_gbps;
  std::vector<MlcLoadedLatencyPoint> loaded_latency;
  std::string loaded_latency_traffic;  // e.g. "Read-only"
};

// Throws model::InputError(file, "line N", expectation) for a truncated or malformed section,
// and when the text holds no section at all.
MlcResults parse_mlc_output(std::string_view text, const std::string& file);
MlcResults load_mlc_output(const std::filesystem::path& path);

// Index of mlc node `node` among `nodes` (a matrix's rows or columns), or -1.
int mlc_index_of(const std::vector<int>& nodes, int node);

}  // namespace numatwin::validate
