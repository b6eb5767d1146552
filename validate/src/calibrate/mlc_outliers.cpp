#include "numatwin/validate/calibrate/mlc_outliers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace numatwin::validate {
namespace {

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

std::string figure(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f GB/s", value);
  return buffer;
}

bool remote(const MlcResults& mlc, std::size_t i, std::size_t j) { return mlc.bandwidth_cpu_nodes[i] != mlc.bandwidth_nodes[j]; }

}  // namespace

std::vector<BandwidthOutlier> find_bandwidth_outliers(const MlcResults& mlc, const AlikeEntries& alike) {
  const auto& b = mlc.bandwidth_matrix_gbps;
  std::vector<BandwidthOutlier> out;
  for (std::size_t i = 0; i < b.size(); ++i) {
    for (std::size_t j = 0; j < b[i].size(); ++j) {
      if (!remote(mlc, i, j)) continue;
      std::vector<double> row, column;
      for (std::size_t l = 0; l < b[i].size(); ++l) {
        if (l != j && remote(mlc, i, l) && alike(i, j, i, l)) row.push_back(b[i][l]);
      }
      for (std::size_t k = 0; k < b.size(); ++k) {
        if (k != i && j < b[k].size() && remote(mlc, k, j) && alike(i, j, k, j)) column.push_back(b[k][j]);
      }
      const std::optional<double> r = median(row);
      const std::optional<double> c = median(column);
      if (!r || !c) continue;
      const double v = b[i][j];
      const bool low = v * kOutlierFactor < *r && v * kOutlierFactor < *c;
      const bool high = v > kOutlierFactor * *r && v > kOutlierFactor * *c;
      if (!low && !high) continue;
      out.push_back(BandwidthOutlier{mlc.bandwidth_cpu_nodes[i], mlc.bandwidth_nodes[j], v, *r, *c, std::sqrt(*r * *c)});
    }
  }
  return out;
}

std::string describe_outlier(const MlcResults& mlc, const BandwidthOutlier& o) {
  const double off = 100.0 * (o.measured_gbps - o.implied_gbps) / o.implied_gbps;
  char percent[32];
  std::snprintf(percent, sizeof percent, "%+.0f %%", off);
  return mlc.file + ": --bandwidth_matrix [node " + std::to_string(o.cpu_node) + " -> memory of node " +
         std::to_string(o.memory_node) + "]: measured " + figure(o.measured_gbps) + ", but the rest of its row (median " +
         figure(o.row_median_gbps) + ") and of its column (median " + figure(o.column_median_gbps) + ") imply about " +
         figure(o.implied_gbps) + " (" + percent + "): an outlier, left out of the fit";
}

}  // namespace numatwin::validate
