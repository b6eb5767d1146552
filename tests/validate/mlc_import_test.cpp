#include "numatwin/validate/calibrate/mlc_import.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

const std::filesystem::path kMlcFile =
    std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/mlc/skx-2x8180-mlc-v3.5.txt";

std::string shipped_text() {
  std::ifstream in(kMlcFile);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The first `count` lines of the shipped file.
std::string first_lines(int count) {
  const std::string text = shipped_text();
  std::size_t at = 0;
  for (int i = 0; i < count && at != std::string::npos; ++i) at = text.find('\n', at + 1);
  return text.substr(0, at == std::string::npos ? text.size() : at + 1);
}

std::string expect_input_error(const std::string& text) {
  try {
    parse_mlc_output(text, "mlc.txt");
  } catch (const model::InputError& e) {
    EXPECT_EQ(e.file(), "mlc.txt");
    return e.what();
  }
  ADD_FAILURE() << "expected an InputError";
  return "";
}

TEST(MlcImportTest, ShippedSkylakeFileHasEverySection) {
  const MlcResults r = load_mlc_output(kMlcFile);
  EXPECT_EQ(r.version, "v3.5");
  ASSERT_EQ(r.bandwidth_matrix_gbps.size(), 2u);
  EXPECT_EQ(r.bandwidth_nodes, (std::vector<int>{0, 1}));
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[0][0], 107.9477);
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[0][1], 50.9515);
  EXPECT_DOUBLE_EQ(r.bandwidth_matrix_gbps[1][0], 50.8346);
  ASSERT_EQ(r.latency_matrix_ns.size(), 2u);
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[0][1], 131.1);
  EXPECT_DOUBLE_EQ(r.latency_matrix_ns[1][1], 81.3);
  ASSERT_TRUE(r.idle_latency_ns.has_value());
  EXPECT_DOUBLE_EQ(*r.idle_latency_ns, 80.8);
  EXPECT_DOUBLE_EQ(r.peak_injection_gbps.at("ALL Reads"), 215.7339);
  EXPECT_DOUBLE_EQ(r.peak_injection_gbps.at("3:1 Reads-Writes"), 182.1419);
  EXPECT_EQ(r.peak_injection_gbps.size(), 5u);
  EXPECT_DOUBLE_EQ(r.max_bandwidth_gbps.at("Stream-triad like"), 180.05787);
  ASSERT_EQ(r.loaded_latency.size(), 19u);
  EXPECT_EQ(r.loaded_latency.front().inject_delay, 0);
  EXPECT_DOUBLE_EQ(r.loaded_latency.front().latency_ns, 282.66);
  EXPECT_DOUBLE_EQ(r.loaded_latency.front().bandwidth_gbps, 215.7128);
  EXPECT_EQ(r.loaded_latency.back().inject_delay, 20000);
}

TEST(MlcImportTest, TruncatedMatrixNamesTheFileAndLine) {
  // Lines 1-12 end after the row of node 0 of the bandwidth matrix (its section starts at line 6).
  const std::string message = expect_input_error(first_lines(12));
  EXPECT_NE(message.find("mlc.txt: line 12: truncated"), std::string::npos) << message;
  EXPECT_NE(message.find("bandwidth section started at line 6"), std::string::npos) << message;
}

TEST(MlcImportTest, TruncatedLoadedLatencyTableIsAnError) {
  const std::string text = "Intel(R) Memory Latency Checker - v3.5\nMeasuring Loaded Latencies for the system\n"
                           "Inject  Latency Bandwidth\nDelay   (ns)    MB/sec\n";
  const std::string message = expect_input_error(text);
  EXPECT_NE(message.find("truncated: the file ends inside the loaded latency section started at line 2"),
            std::string::npos)
      << message;
}

TEST(MlcImportTest, MalformedValuesNameTheLine) {
  std::string text = shipped_text();
  text.replace(text.find("50951.5"), 7, "50951.5x");
  EXPECT_NE(expect_input_error(text).find("line 12: expected a positive number in the bandwidth matrix, found \"50951.5x\""),
            std::string::npos);
  std::string short_row = shipped_text();
  short_row.erase(short_row.find("   131.1\n"), 8);  // the row of node 0 loses its last value
  EXPECT_NE(expect_input_error(short_row).find("expected 2 values in the latency matrix row of node 0, found 1"),
            std::string::npos);
  std::string bad_loaded = shipped_text();
  bad_loaded.replace(bad_loaded.find(" 00200  121.92"), 14, " 00200  fast");
  EXPECT_NE(expect_input_error(bad_loaded).find("in the loaded latency table"), std::string::npos);
}

// Found by reading the reader while fuzz/mlc_output_fuzzer was written (the fuzzer did not reach
// it in 4 min): the idle latency's figure matched [0-9.]+ and went to std::stod unchecked, so "."
// threw std::invalid_argument and a figure beyond a double's range std::out_of_range, not an
// InputError; and 0 ns, refused in every matrix, was taken.
TEST(MlcImportTest, AnIdleLatencyThatIsNoPositiveNumberNamesTheLine) {
  const std::string too_large = "1" + std::string(400, '0');
  for (const std::string& ns : {std::string("."), too_large, std::string("0.0")}) {
    const std::string message = expect_input_error("Intel(R) Memory Latency Checker - v3.5\nEach iteration took 202.0 core clocks ( " + ns + " ns)\n");
    EXPECT_NE(message.find("mlc.txt: line 2: expected \"Each iteration took <clocks> core clocks ( <ns> ns)\" with a latency > 0 ns"),
              std::string::npos)
        << message;
  }
}

TEST(MlcImportTest, TextWithoutMlcSectionsIsRejected) {
  EXPECT_NE(expect_input_error("hello\nworld\n").find("expected Intel mlc output"), std::string::npos);
  EXPECT_THROW(load_mlc_output("/nonexistent/mlc.txt"), model::InputError);
}

TEST(MlcImportTest, WindowsLineEndingsAreAccepted) {
  std::string text = shipped_text();
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(parse_mlc_output(crlf, "x").loaded_latency.size(), 19u);
}

}  // namespace
}  // namespace numatwin::validate
