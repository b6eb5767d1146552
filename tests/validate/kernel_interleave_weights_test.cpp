// The kernel's weighted-interleave weights on a stand-in sysfs directory (the real one is
// system-wide): the asked weights are written and the old ones put back, auto mode is given back
// to the kernel, equal weights are left alone, and a missing directory or node file is refused
// with nothing changed. Then the kernel policy itself on this machine's nodes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "numatwin/validate/host/kernel_interleave_weights.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

namespace fs = std::filesystem;

std::string read_all(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

class KernelInterleaveWeightsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("numatwin-wi-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& value) { std::ofstream(dir_ / name) << value << "\n"; }
  [[nodiscard]] std::string read(const std::string& name) const { return read_all(dir_ / name); }
  fs::path dir_;
};

// Linux 6.9-6.15: node files only. 1:3 over nodes 0 and 2, node 1 untouched; back to 1, 1.
TEST_F(KernelInterleaveWeightsTest, SetsTheWeightsForItsLifetimeAndPutsTheOldOnesBack) {
  write("node0", "1");
  write("node1", "7");
  write("node2", "1");
  {
    KernelInterleaveWeights w({{0, 1}, {2, 3}}, dir_.string());
    EXPECT_EQ(read("node0"), "1");  // already 1: not written
    EXPECT_EQ(read("node2"), "3");
    EXPECT_EQ(read("node1"), "7");
    EXPECT_EQ(w.previous_weights(), (std::map<int, int>{{2, 1}}));
    EXPECT_FALSE(w.previous_auto().has_value());
    EXPECT_EQ(w.description(), "sysfs node2=3 (were 1); not restored yet");
    EXPECT_EQ(w.restore(), "");
    EXPECT_EQ(w.description(), "sysfs node2=3 (were 1); restored after the run");
    EXPECT_EQ(read("node2"), "1");
    write("node2", "9");  // restore() works once: the destructor leaves this alone
  }
  EXPECT_EQ(read("node0"), "1");
  EXPECT_EQ(read("node1"), "7");
  EXPECT_EQ(read("node2"), "9");
}

// Linux 6.16 and later: writing a node turned the kernel's auto mode off; "true" gives it back.
// The 6.18 kernels that name the file __auto_type are read the same way.
TEST_F(KernelInterleaveWeightsTest, GivesAutoModeBackToTheKernel) {
  for (const char* name : {"auto", "__auto_type"}) {
    SCOPED_TRACE(name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write("node0", "5");
    write("node1", "2");
    write(name, "true");
    {
      KernelInterleaveWeights w({{0, 1}, {1, 3}}, dir_.string());
      write(name, "false");  // what the kernel does when a node is written
      EXPECT_EQ(read("node0"), "1");
      EXPECT_EQ(read("node1"), "3");
      EXPECT_EQ(w.previous_auto(), std::optional<std::string>("true"));
    }
    EXPECT_EQ(read("node0"), "5");
    EXPECT_EQ(read("node1"), "2");
    EXPECT_EQ(read(name), "true");
  }
}

// A kernel that cannot go back to auto mode (ENODEV without bandwidth figures; here the stand-in
// `auto` cannot be written at all): the weights are back, and the report says the mode is not.
TEST_F(KernelInterleaveWeightsTest, SaysWhenAutoModeCannotBeGivenBack) {
  write("node0", "2");
  write("auto", "true");
  KernelInterleaveWeights w({{0, 5}}, dir_.string());
  fs::remove(dir_ / "auto");
  fs::create_directory(dir_ / "auto");  // reads as missing, cannot be opened for writing
  const std::string problem = w.restore();
  EXPECT_NE(problem.find("left \"false\" (manual mode)"), std::string::npos) << problem;
  EXPECT_NE(w.description().find("after the run: "), std::string::npos) << w.description();
  EXPECT_EQ(read("node0"), "2");
}

// Manual mode before: it stays manual (auto is not written).
TEST_F(KernelInterleaveWeightsTest, LeavesManualModeManual) {
  write("node0", "4");
  write("auto", "false");
  { KernelInterleaveWeights w({{0, 2}}, dir_.string()); }
  EXPECT_EQ(read("node0"), "4");
  EXPECT_EQ(read("auto"), "false");
}

TEST_F(KernelInterleaveWeightsTest, AMissingDirectoryIsAnErrorNamingTheKernel) {
  try {
    KernelInterleaveWeights w({{0, 1}}, (dir_ / "absent").string());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("absent is missing"), std::string::npos) << what;
    EXPECT_NE(what.find("Linux 6.9"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing changed"), std::string::npos) << what;
  }
}

// node3 has no file (not a memory node): node0's weight, already written, is put back.
TEST_F(KernelInterleaveWeightsTest, AMissingNodeFileIsRefusedWithNothingChanged) {
  write("node0", "1");
  try {
    KernelInterleaveWeights w({{0, 2}, {3, 1}}, dir_.string());
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("node3 is missing"), std::string::npos) << what;
    EXPECT_NE(what.find("not changed"), std::string::npos) << what;
  }
  EXPECT_EQ(read("node0"), "1");
}

TEST_F(KernelInterleaveWeightsTest, AWeightOutsideTheKernelsRangeIsRefused) {
  write("node0", "1");
  EXPECT_THROW(KernelInterleaveWeights({{0, 256}}, dir_.string()), std::invalid_argument);
  EXPECT_THROW(KernelInterleaveWeights({{0, 0}}, dir_.string()), std::invalid_argument);
  EXPECT_EQ(read("node0"), "1");
}

// The kernel's policy on this machine's first memory node (no sysfs weight is changed: one node
// takes every page whatever its weight). A kernel with weighted interleave (the sysfs directory
// exists) must put every page there; one without must refuse the mbind with the reason.
TEST(KernelWeightedInterleaveTest, TheKernelPolicyPutsThePagesOnItsNodeOrSaysWhyNot) {
  const std::vector<int>& nodes = test_support::this_machine().host.memory_os_nodes;
  ASSERT_FALSE(nodes.empty());
  const std::size_t bytes = 64 * page_bytes();
  if (fs::is_directory(kWeightedInterleaveSysfs)) {
    NodeMemory memory(bytes, MemoryPolicyKind::kWeightedInterleave, {nodes.front()}, false);
    memory.touch();
    const PagePlacement placement = page_placement(memory.data(), memory.bytes());
    EXPECT_EQ(placement.pages, 64U);
    EXPECT_DOUBLE_EQ(placement.fraction_on(nodes.front()), 1.0) << placement.text();
  } else {
    try {
      NodeMemory memory(bytes, MemoryPolicyKind::kWeightedInterleave, {nodes.front()}, false);
      FAIL() << "a kernel without " << kWeightedInterleaveSysfs << " accepted MPOL_WEIGHTED_INTERLEAVE";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("MPOL_WEIGHTED_INTERLEAVE"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace numatwin::validate
