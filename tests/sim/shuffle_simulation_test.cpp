// Properties of simulated shuffles that follow from the model, checked on the timeline and the
// per-step statistics (not numbers copied from the study):
//  - naive: during step k only the memory controller of the producer's node is busy;
//  - ring: every step keeps every controller and every link busy;
//  - every byte is accounted for, no resource is ever over capacity, runs are deterministic;
//  - the ring's advantage over naive shrinks on machines that are not fully connected.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

WorkloadSpec shuffle(ShuffleAlgorithm algorithm, SyncMode sync, int threads, double bytes = 3.2e9) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kShuffle;
  s.algorithm = algorithm;
  s.sync = sync;
  s.threads = threads;
  s.total_bytes = bytes;
  return s;
}

SimulationResult run(const model::Topology& t, const WorkloadSpec& spec) {
  Simulation simulation(t);
  return simulation.run(build_shuffle_plan(t, spec));
}

int resource_index(const SimulationResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.resources.size(); ++i) {
    if (r.resources[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no resource " << name;
  return 0;
}

TEST(ShuffleSimulationTest, NaiveHammersOneMemoryControllerPerStep) {
  // 32 dense threads on nehalem-ex-4s: producers in socket order, so steps 8i..8i+7 read s_i.
  const model::Topology t = machine("nehalem-ex-4s");
  const SimulationResult r = run(t, shuffle(ShuffleAlgorithm::kNaive, SyncMode::kTight, 32));
  ASSERT_EQ(r.steps.size(), 32u);
  for (const StepStats& step : r.steps) {
    const int hot = step.step / 8;
    for (int node = 0; node < 4; ++node) {
      const float u = step.mean_utilisation[resource_index(r, "mc:s" + std::to_string(node))];
      if (node == hot) {
        EXPECT_GT(u, 0.99F) << "step " << step.step;
      } else {
        EXPECT_EQ(u, 0.0F) << "step " << step.step << " node " << node;
      }
    }
  }
}

TEST(ShuffleSimulationTest, RingKeepsEveryControllerAndLinkBusyEveryStep) {
  const model::Topology t = machine("nehalem-ex-4s");
  const SimulationResult r = run(t, shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 32));
  for (const StepStats& step : r.steps) {
    for (std::size_t i = 0; i < r.resources.size(); ++i) {
      EXPECT_GT(step.mean_utilisation[i], 0.2F) << r.resources[i].name << " idle in step " << step.step;
    }
  }
}

TEST(ShuffleSimulationTest, RingReadsEverySocketEvenlyEachStep) {
  // On a fully connected machine each step reads N/S pieces from every socket: per-step traffic
  // out of every controller is equal, so their utilisations match.
  const model::Topology t = machine("nehalem-ex-4s");
  const SimulationResult r = run(t, shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 32));
  for (const StepStats& step : r.steps) {
    const float u0 = step.mean_utilisation[resource_index(r, "mc:s0")];
    for (int node = 1; node < 4; ++node) {
      EXPECT_NEAR(step.mean_utilisation[resource_index(r, "mc:s" + std::to_string(node))], u0, 1e-4);
    }
  }
}

TEST(ShuffleSimulationTest, ConservesBytesAndNeverExceedsCapacity) {
  const model::Topology t = machine("nehalem-ex-4s-4link");
  for (ShuffleAlgorithm a : {ShuffleAlgorithm::kNaive, ShuffleAlgorithm::kRing, ShuffleAlgorithm::kCoordinatedRandom}) {
    for (SyncMode s : {SyncMode::kTight, SyncMode::kLoose}) {
      const WorkloadSpec spec = shuffle(a, s, 24);
      const SimulationResult r = run(t, spec);
      EXPECT_NEAR(r.bytes, spec.total_bytes, 1e-6 * spec.total_bytes);
      EXPECT_NEAR(r.local_bytes + r.remote_bytes, spec.total_bytes, 1e-6 * spec.total_bytes);
      double step_bytes = 0.0;
      for (const StepStats& step : r.steps) step_bytes += step.bytes;
      EXPECT_NEAR(step_bytes, spec.total_bytes, 1e-6 * spec.total_bytes);
      for (const TimelineSegment& seg : r.timeline) {
        EXPECT_LT(seg.begin_s, seg.end_s);
        for (float u : seg.utilisation) EXPECT_LE(u, 1.0F + 1e-6F);
      }
      // 24 dense threads: 8 on each of s0, s1, s2 and none on s3, so 8/24 of every thread's
      // pieces are local: LAR = 1/3 (the same for every order).
      EXPECT_NEAR(r.local_access_ratio(), 1.0 / 3.0, 1e-9);
    }
  }
}

TEST(ShuffleSimulationTest, RunsAreDeterministic) {
  const model::Topology t = machine("opteron-8220-8s-twisted-ladder");
  const WorkloadSpec spec = shuffle(ShuffleAlgorithm::kCoordinatedRandom, SyncMode::kLoose, 16);
  const SimulationResult a = run(t, spec);
  const SimulationResult b = run(t, spec);
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.events, b.events);
  ASSERT_EQ(a.timeline.size(), b.timeline.size());
  for (std::size_t i = 0; i < a.timeline.size(); ++i) EXPECT_EQ(a.timeline[i].utilisation, b.timeline[i].utilisation);
  WorkloadSpec other = spec;
  other.seed = 2;
  EXPECT_NE(run(t, other).time_s, a.time_s) << "a different seed should give a different random order";
}

