// Reading mlc v3.11b output (tab-separated, a trailing tab on each matrix line) and matrices with
// fewer rows than columns: mlc prints a column for every NUMA node and a row only for nodes with
// CPUs, so a CXL or HBM-flat machine's matrices are not square. Inputs: tests/data/mlc (the
// Granite Rapids file and its CPU-less copy; PROVENANCE.md says how it was edited).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibrate/mlc_import.hpp"

namespace numatwin::validate {
namespace {

std::filesystem::path data(const std::string& name) { return std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/mlc" / name; }

std::string text_of(const std::string& name) {
  std::ifstream in(data(name));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string error_of(const std::string& text) {
  try {
    parse_mlc_output(text, "mlc.txt");
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "mlc.txt");
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

TEST(MlcImportNonSquareTest, GraniteRapidsFileReadsEverySection) {
  const MlcResults r = load_mlc_output(data("xeon-6980p-2s-snc-off-mlc-v3.11b.txt"));
  EXPECT_EQ(r.version, "v3.11b");
  EXPECT_EQ(r.latency_nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.latency_cpu_nodes, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[0][1], 449.2);
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[1][0], 410.0);
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[0][1], 247.7931);  // 247793.1 MB/s
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[1][1], 552.3855);
  EXPECT_DOUBLE_EQ(r.peak_injection_gbps.at("ALL Reads"), 1108.235);
  ASSERT_EQ(r.loaded_latency.size(), 19u);
  EXPECT_DOUBLE_EQ(r.loaded_latency.back().latency_ns, 138.79);
  EXPECT_DOUBLE_EQ(r.loaded_latency.back().bandwidth_gbps, 18.0024);
}

TEST(MlcImportNonSquareTest, CpuLessNodesAreColumnsWithoutRows) {
  const MlcResults r = load_mlc_output(data("xeon-6980p-2s-cxl-edited.txt"));
  EXPECT_EQ(r.bandwidth_nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.bandwidth_cpu_nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(r.latency_nodes, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(r.latency_cpu_nodes, (std::vector<int>{0, 1}));
  ASSERT_EQ(r.bandwidth_matrix_gbps.size(), 2u);
  ASSERT_EQ(r.bandwidth_matrix_gbps[1].size(), 4u);
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[0][2], 52.0136);  // 52013.6 MB/s
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[1][3], 51.9873);
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[0][3], 600.6);
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[1][2], 565.5);
  EXPECT_EQ(r.loaded_latency.size(), 19u);  // the sections after the matrices are still read
}

TEST(MlcImportNonSquareTest, TheSpaceSeparatedLayoutOfOlderMlcWithACpuLessNodeReads) {
  // mlc v3.9a's layout of a CXL machine (two CPU nodes, node 2 CPU-less), a whitespace-only line
  // after the rows.
  const std::string text =
      "Intel(R) Memory Latency Checker - v3.9a\nMeasuring idle latencies (in ns)...\n                Numa node\n"
      "Numa node            0       1       2\n       0         117.4   184.3   561.7\n"
      "       1         186.0   117.9   391.0\n       \n";
  const MlcResults r = parse_mlc_output(text, "mlc.txt");
  EXPECT_EQ(r.latency_cpu_nodes, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[1][2], 391.0);
}

TEST(MlcImportNonSquareTest, ARowOfANodeNotInTheHeaderNamesTheLine) {
  // Line 6 is the latency row of node 1; renamed node 7, which the header (0 1) does not have.
  std::string text = text_of("xeon-6980p-2s-snc-off-mlc-v3.11b.txt");
  text.replace(text.find("       1\t 410.0"), 8, "       7");
  EXPECT_NE(error_of(text).find("mlc.txt: line 6: expected a row of the latency matrix starting with a node of its header after "
                                "node 0 (one row per node with CPUs), found \"7\""),
            std::string::npos)
      << error_of(text);
}

TEST(MlcImportNonSquareTest, ARepeatedRowNamesTheLine) {
  // Line 6, node 1's latency row, relabelled 0: rows must follow the header's order, each once.
  std::string text = text_of("xeon-6980p-2s-snc-off-mlc-v3.11b.txt");
  text.replace(text.find("       1\t 410.0"), 8, "       0");
  EXPECT_NE(error_of(text).find("line 6: expected a row of the latency matrix starting with a node of its header after node 0"),
            std::string::npos);
}

TEST(MlcImportNonSquareTest, AFileEndingInsideANonSquareMatrixIsTruncated) {
  // The CXL copy cut after line 5 (latency row of node 0; the section starts at line 2): one of
  // four rows and no blank line, so the matrix may have been cut.
  const std::string text = text_of("xeon-6980p-2s-cxl-edited.txt");
  std::size_t at = 0;
  for (int i = 0; i < 5; ++i) at = text.find('\n', at) + 1;
  const std::string what = error_of(text.substr(0, at));
  EXPECT_NE(what.find("mlc.txt: line 5: truncated: the file ends inside the latency section started at line 2 (1 of 4 rows, and "
                      "no blank line after them)"),
            std::string::npos)
      << what;
}

TEST(MlcImportNonSquareTest, AHeaderWithoutAnyRowIsAnError) {
  const std::string what = error_of("Intel(R) Memory Latency Checker - v3.11b\nMeasuring idle latencies (in ns)...\n"
                                    "Numa node\t     0\t     1\t\n\n");
  EXPECT_NE(what.find("mlc.txt: line 4: expected at least one row of the latency matrix after its header"), std::string::npos) << what;
}

TEST(MlcImportNonSquareTest, MatricesOverDifferentCpuNodesAreAnError) {
  // The CXL copy with the bandwidth matrix's row of node 1 removed: latency rows {0, 1}, bandwidth rows {0}.
  std::string text = text_of("xeon-6980p-2s-cxl-edited.txt");
  const std::size_t row = text.find("       1\t247281.1");
  text.erase(row, text.find('\n', row) + 1 - row);
  EXPECT_NE(error_of(text).find("the same nodes with CPUs (rows)"), std::string::npos);
}

}  // namespace
}  // namespace numatwin::validate
