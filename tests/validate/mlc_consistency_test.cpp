// Contradictory mlc figures are named before any fit. Each test edits one figure of a copy of
// the shipped mlc output (a real 2-socket Skylake-SP) so that it contradicts another, and checks
// that the error names the file, the section and entry, and both figures.
#include "numatwin/validate/calibrate/mlc_consistency.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/calibrate/calibration.hpp"

namespace numatwin::validate {
namespace {

std::string shipped_text() {
  std::ifstream in(std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/mlc/skx-2x8180-mlc-v3.5.txt");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The shipped text with the first occurrence of `from` replaced by `to` (which must exist).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = shipped_text();
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string error_of(const std::string& text) {
  const MlcResults mlc = parse_mlc_output(text, "edited-mlc.txt");
  try {
    check_mlc_consistency(mlc);
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "edited-mlc.txt");
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

TEST(MlcConsistencyTest, TheShippedOutputIsConsistent) {
  std::vector<std::string> warnings;
  EXPECT_NO_THROW(warnings = check_mlc_consistency(parse_mlc_output(shipped_text(), "shipped.txt")));
  EXPECT_TRUE(warnings.empty());
}

TEST(MlcConsistencyTest, ANodeReadingItsOwnMemorySlowerThanARemoteReaderIsNamed) {
  // Node 1's own figure 108183.4 MB/s edited to 18000.0: node 0 reads node 1 at 50.8 GB/s.
  const std::string what = error_of(edited("108183.4", "18000.0"));
  EXPECT_NE(what.find("--bandwidth_matrix [node 0 -> memory of node 1]"), std::string::npos) << what;
  EXPECT_NE(what.find("51.0 GB/s"), std::string::npos) << what;  // 50951.5 MB/s
  EXPECT_NE(what.find("18.0 GB/s"), std::string::npos) << what;
}

TEST(MlcConsistencyTest, ARemoteReadJustWithinTheNoiseMarginPasses) {
  // Node 0's own figure 107947.7 lowered to 50000.0: node 1 reads node 0 at 50834.6, 1.7 % more,
  // within the 5 % margin; the peak injection (215.7 GB/s) then exceeds 50.0 + 108.2 = 158.2.
  const std::string what = error_of(edited("107947.7", "50000.0"));
  EXPECT_EQ(what.rfind("edited-mlc.txt: --peak_injection_bandwidth [ALL Reads]: ", 0), 0u) << what;
}

TEST(MlcConsistencyTest, APeakInjectionAboveTheSumOfTheLocalFiguresIsNamed) {
  // ALL Reads 215733.9 edited to 240000.0 MB/s: the local figures add up to
  // 107.9477 + 108.1834 = 216.1 GB/s; 240.0 > 1.05 x 216.1 = 226.9.
  const std::string what = error_of(edited("215733.9", "240000.0"));
  EXPECT_NE(what.find("--peak_injection_bandwidth [ALL Reads]"), std::string::npos) << what;
  EXPECT_NE(what.find("240.0 GB/s"), std::string::npos) << what;
  EXPECT_NE(what.find("216.1 GB/s"), std::string::npos) << what;
}

TEST(MlcConsistencyTest, ARemoteLatencyBelowTheLocalOneIsNamed) {
  // The latency matrix row of node 1 "131.1     81.3" edited to "70.0     81.3": node 1's CPU would
  // reach node 0's memory in 70 ns, below its own 81.3 ns (70.0 < 0.95 x 81.3 = 77.2): refused
  // (rule 3, the row), naming the CPU's own figure.
  const std::string what = error_of(edited("    1     131.1     81.3", "    1     70.0     81.3"));
  EXPECT_NE(what.find("--latency_matrix [node 1 -> memory of node 0]"), std::string::npos) << what;
  EXPECT_NE(what.find("70.0 ns"), std::string::npos) << what;
  EXPECT_NE(what.find("faster than its own memory (81.3 ns)"), std::string::npos) << what;
}

TEST(MlcConsistencyTest, ALoadedLatencyBelowTheIdleOneIsNamedWithItsLine) {
  // The last loaded-latency point "81.40" (inject delay 20000) edited to "60.00": below the idle
  // 80.8 ns of --idle_latency (which is below the matrix's lowest local 81.3 ns).
  const std::string what = error_of(edited(" 20000   81.40", " 20000   60.00"));
  EXPECT_NE(what.find("--loaded_latency line"), std::string::npos) << what;
  EXPECT_NE(what.find("inject delay 20000"), std::string::npos) << what;
  EXPECT_NE(what.find("60.0 ns"), std::string::npos) << what;
  EXPECT_NE(what.find("80.8 ns"), std::string::npos) << what;
}

TEST(MlcConsistencyTest, CalibrationDataFromAContradictoryOutputIsAnInputErrorBeforeAnyFit) {
  model::GeneratorParams params;
  params.family = model::TopologyFamily::kFullyConnected;
  params.nodes = 2;
  params.cores_per_node = 28;
  params.threads_per_core = 2;
  const model::Topology prior = model::generate_topology(params);
  const MlcResults mlc = parse_mlc_output(edited("108183.4", "18000.0"), "edited-mlc.txt");
  EXPECT_THROW(calibration_data_from_mlc(mlc, prior), model::InputError);
}

}  // namespace
}  // namespace numatwin::validate
