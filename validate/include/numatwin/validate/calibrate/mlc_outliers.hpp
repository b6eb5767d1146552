// A leave-one-out check of an mlc bandwidth matrix before it is fitted. A remote entry that the
// rest of its row and the rest of its column both contradict is an outlier (a run disturbed by
// another job, a mistyped figure): fitted, it would be folded into the link or controller it
// shares with healthy entries and pull those off instead.
//
// Which entries to compare: only remote entries (cpu node != memory node), and only those the
// caller says should be alike (calibration_data_from_mlc: the prior topology predicts them within
// 15 % of each other, e.g. every cross-socket read of a 2-socket SNC machine, but not a read of the
// other SNC node of the same socket). For entry (i, j):
//   row    = the median of the alike remote entries of row i other than (i, j),
//   column = the median of the alike remote entries of column j other than (i, j)
// (a median of an even count is the mean of the middle two). The entry is an outlier when both
// exist and it lies more than a factor kOutlierFactor below both, or above both. What the rest
// implies is sqrt(row x column). A row (a CPU node whose every remote read is slow) or a column (a
// memory node every other node reads slowly) that is low throughout contradicts nothing: it is the
// machine, and the fit takes it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::validate {

inline constexpr double kOutlierFactor = 1.25;

struct BandwidthOutlier {
  int cpu_node = 0;  // mlc's labels
  int memory_node = 0;
  double measured_gbps = 0.0;
  double row_median_gbps = 0.0;
  double column_median_gbps = 0.0;
  double implied_gbps = 0.0;  // sqrt(row x column)
};

// alike(row_a, column_a, row_b, column_b), indices into mlc's bandwidth matrix.
using AlikeEntries = std::function<bool(std::size_t, std::size_t, std::size_t, std::size_t)>;

std::vector<BandwidthOutlier> find_bandwidth_outliers(const MlcResults& mlc, const AlikeEntries& alike);

// "<file>: --bandwidth_matrix [node i -> memory of node j]: measured X GB/s, the rest of its row
// (median Y) and column (median Z) imply about W GB/s: ...".
std::string describe_outlier(const MlcResults& mlc, const BandwidthOutlier& outlier);

}  // namespace numatwin::validate