TEST(ShuffleSimulationTest, RingBeatsNaiveAndItsAdvantageShrinksOffTheFullyConnectedMachine) {
  // Same sockets, links removed: the ring's gain over naive must be largest on the fully
  // connected nehalem-ex-4s and smaller on the 4-link ring, the 8-socket machine and the ladder.
  auto gain = [](const std::string& name) {
    const model::Topology t = machine(name);
    const int threads = t.total_cores();
    const double naive = run(t, shuffle(ShuffleAlgorithm::kNaive, SyncMode::kTight, threads)).time_s;
    const double ring = run(t, shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, threads)).time_s;
    return naive / ring;
  };
  const double full = gain("nehalem-ex-4s");
  EXPECT_GT(full, 2.0);
  for (const char* name : {"nehalem-ex-4s-4link", "nehalem-ex-8s", "opteron-8220-8s-twisted-ladder"}) {
    const double g = gain(name);
    EXPECT_GT(g, 1.0) << name;
    EXPECT_LT(g, full) << name;
  }
}

TEST(ShuffleSimulationTest, NaiveIsBoundByOneControllerOnAFullyConnectedMachine) {
  // During a naive step all threads read one socket: the shuffle runs at one controller's
  // bandwidth (24.7 GB/s on nehalem-ex-4s), whatever the number of sockets.
  const model::Topology t = machine("nehalem-ex-4s");
  const WorkloadSpec spec = shuffle(ShuffleAlgorithm::kNaive, SyncMode::kTight, 32);
  const SimulationResult r = run(t, spec);
  EXPECT_NEAR(spec.total_bytes / r.time_s / 1e9, 24.7, 0.01);
}

TEST(ShuffleSimulationTest, LooseNeverSlowerThanTightForRandomOrder) {
  // Without barriers no thread waits for the slowest of its step.
  for (const char* name : {"nehalem-ex-4s", "opteron-8220-8s-twisted-ladder"}) {
    const model::Topology t = machine(name);
    const int threads = t.total_cores();
    const double tight = run(t, shuffle(ShuffleAlgorithm::kCoordinatedRandom, SyncMode::kTight, threads)).time_s;
    const double loose = run(t, shuffle(ShuffleAlgorithm::kCoordinatedRandom, SyncMode::kLoose, threads)).time_s;
    EXPECT_LE(loose, tight * (1 + 1e-9)) << name;
  }
}

TEST(ShuffleSimulationTest, RingMigrationReadsOnlyLocalMemory) {
  // Migration moves the thread to the piece: with a zero-byte state every access is local, and
  // ring order spreads the threads evenly, so every controller streams at its capacity.
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec spec = shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 32);
  spec.kind = WorkloadKind::kMigration;
  spec.state_bytes = 0.0;
  const SimulationResult r = run(t, spec);
  EXPECT_EQ(r.remote_bytes, 0.0);
  EXPECT_NEAR(r.local_access_ratio(), 1.0, 1e-12);
  EXPECT_GT(spec.total_bytes / r.time_s / 1e9, 0.95 * 4 * 24.7);
}

TEST(ShuffleSimulationTest, NaiveMigrationFormsConvoysOnOneSocket) {
  // All 32 threads move to the same socket (8 cores, 16 hardware threads): they share it, so the
  // run is no faster than one controller.
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec spec = shuffle(ShuffleAlgorithm::kNaive, SyncMode::kTight, 32);
  spec.kind = WorkloadKind::kMigration;
  const SimulationResult r = run(t, spec);
  EXPECT_LE(spec.total_bytes / r.time_s / 1e9, 24.7 * (1 + 1e-6));
}

TEST(ShuffleSimulationTest, MigrationAndCopyMovesTheStateToo) {
  // Copying a 1 MiB state before each move adds that traffic; plain migration instead reads the
  // state from home every step. Both move more bytes than the pieces alone.
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec spec = shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 32);
  spec.state_bytes = 1 << 20;
  spec.kind = WorkloadKind::kMigrationAndCopy;
  const SimulationResult copy = run(t, spec);
  spec.kind = WorkloadKind::kMigration;
  const SimulationResult stay = run(t, spec);
  EXPECT_GT(copy.bytes, spec.total_bytes);
  EXPECT_GT(stay.bytes, spec.total_bytes);
  EXPECT_GT(stay.remote_bytes, 0.0);
}

TEST(ShuffleSimulationTest, RejectsBadSpecs) {
  const model::Topology t = machine("nehalem-ex-4s");
  WorkloadSpec spec = shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 65);  // 64 hardware threads
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  spec.threads = 0;
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  spec = shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 4, 0.0);
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  spec = shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 2);
  spec.placement = parse_placement("0,999");
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  spec = shuffle(ShuffleAlgorithm::kRing, SyncMode::kTight, 32, 1e15);  // more than 512 GiB of memory
  EXPECT_THROW(build_shuffle_plan(t, spec), std::invalid_argument);
  EXPECT_THROW(parse_algorithm("bubble"), std::invalid_argument);
  EXPECT_THROW(parse_sync("medium"), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
