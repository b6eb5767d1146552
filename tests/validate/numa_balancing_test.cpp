// The NUMA-balancing switch on a stand-in file (the real /proc/sys/kernel/numa_balancing is
// system-wide): it writes the asked value, puts the previous one back, leaves an equal setting
// alone, and refuses a missing file before changing anything. The counters from /proc/vmstat.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "numatwin/validate/host/numa_balancing.hpp"

namespace numatwin::validate {
namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

class NumaBalancingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("numatwin-balancing-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
  }
  void TearDown() override { std::filesystem::remove(path_); }
  void write(const std::string& value) { std::ofstream(path_) << value << "\n"; }
  std::filesystem::path path_;
};

TEST_F(NumaBalancingTest, SwitchesOnForItsLifetimeAndRestores) {
  write("0");
  {
    NumaBalancingSwitch on(true, path_.string());
    EXPECT_EQ(read_all(path_), "1");
    EXPECT_EQ(on.previous(), "0");
    EXPECT_TRUE(on.changed());
  }
  EXPECT_EQ(read_all(path_), "0");
}

// "2" (memory tiering) is already on: asking for on changes nothing; asking for off writes 0
// and puts the 2 back.
TEST_F(NumaBalancingTest, LeavesAnEqualSettingAloneAndRestoresTiering) {
  write("2");
  {
    NumaBalancingSwitch on(true, path_.string());
    EXPECT_FALSE(on.changed());
    EXPECT_EQ(read_all(path_), "2");
  }
  {
    NumaBalancingSwitch off(false, path_.string());
    EXPECT_EQ(read_all(path_), "0");
  }
  EXPECT_EQ(read_all(path_), "2");
}

TEST_F(NumaBalancingTest, AMissingSwitchIsAnErrorNamingTheFile) {
  try {
    NumaBalancingSwitch on(true, path_.string());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(path_.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not changed"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(path_));
}

// Counters only grow; a smaller later value (a reset) counts from zero.
TEST(NumaBalancingCountersTest, DifferencesFieldByField) {
  const NumaBalancingCounters before{100, 50, 20, 10};
  const NumaBalancingCounters after{160, 80, 25, 4};
  const NumaBalancingCounters d = counters_between(before, after);
  EXPECT_EQ(d.pte_updates, 60U);
  EXPECT_EQ(d.hint_faults, 30U);
  EXPECT_EQ(d.hint_faults_local, 5U);
  EXPECT_EQ(d.pages_migrated, 4U);
}

// This machine's kernel (Debian's, CONFIG_NUMA_BALANCING=y) has the counters; where it does
// not, the reason must say so instead of zeros.
TEST(NumaBalancingCountersTest, ReadsThisKernelsCountersOrSaysWhyNot) {
  std::string why;
  const std::optional<NumaBalancingCounters> c = read_numa_balancing_counters(why);
  if (!c) {
    EXPECT_NE(why.find("/proc/vmstat"), std::string::npos) << why;
  } else {
    EXPECT_GE(c->hint_faults, c->hint_faults_local);
  }
}

}  // namespace
}  // namespace numatwin::validate
