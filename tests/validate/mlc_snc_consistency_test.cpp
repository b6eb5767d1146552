// The consistency rules on the Granite Rapids mlc output and its edited copies (tests/data/mlc,
// PROVENANCE.md says how each was edited): a genuine SNC latency matrix whose local latency is above
// a neighbour's is named, not refused; a CPU reading a remote node faster than its own memory is
// refused; a row reading another node's memory faster than its own is named.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibrate/mlc_consistency.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::validate {
namespace {

MlcResults load(const std::string& name) {
  return load_mlc_output(std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/mlc" / name);
}

TEST(MlcSncConsistencyTest, TheGraniteRapidsOutputIsConsistentWithoutWarnings) {
  // Rows: 449.2 >= 0.95 x 130.7 and 410.0 >= 0.95 x 129.4; columns the same figures; bandwidth
  // 247.8 and 247.3 <= 1.05 x 552.4; ALL Reads 1108.2 <= 1.05 x (554.8 + 552.4) = 1162.6; the lowest
  // loaded latency 138.79 >= 0.95 x 129.4 = 122.9.
  std::vector<std::string> warnings = {"not run"};
  EXPECT_NO_THROW(warnings = check_mlc_consistency(load("xeon-6980p-2s-snc-off-mlc-v3.11b.txt")));
  EXPECT_TRUE(warnings.empty());
}

TEST(MlcSncConsistencyTest, ALocalLatencyAboveANeighboursIsNamedNotRefused) {
  // Column 1: node 1's own 126.0 ns, node 0's 119.0 ns < 0.95 x 126.0 = 119.7: named. Column 3:
  // 0.95 x 125.1 = 118.8 <= 120.3 (node 2's): not named. Columns 0 and 2: every remote figure is
  // above the local one. Rows: no remote figure below 0.95 x the row's local one. One warning.
  const std::vector<std::string> warnings = check_mlc_consistency(load("snc2-2s-local-above-neighbour-edited.txt"));
  ASSERT_EQ(warnings.size(), 1u);
  const std::string& w = warnings[0];
  EXPECT_NE(w.find("snc2-2s-local-above-neighbour-edited.txt: --latency_matrix [node 1 -> memory of node 1]"), std::string::npos) << w;
  EXPECT_NE(w.find("node 1's own latency 126.0 ns is above node 0's 119.0 ns"), std::string::npos) << w;
  EXPECT_NE(w.find("sub-NUMA"), std::string::npos) << w;
}

TEST(MlcSncConsistencyTest, ACpuReachingARemoteNodeFasterThanItsOwnIsRefused) {
  // Row of node 1 swapped to "129.4 410.0": 129.4 < 0.95 x 410.0 = 389.5. The columns alone do not
  // show it (129.4 >= 0.95 x 130.7 = 124.2 in column 0; 449.2 >= 0.95 x 410.0 in column 1).
  const MlcResults mlc = load("xeon-6980p-2s-remote-faster-edited.txt");
  try {
    check_mlc_consistency(mlc);
    ADD_FAILURE() << "expected an InputError";
  } catch (const model::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("xeon-6980p-2s-remote-faster-edited.txt: --latency_matrix [node 1 -> memory of node 0]: "), std::string::npos)
        << what;
    EXPECT_NE(what.find("reaches node 0's memory in 129.4 ns, faster than its own memory (410.0 ns)"), std::string::npos) << what;
    EXPECT_NE(what.find("not fitted"), std::string::npos) << what;
  }
}

TEST(MlcSncConsistencyTest, ABandwidthRowReadingAnotherNodeFasterIsNamed) {
  // Node 0 reads its own memory at 60 GB/s and node 1's at 70 (> 1.05 x 60 = 63): named. Node 1
  // reads its own at 120, so 70 <= 1.05 x 120 passes rule 1 and row 1 (50 <= 1.05 x 120) is fine.
  MlcResults mlc;
  mlc.file = "asymmetric.txt";
  mlc.bandwidth_nodes = {0, 1};
  mlc.bandwidth_cpu_nodes = {0, 1};
  mlc.bandwidth_matrix_gbps = {{60.0, 70.0}, {50.0, 120.0}};
  const std::vector<std::string> warnings = check_mlc_consistency(mlc);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("asymmetric.txt: --bandwidth_matrix [node 0 -> memory of node 1]: node 0 reads node 1's memory at "
                             "70.0 GB/s, faster than its own (60.0 GB/s)"),
            std::string::npos)
      << warnings[0];
}

TEST(MlcSncConsistencyTest, AMatrixWithoutItsRowLabelsIsAnErrorNotACrash) {
  // Built by a program, not the reader: three rows of values, no row labels.
  MlcResults mlc;
  mlc.file = "built.txt";
  mlc.bandwidth_nodes = {0, 1, 2};
  mlc.bandwidth_matrix_gbps = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
  try {
    check_mlc_consistency(mlc);
    ADD_FAILURE() << "expected an InputError";
  } catch (const model::InputError& e) {
    EXPECT_EQ(std::string(e.what()), "built.txt: --bandwidth_matrix: expected one row label per row (0 for 3 rows) and one value per "
                                     "column (3 columns)");
  }
}

TEST(MlcSncConsistencyTest, CpuLessColumnsAreNotComparedWithLocalMemory) {
  // The CXL copy: columns 2 and 3 have no row. 52.0 GB/s is below node 0's own 554.8 and 284.9 ns
  // above its 130.7, but they are another kind of memory: no rule compares them, no warning.
  std::vector<std::string> warnings = {"not run"};
  EXPECT_NO_THROW(warnings = check_mlc_consistency(load("xeon-6980p-2s-cxl-edited.txt")));
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace numatwin::validate
