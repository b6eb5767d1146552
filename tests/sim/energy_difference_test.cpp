// Which term of the energy estimate decides a ranking by energy (issue 39 item 6), worked by hand.
#include <gtest/gtest.h>

#include <string>

#include "numatwin/sim/engine/energy_estimate.hpp"

namespace numatwin::sim {
namespace {

TEST(EnergyDifferenceTest, TheLargestTermDifferenceDecides) {
  // Packed: DRAM 10 J, remote 0, links 0, background 3 J over a long run. Spread: the same DRAM
  // bytes (10 J), remote 0.5 J, links 1 J, background 2 J over a shorter run.
  // spread - packed: DRAM 0, remote +0.5, links +1, background -1 -> total +0.5 J; the largest
  // magnitude is a tie of links (+1) and background (-1): the first in the order listed wins.
  EnergyEstimate packed{10.0, 0.0, 0.0, 3.0, true};
  EnergyEstimate spread{10.0, 0.5, 1.0, 2.0, true};
  EnergyDifference d = energy_difference(packed, spread);
  EXPECT_DOUBLE_EQ(d.dram_j, 0.0);
  EXPECT_DOUBLE_EQ(d.remote_j, 0.5);
  EXPECT_DOUBLE_EQ(d.link_j, 1.0);
  EXPECT_DOUBLE_EQ(d.background_j, -1.0);
  EXPECT_DOUBLE_EQ(d.total_j, 0.5);
  EXPECT_EQ(std::string(d.deciding_term), "links");
  // Background 1.25 J instead: -1.75 J of background outweighs the links' +1 J; total -0.25 J.
  spread.background_j = 1.25;
  d = energy_difference(packed, spread);
  EXPECT_DOUBLE_EQ(d.total_j, -0.25);
  EXPECT_EQ(std::string(d.deciding_term), "DRAM background");
  // Equal runs: no term decides.
  EXPECT_EQ(std::string(energy_difference(packed, packed).deciding_term), "none");
}

}  // namespace
}  // namespace numatwin::sim
