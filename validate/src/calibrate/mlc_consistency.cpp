#include "numatwin/validate/calibrate/mlc_consistency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
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

std::string node(int n) { return "node " + std::to_string(n); }

void require_positive(const MlcResults& mlc, const std::string& where, double value) {
  if (!std::isfinite(value) || value <= 0.0) {
    throw model::InputError(mlc.file, where, "expected a finite figure > 0, found " + std::to_string(value));
  }
}

// A matrix with its rows (nodes with CPUs) and columns (memory nodes) by mlc's labels.
struct Matrix {
  const std::vector<int>& rows;
  const std::vector<int>& columns;
  const std::vector<std::vector<double>>& values;
  // The entry of row node `cpu` and column node `memory`, or nullopt when either is missing.
  [[nodiscard]] std::optional<double> at(int cpu, int memory) const {
    const int row = mlc_index_of(rows, cpu);
    const int column = mlc_index_of(columns, memory);
    if (row < 0 || column < 0) return std::nullopt;
    const auto i = static_cast<std::size_t>(row);
    const auto j = static_cast<std::size_t>(column);
    if (i >= values.size() || j >= values[i].size()) return std::nullopt;
    return values[i][j];
  }
  [[nodiscard]] std::optional<double> local(int n) const { return at(n, n); }
};

// The shape the reader gives: one row label per row, one value per column label.
void require_shape(const MlcResults& mlc, const char* section, const Matrix& m) {
  bool ok = m.rows.size() == m.values.size();
  for (const auto& row : m.values) ok = ok && row.size() == m.columns.size();
  if (!ok) {
    throw model::InputError(mlc.file, section, "expected one row label per row (" + std::to_string(m.rows.size()) + " for " +
                                                   std::to_string(m.values.size()) + " rows) and one value per column (" +
                                                   std::to_string(m.columns.size()) + " columns)");
  }
}

void require_positive_entries(const MlcResults& mlc, const char* section, const Matrix& m) {
  require_shape(mlc, section, m);
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    for (std::size_t j = 0; j < m.values[i].size(); ++j) require_positive(mlc, entry(section, m.rows[i], m.columns[j]), m.values[i][j]);
  }
}

void check_bandwidth_matrix(const MlcResults& mlc, std::vector<std::string>& warnings) {
  const Matrix b{mlc.bandwidth_cpu_nodes, mlc.bandwidth_nodes, mlc.bandwidth_matrix_gbps};
  require_positive_entries(mlc, "--bandwidth_matrix", b);
  for (int i : b.rows) {
    for (int j : b.rows) {
      if (i == j || !b.at(i, j) || !b.local(j) || !b.local(i)) continue;
      const double remote = *b.at(i, j);
      if (remote > (1.0 + kNoise) * *b.local(j)) {
        throw model::InputError(
            mlc.file, entry("--bandwidth_matrix", i, j),
            node(i) + " reads " + node(j) + "'s memory at " + figure(remote, "GB/s") + " but " + node(j) + " reads it itself at only " +
                figure(*b.local(j), "GB/s") + ": a remote reader passes the same memory controller plus the links, so it "
                "cannot be more than 5 % faster than the local one (a mistyped or swapped figure?)");
      }
      if (remote > (1.0 + kNoise) * *b.local(i)) {
        warnings.push_back(mlc.file + ": " + entry("--bandwidth_matrix", i, j) + ": " + node(i) + " reads " + node(j) +
                           "'s memory at " + figure(remote, "GB/s") + ", faster than its own (" + figure(*b.local(i), "GB/s") +
                           "): possible only when " + node(j) + " has more memory bandwidth (more channels populated); "
                           "fitted as measured, check the DIMM population");
      }
    }
  }
}

void check_peak_injection(const MlcResults& mlc) {
  const auto all_reads = mlc.peak_injection_gbps.find("ALL Reads");
  for (const auto& [mix, value] : mlc.peak_injection_gbps) require_positive(mlc, "--peak_injection_bandwidth [" + mix + "]", value);
  if (all_reads == mlc.peak_injection_gbps.end() || mlc.bandwidth_matrix_gbps.empty()) return;
  const Matrix b{mlc.bandwidth_cpu_nodes, mlc.bandwidth_nodes, mlc.bandwidth_matrix_gbps};
  double sum = 0.0;
  std::string terms;
  for (int n : b.rows) {
    if (!b.local(n)) return;  // a node with CPUs but no memory: its threads read elsewhere
    sum += *b.local(n);
    terms += (terms.empty() ? "" : " + ") + figure(*b.local(n), "");
  }
  if (all_reads->second > (1.0 + kNoise) * sum) {
    throw model::InputError(mlc.file, "--peak_injection_bandwidth [ALL Reads]",
                            "every node reading its own memory at once gives " + figure(all_reads->second, "GB/s") +
                                ", more than the local figures of --bandwidth_matrix add up to (" + terms + " = " +
                                figure(sum, "GB/s") + "): the nodes together cannot read more than each alone");
  }
}

// Rules 3 and 6: the local latency against the rest of its row (refused) and column (named).
void check_latency_matrix(const MlcResults& mlc, std::vector<std::string>& warnings) {
  const Matrix l{mlc.latency_cpu_nodes, mlc.latency_nodes, mlc.latency_matrix_ns};
  require_positive_entries(mlc, "--latency_matrix", l);
  for (int i : l.rows) {
    for (int j : l.rows) {
      if (i == j || !l.at(i, j) || !l.local(i)) continue;
      const double remote = *l.at(i, j);
      if (remote < (1.0 - kNoise) * *l.local(i)) {
        throw model::InputError(
            mlc.file, entry("--latency_matrix", i, j),
            node(i) + "'s CPU reaches " + node(j) + "'s memory in " + figure(remote, "ns") + ", faster than its own memory (" +
                figure(*l.local(i), "ns") + "): a CPU's own node is its nearest memory and a remote access is another node's "
                "local access plus the links, so the data contradict themselves (rows or columns mislabelled, or a local "
                "figure wrong?); not fitted");
      }
    }
  }
  for (int j : l.rows) {
    for (int i : l.rows) {
      if (i == j || !l.at(i, j) || !l.local(j)) continue;
      if (*l.at(i, j) < (1.0 - kNoise) * *l.local(j)) {
        warnings.push_back(mlc.file + ": " + entry("--latency_matrix", j, j) + ": " + node(j) + "'s own latency " +
                           figure(*l.local(j), "ns") + " is above " + node(i) + "'s " + figure(*l.at(i, j), "ns") + " to the same memory. "
                           "Genuine on some sub-NUMA-clustered parts (mlc chases from one CPU per node, and " + node(j) +
                           "'s may sit farther from its memory controllers than " + node(i) + "'s); the model has one local "
                           "latency per node and fits a compromise");
      }
    }
  }
}

// Rule 4: idle and loaded latencies against the lowest local one.
void check_idle_and_loaded(const MlcResults& mlc) {
  const Matrix l{mlc.latency_cpu_nodes, mlc.latency_nodes, mlc.latency_matrix_ns};
  double lowest_local = std::numeric_limits<double>::infinity();
  for (int n : l.rows) {
    if (l.local(n)) lowest_local = std::min(lowest_local, *l.local(n));
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

std::vector<std::string> check_mlc_consistency(const MlcResults& mlc) {
  std::vector<std::string> warnings;
  check_bandwidth_matrix(mlc, warnings);
  check_peak_injection(mlc);
  check_latency_matrix(mlc, warnings);
  check_idle_and_loaded(mlc);
  return warnings;
}

}  // namespace numatwin::validate
