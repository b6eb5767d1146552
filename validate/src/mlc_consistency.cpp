#include "numatwin/validate/mlc_consistency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

constexpr double kNoise = 0.05;  // relative margin for run-to-run noise (see the header)

std::string figure(double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return *unit != '\0' ? std::string(buffer) + " " + unit : std::string(buffer);
}

std::string entry(const char* section, int cpu_node, int memory_node) {
  return std::string(section) + " [node " + std::to_string(cpu_node) + " -> memory of node " + std::to_string(memory_node) + "]";
}

void require_positive(const MlcResults& mlc, const std::string& where, double value) {
  if (!std::isfinite(value) || value <= 0.0) {
    throw model::InputError(mlc.file, where, "expected a finite figure > 0, found " + std::to_string(value));
  }
}

void check_bandwidth_matrix(const MlcResults& mlc) {
  const auto& b = mlc.bandwidth_matrix_gbps;
  const auto& nodes = mlc.bandwidth_nodes;
  for (std::size_t i = 0; i < b.size(); ++i) {
    for (std::size_t j = 0; j < b[i].size(); ++j) require_positive(mlc, entry("--bandwidth_matrix", nodes[i], nodes[j]), b[i][j]);
  }
  // Rows and columns are the same nodes in the same order: node j's own reads are B[j][j].
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (j >= b.size() || j >= b[j].size()) continue;
    const double local = b[j][j];
    for (std::size_t i = 0; i < b.size(); ++i) {
      if (i == j || j >= b[i].size()) continue;
      if (b[i][j] > (1.0 + kNoise) * local) {
        throw model::InputError(
            mlc.file, entry("--bandwidth_matrix", nodes[i], nodes[j]),
            "node " + std::to_string(nodes[i]) + " reads node " + std::to_string(nodes[j]) + "'s memory at " +
                figure(b[i][j], "GB/s") + " but node " + std::to_string(nodes[j]) + " reads it itself at only " +
                figure(local, "GB/s") + ": a remote reader passes the same memory controller plus the links, so it "
                "cannot be more than 5 % faster than the local one (a mistyped or swapped figure?)");
      }
    }
  }
}

void check_peak_injection(const MlcResults& mlc) {
  const auto all_reads = mlc.peak_injection_gbps.find("ALL Reads");
  for (const auto& [mix, value] : mlc.peak_injection_gbps) require_positive(mlc, "--peak_injection_bandwidth [" + mix + "]", value);
  if (all_reads == mlc.peak_injection_gbps.end() || mlc.bandwidth_matrix_gbps.empty()) return;
  double sum = 0.0;
  std::string terms;
  for (std::size_t j = 0; j < mlc.bandwidth_nodes.size(); ++j) {
    if (j >= mlc.bandwidth_matrix_gbps.size() || j >= mlc.bandwidth_matrix_gbps[j].size()) return;  // not square
    sum += mlc.bandwidth_matrix_gbps[j][j];
    terms += (terms.empty() ? "" : " + ") + figure(mlc.bandwidth_matrix_gbps[j][j], "");
  }
  if (all_reads->second > (1.0 + kNoise) * sum) {
    throw model::InputError(mlc.file, "--peak_injection_bandwidth [ALL Reads]",
                            "every node reading its own memory at once gives " + figure(all_reads->second, "GB/s") +
                                ", more than the local figures of --bandwidth_matrix add up to (" + terms + " = " +
                                figure(sum, "GB/s") + "): the nodes together cannot read more than each alone");
  }
}

void check_latencies(const MlcResults& mlc) {
  const auto& l = mlc.latency_matrix_ns;
  const auto& nodes = mlc.latency_nodes;
  for (std::size_t i = 0; i < l.size(); ++i) {
    for (std::size_t j = 0; j < l[i].size(); ++j) require_positive(mlc, entry("--latency_matrix", nodes[i], nodes[j]), l[i][j]);
  }
  double lowest_local = std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < nodes.size(); ++j) {
    if (j >= l.size() || j >= l[j].size()) continue;
    const double local = l[j][j];
    lowest_local = std::min(lowest_local, local);
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (i == j || j >= l[i].size()) continue;
      if (l[i][j] < (1.0 - kNoise) * local) {
        throw model::InputError(mlc.file, entry("--latency_matrix", nodes[i], nodes[j]),
                                "node " + std::to_string(nodes[i]) + " reaches node " + std::to_string(nodes[j]) + "'s memory in " +
                                    figure(l[i][j], "ns") + ", below node " + std::to_string(nodes[j]) + "'s own " +
                                    figure(local, "ns") + ": a remote access is the local access plus the links");
      }
    }
  }
  std::string floor_name = "the lowest local latency of --latency_matrix";
  double floor = lowest_local;
  if (mlc.idle_latency_ns) {
    require_positive(mlc, "--idle_latency", *mlc.idle_latency_ns);
    if (std::isfinite(lowest_local) && *mlc.idle_latency_ns < (1.0 - kNoise) * lowest_local) {
      throw model::InputError(mlc.file, "--idle_latency",
                              figure(*mlc.idle_latency_ns, "ns") + " is below " + floor_name + " (" +
                                  figure(lowest_local, "ns") + "): the same idle access cannot be faster here");
    }
    if (!std::isfinite(floor) || *mlc.idle_latency_ns < floor) {
      floor = *mlc.idle_latency_ns;
      floor_name = "the idle latency (--idle_latency)";
    }
  }
  for (const MlcLoadedLatencyPoint& p : mlc.loaded_latency) {
    const std::string where = "--loaded_latency line " + std::to_string(p.line) + " (inject delay " + std::to_string(p.inject_delay) + ")";
    require_positive(mlc, where, p.latency_ns);
    require_positive(mlc, where, p.bandwidth_gbps);
    if (std::isfinite(floor) && p.latency_ns < (1.0 - kNoise) * floor) {
      throw model::InputError(mlc.file, where,
                              "a loaded latency of " + figure(p.latency_ns, "ns") + " is below " + floor_name + " (" +
                                  figure(floor, "ns") + "): a miss under load waits at least as long as an idle one");
    }
  }
}

}  // namespace

void check_mlc_consistency(const MlcResults& mlc) {
  check_bandwidth_matrix(mlc);
  check_peak_injection(mlc);
  check_latencies(mlc);
}

}  // namespace numatwin::validate
