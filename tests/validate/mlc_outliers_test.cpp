// find_bandwidth_outliers on small matrices worked by hand (mlc_outliers.hpp): an entry is an
// outlier only when the rest of its row and the rest of its column both contradict it.
#include "numatwin/validate/calibrate/mlc_outliers.hpp"

#include <gtest/gtest.h>

namespace numatwin::validate {
namespace {

// Four nodes, all with CPUs; locals 200 GB/s, remote entries as given; every remote entry alike.
MlcResults four_nodes(const std::vector<std::vector<double>>& remote) {
  MlcResults mlc;
  mlc.file = "m.txt";
  mlc.bandwidth_nodes = {0, 1, 2, 3};
  mlc.bandwidth_cpu_nodes = {0, 1, 2, 3};
  mlc.bandwidth_matrix_gbps = remote;
  for (std::size_t i = 0; i < 4; ++i) mlc.bandwidth_matrix_gbps[i][i] = 200.0;
  return mlc;
}

bool all_alike(std::size_t, std::size_t, std::size_t, std::size_t) { return true; }

TEST(MlcOutliersTest, AColumnLowThroughoutIsTheMachineNotAnOutlier) {
  // Column 3 reads at 50, the rest at 100. (0,3): row rest {100, 100} median 100, column rest
  // {50, 50} median 50: 50 x 1.25 = 62.5 is below 100 but not below 50: not an outlier.
  // (0,1) = 100: row rest {100, 50} median 75, column rest {100, 100}: 100 > 1.25 x 75 = 93.75 but
  // not > 125: not an outlier. The same for every entry by symmetry.
  const MlcResults mlc = four_nodes({{0, 100, 100, 50}, {100, 0, 100, 50}, {100, 100, 0, 50}, {100, 100, 100, 0}});
  EXPECT_TRUE(find_bandwidth_outliers(mlc, all_alike).empty());
}

TEST(MlcOutliersTest, AnEntryAboveBothItsRowAndColumnIsNamed) {
  // (1,2) = 160, the rest 100: row rest {100, 100}, column rest {100, 100}; 160 > 1.25 x 100.
  // (1,0): row rest {160, 100} median 130, column rest {100, 100}: 100 is not 1.25x off either. Only (1,2).
  const MlcResults mlc = four_nodes({{0, 100, 100, 100}, {100, 0, 160, 100}, {100, 100, 0, 100}, {100, 100, 100, 0}});
  const std::vector<BandwidthOutlier> found = find_bandwidth_outliers(mlc, all_alike);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cpu_node, 1);
  EXPECT_EQ(found[0].memory_node, 2);
  EXPECT_DOUBLE_EQ(found[0].implied_gbps, 100.0);
  EXPECT_EQ(describe_outlier(mlc, found[0]),
            "m.txt: --bandwidth_matrix [node 1 -> memory of node 2]: measured 160.0 GB/s, but the rest of its row (median "
            "100.0 GB/s) and of its column (median 100.0 GB/s) imply about 100.0 GB/s (+60 %): an outlier, left out of the fit");
}

TEST(MlcOutliersTest, EntriesNotAlikeAreNotCompared) {
  // The same matrix with nothing alike: no entry has anything to compare with.
  const MlcResults mlc = four_nodes({{0, 100, 100, 100}, {100, 0, 160, 100}, {100, 100, 0, 100}, {100, 100, 100, 0}});
  EXPECT_TRUE(find_bandwidth_outliers(mlc, [](std::size_t, std::size_t, std::size_t, std::size_t) { return false; }).empty());
}

}  // namespace
}  // namespace numatwin::validate
