// Uneven pieces (sim/search/uneven_pieces.hpp): the binomial spread of a hashed piece worked by hand,
// only the pieces scaled (a migration's state moves keep their size), the draws reproducible
// by seed and spread as asked, and the even plan's time the simulator's own.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/search/uneven_pieces.hpp"

namespace numatwin::sim {
namespace {

model::Topology shipped(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

WorkloadSpec shuffle(WorkloadKind kind, int threads, double bytes) {
  WorkloadSpec spec;
  spec.kind = kind;
  spec.algorithm = ShuffleAlgorithm::kRing;
  spec.sync = SyncMode::kLoose;
  spec.threads = threads;
  spec.total_bytes = bytes;
  return spec;
}

// s = sqrt((1 - 1/n) / m): 12.8 GB of 8-byte elements over 193 threads is m = 1.6e9 / 193^2 =
// 42,954.17 tuples per piece, s = sqrt(0.994819 / 42954.17) = 0.0048125; 2 threads and 1e4
// tuples: sqrt(0.5 / 1e4) = 0.0070711; one thread has one piece, the whole input: no spread.
TEST(UnevenPiecesTest, TheSpreadOfAHashedPieceWorkedByHand) {
  EXPECT_NEAR(piece_relative_sd(1.6e9 / (193.0 * 193.0), 193), 0.0048125, 1e-7);
  EXPECT_NEAR(piece_relative_sd(1e4, 2), 0.0070711, 1e-7);
  EXPECT_EQ(piece_relative_sd(1e4, 1), 0.0);
  EXPECT_THROW((void)piece_relative_sd(0.0, 4), std::invalid_argument);
  EXPECT_THROW((void)piece_relative_sd(10.0, 0), std::invalid_argument);
}

// A migration-copy ring: its pieces change, its state copies and re-bindings do not; the same
// seed gives the same plan; over its 24 x 24 pieces the relative changes have mean about 0 and
// standard deviation about s (1 %): within 4 standard errors, and 10 % of s.
TEST(UnevenPiecesTest, OnlyThePiecesChangeReproduciblyAndAsSpreadAsAsked) {
  const model::Topology t = shipped("xeon-e7-4850v4-4s");
  WorkloadSpec spec = shuffle(WorkloadKind::kMigrationAndCopy, 24, 1e9);
  spec.state_bytes = 1e6;
  const Plan even = build_plan(t, spec);
  const Plan a = with_uneven_pieces(even, 0.01, 7);
  const Plan b = with_uneven_pieces(even, 0.01, 7);
  const Plan c = with_uneven_pieces(even, 0.01, 8);
  const Plan none = with_uneven_pieces(even, 0.0, 7);
  double sum = 0.0;
  double square = 0.0;
  int pieces = 0;
  int states = 0;
  bool c_differs = false;
  ASSERT_EQ(a.threads.size(), even.threads.size());
  for (std::size_t th = 0; th < even.threads.size(); ++th) {
    ASSERT_EQ(a.threads[th].ops.size(), even.threads[th].ops.size());
    for (std::size_t k = 0; k < even.threads[th].ops.size(); ++k) {
      const Op& before = even.threads[th].ops[k];
      const Op& after = a.threads[th].ops[k];
      ASSERT_EQ(before.index(), after.index());
      const auto* x = std::get_if<Transfer>(&before);
      if (x == nullptr) continue;
      const double y = std::get<Transfer>(after).bytes;
      EXPECT_EQ(std::get<Transfer>(b.threads[th].ops[k]).bytes, y);
      EXPECT_EQ(std::get<Transfer>(none.threads[th].ops[k]).bytes, x->bytes);
      if (x->phase == Phase::kReadInput) {
        const double r = y / x->bytes - 1.0;
        sum += r;
        square += r * r;
        ++pieces;
        c_differs = c_differs || std::get<Transfer>(c.threads[th].ops[k]).bytes != y;
      } else {
        EXPECT_EQ(y, x->bytes) << "a state move changed";
        ++states;
      }
    }
  }
  ASSERT_EQ(pieces, 24 * 24);
  EXPECT_GT(states, 0);
  EXPECT_TRUE(c_differs);
  const double mean = sum / pieces;
  const double sd = std::sqrt(square / pieces - mean * mean);
  EXPECT_LT(std::abs(mean), 4.0 * 0.01 / std::sqrt(static_cast<double>(pieces)));
  EXPECT_NEAR(sd, 0.01, 0.001);
}

// Every draw gives a time of its own, and none is the even plan's by accident of seeding.
// (How far they lie from the even time is not a property to test: the loose ring here, 12.8 GB
// over 64 threads on the four sockets, s = 0.16 %, moved by +6.7 to +15.9 % when this test was
// written; docs/simulation-speed.md.)
TEST(UnevenPiecesTest, DrawsNextToTheEvenPlan) {
  const model::Topology t = shipped("xeon-e7-4850v4-4s");
  const WorkloadSpec spec = shuffle(WorkloadKind::kShuffle, 64, 12.8e9);
  const UnevenPieces u = uneven_pieces(t, spec, 3);
  const double even = Simulation(t).run(build_plan(t, spec), SimulationOptions{.record_timeline = false, .time_only = true}).time_s;
  EXPECT_NEAR(u.tuples_per_piece, 1.6e9 / 4096.0, 1e-6);
  EXPECT_NEAR(u.relative_sd, std::sqrt((63.0 / 64.0) / (1.6e9 / 4096.0)), 1e-12);
  ASSERT_EQ(u.time_s.size(), 3U);
  for (double s : u.time_s) {
    EXPECT_GT(s, 0.0);
    EXPECT_NE(s, even);
  }
  EXPECT_NE(u.time_s[0], u.time_s[1]);
  EXPECT_LE(u.min_s(), u.mean_s());
  EXPECT_LE(u.mean_s(), u.max_s());
  WorkloadSpec join;
  join.kind = WorkloadKind::kHashJoin;
  EXPECT_THROW((void)uneven_pieces(t, join, 3), std::invalid_argument);
  EXPECT_THROW((void)uneven_pieces(t, spec, 0), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
