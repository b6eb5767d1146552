// libnumatwin-shuffle's migration runs (Runner::run_migration, shuffle/runner.hpp): at step k
// consumer c moves to the CPU of producer steps[k][c] and reads that piece there; every piece is
// read exactly once, by its consumer's own thread, on the CPU it moved to (sched_getcpu), tight
// and loose; the state stays home (migration) or follows the consumer across nodes (migration &
// copy). Four threads on two CPUs (a, b, a, b) so that every step of the ring changes CPU.
#include <gtest/gtest.h>
#include <sched.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "numatwin/shuffle/node_buffers.hpp"
#include "numatwin/shuffle/runner.hpp"

namespace numatwin::shuffle {
namespace {

constexpr std::size_t kPieceBytes = 96;

void write_piece(int producer, int consumer, std::byte* piece, std::size_t bytes) {
  std::memset(piece, 0, bytes);
  const int tag[2] = {producer, consumer};
  std::memcpy(piece, tag, sizeof tag);
}

// Two CPUs this process may run on, or none.
std::vector<int> two_cpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return {};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus.size() == 2 ? cpus : std::vector<int>{};
}

// What the consumers saw, and the problems on the way.
struct Seen {
  explicit Seen(int n) : delivered(static_cast<std::size_t>(n)), thread_of(static_cast<std::size_t>(n)) {}
  std::vector<std::vector<int>> delivered;  // delivered[c][k]: producer read by c at step k
  std::vector<std::thread::id> thread_of;
  std::mutex mutex;
  std::vector<std::string> problems;
  void problem(const std::string& what) {
    std::lock_guard lock(mutex);
    problems.push_back(what);
  }
};

// Four threads on CPUs a, b, a, b; the ring of four. By hand: consumer c reads producers c, c+1,
// c+2, c+3 (mod 4), whose CPUs alternate, so it re-pins before steps 1, 2 and 3: 3 moves each.
TEST(ShuffleMigrationTest, EveryPieceIsReadOnceByItsConsumerOnTheProducersCpu) {
  const std::vector<int> two = two_cpus();
  if (two.empty()) GTEST_SKIP() << "needs two CPUs";
  const std::vector<int> cpus{two[0], two[1], two[0], two[1]};
  Runner runner(cpus);
  const NodeBuffers buffers(runner, kPieceBytes, write_piece);
  const Schedule ring = Schedule::ring(4);
  for (Sync sync : {Sync::kTight, Sync::kLoose}) {
    const std::string what = sync == Sync::kTight ? "tight" : "loose";
    for (bool copy : {false, true}) {
      Seen seen(4);
      Migration migration;
      migration.copy = copy;
      const RunTiming timing = runner.run_migration(ring, buffers.layout(), sync, migration, [&](int c, const std::byte* piece, std::size_t bytes) {
        int tag[2] = {-1, -1};
        std::memcpy(tag, piece, sizeof tag);
        const auto uc = static_cast<std::size_t>(c);
        if (tag[1] != c || bytes != kPieceBytes) seen.problem(what + ": consumer " + std::to_string(c) + " got another's piece");
        const int cpu = sched_getcpu();
        if (cpu != cpus[static_cast<std::size_t>(tag[0])])
          seen.problem(what + ": consumer " + std::to_string(c) + " read producer " + std::to_string(tag[0]) + " on CPU " +
                       std::to_string(cpu) + ", not the producer's CPU " + std::to_string(cpus[static_cast<std::size_t>(tag[0])]));
        if (seen.delivered[uc].empty()) seen.thread_of[uc] = std::this_thread::get_id();
        if (seen.thread_of[uc] != std::this_thread::get_id()) seen.problem(what + ": consumer " + std::to_string(c) + " changed thread");
        if (runner.state(c) != nullptr) seen.problem(what + ": a state without state_bytes");
        seen.delivered[uc].push_back(tag[0]);
      });
      EXPECT_TRUE(seen.problems.empty()) << (seen.problems.empty() ? "" : seen.problems.front());
      const std::vector<std::vector<int>> expected{{0, 1, 2, 3}, {1, 2, 3, 0}, {2, 3, 0, 1}, {3, 0, 1, 2}};
      EXPECT_EQ(seen.delivered, expected) << what;
      EXPECT_EQ(std::set<std::thread::id>(seen.thread_of.begin(), seen.thread_of.end()).size(), 4u) << what;
      EXPECT_EQ(timing.moves, (std::vector<int>{3, 3, 3, 3})) << what;
      // No nodes given: every producer is its own node, so every move copies (state or not).
      EXPECT_EQ(timing.copies, (copy ? std::vector<int>{3, 3, 3, 3} : std::vector<int>{})) << what;
      EXPECT_EQ(timing.step_end_seconds.size(), sync == Sync::kTight ? 4u : 0u) << what;
    }
  }
  // Back home after the run: on_each_thread runs where the threads were pinned.
  std::vector<int> after(4, -1);
  runner.on_each_thread([&](int t) { after[static_cast<std::size_t>(t)] = sched_getcpu(); });
  EXPECT_EQ(after, cpus);
}

// The state: every consumer adds (producer + 1) of each piece it reads, 1 + 2 + 3 + 4 = 10.
// Nodes given as 0, 0, 1, 1 (as if producers 2 and 3 sat on another node). By hand, the ring's
// consumers visit nodes 0 0 1 1 / 0 1 1 0 / 1 1 0 0 / 1 0 0 1: copies 1, 2, 1, 2, and the state
// ends in the slot of the producer where the last copy went: 2, 0 (step 3 reads producer 0),
// 0, 2 (step 3 reads producer 2). Plain migration keeps it home and copies nothing. A consumer
// moves only when the node changes: as many moves as the copies.
TEST(ShuffleMigrationTest, TheStateStaysHomeOrFollowsTheConsumerAcrossNodes) {
  const std::vector<int> two = two_cpus();
  if (two.empty()) GTEST_SKIP() << "needs two CPUs";
  const std::vector<int> cpus{two[0], two[1], two[0], two[1]};
  Runner runner(cpus);
  const NodeBuffers buffers(runner, kPieceBytes, write_piece);
  for (Sync sync : {Sync::kTight, Sync::kLoose}) {
    for (bool copy : {false, true}) {
      const std::string what = std::string(sync == Sync::kTight ? "tight" : "loose") + (copy ? " copy" : " migration");
      std::vector<std::vector<std::uint64_t>> slots(4, std::vector<std::uint64_t>(4 * 2, 0));  // [producer][consumer * 2]
      Migration migration;
      migration.copy = copy;
      migration.state_bytes = sizeof(std::uint64_t);
      migration.state_stride = 2 * sizeof(std::uint64_t);
      for (auto& s : slots) migration.states.push_back(reinterpret_cast<std::byte*>(s.data()));
      migration.nodes = {0, 0, 1, 1};
      std::mutex mutex;
      std::vector<std::string> problems;
      const RunTiming timing = runner.run_migration(Schedule::ring(4), buffers.layout(), sync, migration,
                                                    [&](int c, const std::byte* piece, std::size_t) {
                                                      int tag[2] = {-1, -1};
                                                      std::memcpy(tag, piece, sizeof tag);
                                                      std::byte* state = runner.state(c);
                                                      if (state == nullptr) {
                                                        std::lock_guard lock(mutex);
                                                        problems.push_back("no state for consumer " + std::to_string(c));
                                                        return;
                                                      }
                                                      std::uint64_t value = 0;
                                                      std::memcpy(&value, state, sizeof value);
                                                      value += static_cast<std::uint64_t>(tag[0] + 1);
                                                      std::memcpy(state, &value, sizeof value);
                                                    });
      EXPECT_TRUE(problems.empty()) << what;
      EXPECT_EQ(timing.moves, (std::vector<int>{1, 2, 1, 2})) << what << ": a move per change of node";
      const std::vector<int> final_slot = copy ? std::vector<int>{2, 0, 0, 2} : std::vector<int>{0, 1, 2, 3};
      EXPECT_EQ(timing.copies, (copy ? std::vector<int>{1, 2, 1, 2} : std::vector<int>{})) << what;
      for (std::size_t c = 0; c < 4; ++c) {
        EXPECT_EQ(slots[static_cast<std::size_t>(final_slot[c])][c * 2], 10u) << what << ", consumer " << c;
        EXPECT_EQ(slots[static_cast<std::size_t>(final_slot[c])][c * 2 + 1], 0u) << what << ": the stride's padding untouched";
      }
      if (!copy) {  // nothing outside the home slots
        for (std::size_t p = 0; p < 4; ++p)
          for (std::size_t c = 0; c < 4; ++c)
            if (p != c) {
              EXPECT_EQ(slots[p][c * 2], 0u) << what << ", slot of consumer " << c << " at producer " << p;
            }
      }
    }
  }
}

// Nodes 0, 0, 1, 1 with node 0's CPU list {b} and node 1's {a} (CPUs a, b, a, b as above). By
// hand, the ring's consumers read producers on nodes 0 0 1 1 / 0 1 1 0 / 1 1 0 0 / 1 0 0 1,
// start on a, b, a, b and move only when the node changes, to that node's one CPU:
//   consumer 0: a a a a (moves to node 1's a at step 2)   consumer 1: b a a b
//   consumer 2: a a b b                                    consumer 3: b b b a
TEST(ShuffleMigrationTest, AConsumerMovesOnlyWhenTheNodeChangesToThatNodesCpus) {
  const std::vector<int> two = two_cpus();
  if (two.empty()) GTEST_SKIP() << "needs two CPUs";
  const int a = two[0];
  const int b = two[1];
  Runner runner({a, b, a, b});
  const NodeBuffers buffers(runner, kPieceBytes, write_piece);
  Migration migration;
  migration.nodes = {0, 0, 1, 1};
  migration.node_cpus = {{b}, {a}};
  const std::vector<std::vector<int>> expected{{a, a, a, a}, {b, a, a, b}, {a, a, b, b}, {b, b, b, a}};
  for (Sync sync : {Sync::kTight, Sync::kLoose}) {
    std::vector<std::vector<int>> on(4);
    const RunTiming timing = runner.run_migration(Schedule::ring(4), buffers.layout(), sync, migration,
                                                  [&](int c, const std::byte*, std::size_t) {
                                                    on[static_cast<std::size_t>(c)].push_back(sched_getcpu());
                                                  });
    EXPECT_EQ(on, expected) << (sync == Sync::kTight ? "tight" : "loose");
    EXPECT_EQ(timing.moves, (std::vector<int>{1, 2, 1, 2}));
    EXPECT_TRUE(timing.copies.empty());
  }
}

TEST(ShuffleMigrationTest, RunsThatCannotMigrateAreRejectedBeforeRunning) {
  const Consumer nothing = [](int, const std::byte*, std::size_t) {};
  {
    Runner unpinned(std::vector<int>(2, kUnpinned));
    const NodeBuffers buffers(unpinned, 8, write_piece);
    EXPECT_THROW(unpinned.run_migration(Schedule::ring(2), buffers.layout(), Sync::kTight, Migration{}, nothing), std::invalid_argument);
  }
  const std::vector<int> two = two_cpus();
  if (two.empty()) GTEST_SKIP() << "needs two CPUs";
  Runner runner(two);
  const NodeBuffers buffers(runner, 8, write_piece);
  std::vector<std::uint64_t> slot(4, 0);
  Migration one_buffer;
  one_buffer.state_bytes = 8;
  one_buffer.state_stride = 8;
  one_buffer.states = {reinterpret_cast<std::byte*>(slot.data())};
  EXPECT_THROW(runner.run_migration(Schedule::ring(2), buffers.layout(), Sync::kTight, one_buffer, nothing), std::invalid_argument);
  Migration narrow = one_buffer;
  narrow.states.push_back(reinterpret_cast<std::byte*>(slot.data() + 2));
  narrow.state_stride = 4;
  EXPECT_THROW(runner.run_migration(Schedule::ring(2), buffers.layout(), Sync::kTight, narrow, nothing), std::invalid_argument);
  Migration nodes;
  nodes.nodes = {0};
  EXPECT_THROW(runner.run_migration(Schedule::ring(2), buffers.layout(), Sync::kTight, nodes, nothing), std::invalid_argument);
  Migration no_cpus;
  no_cpus.nodes = {0, 1};
  no_cpus.node_cpus = {{two[0]}, {}};
  EXPECT_THROW(runner.run_migration(Schedule::ring(2), buffers.layout(), Sync::kTight, no_cpus, nothing), std::invalid_argument);
  EXPECT_THROW(runner.run_migration(Schedule::ring(3), buffers.layout(), Sync::kTight, Migration{}, nothing), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::shuffle
