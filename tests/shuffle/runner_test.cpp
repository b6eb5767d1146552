// libnumatwin-shuffle's runner (shuffle/runner.hpp): every piece reaches the right consumer, on
// the consumer's own thread, in the step the schedule names, exactly once, for tight and loose
// runs of a designed schedule (sim::design_schedule on the twisted ladder), the naive order and
// the ring; tight steps never overlap; bad schedules and throwing consumers.
#include <gtest/gtest.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/shuffle/node_buffers.hpp"
#include "numatwin/shuffle/runner.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"

namespace numatwin::shuffle {
namespace {

// A piece starts with its producer and consumer; the rest is a pattern of both.
struct Tag {
  int producer;
  int consumer;
};
constexpr std::size_t kPieceBytes = 200;  // not a multiple of 64: the stride pads it

void write_piece(int producer, int consumer, std::byte* piece, std::size_t bytes) {
  const Tag tag{producer, consumer};
  std::memcpy(piece, &tag, sizeof tag);
  for (std::size_t i = sizeof tag; i < bytes; ++i) piece[i] = static_cast<std::byte>((producer * 31 + consumer * 7 + i) & 0xff);
}

// What the consumers saw: delivered[c][k] = producer read by c at step k (-1: none), and the
// problems found on the way (a wrong tag, a bad pattern, another thread, steps overlapping).
struct Record {
  explicit Record(int n) : delivered(n, std::vector<int>()), thread_of(n), finished(n + 1) {
    for (auto& f : finished) f = 0;
  }
  std::vector<std::vector<int>> delivered;
  std::vector<std::thread::id> thread_of;
  std::vector<std::atomic<int>> finished;  // finished[k]: consumers done with step k
  std::mutex mutex;
  std::vector<std::string> problems;

  void problem(const std::string& what) {
    std::lock_guard lock(mutex);
    problems.push_back(what);
  }
};

Consumer recording(Record& r, int n, bool tight) {
  return [&r, n, tight](int c, const std::byte* piece, std::size_t bytes) {
    auto& mine = r.delivered[static_cast<std::size_t>(c)];
    const int k = static_cast<int>(mine.size());
    if (bytes != kPieceBytes) r.problem("consumer " + std::to_string(c) + ": " + std::to_string(bytes) + " bytes");
    Tag tag{};
    std::memcpy(&tag, piece, sizeof tag);
    if (tag.consumer != c) r.problem("consumer " + std::to_string(c) + " got a piece for " + std::to_string(tag.consumer));
    for (std::size_t i = sizeof tag; i < bytes; ++i)
      if (piece[i] != static_cast<std::byte>((tag.producer * 31 + tag.consumer * 7 + i) & 0xff)) {
        r.problem("consumer " + std::to_string(c) + ": piece of producer " + std::to_string(tag.producer) + " corrupt");
        break;
      }
    if (k == 0) r.thread_of[static_cast<std::size_t>(c)] = std::this_thread::get_id();
    if (r.thread_of[static_cast<std::size_t>(c)] != std::this_thread::get_id())
      r.problem("consumer " + std::to_string(c) + " called on another thread at step " + std::to_string(k));
    if (tight && k > 0 && r.finished[static_cast<std::size_t>(k - 1)].load() != n)
      r.problem("consumer " + std::to_string(c) + " started step " + std::to_string(k) + " before step " + std::to_string(k - 1) +
                " ended everywhere");
    mine.push_back(tag.producer);
    r.finished[static_cast<std::size_t>(k)].fetch_add(1);
  };
}

// Runs `schedule` (tight and loose) on unpinned threads and checks every delivery.
void expect_delivered_exactly_once(const Schedule& schedule, const std::string& name) {
  const int n = schedule.threads();
  Runner runner(std::vector<int>(static_cast<std::size_t>(n), kUnpinned));
  const NodeBuffers buffers(runner, kPieceBytes, write_piece);
  for (Sync sync : {Sync::kTight, Sync::kLoose}) {
    const bool tight = sync == Sync::kTight;
    const std::string what = name + (tight ? " tight" : " loose");
    Record record(n);
    const RunTiming timing = runner.run(schedule, buffers.layout(), sync, recording(record, n, tight));
    EXPECT_TRUE(record.problems.empty()) << what << ": " << (record.problems.empty() ? "" : record.problems.front());
    for (int c = 0; c < n; ++c) {
      // Step k of consumer c is the producer the schedule names, so every producer once.
      EXPECT_EQ(record.delivered[static_cast<std::size_t>(c)], schedule.order(c)) << what << ", consumer " << c;
    }
    std::set<std::thread::id> threads(record.thread_of.begin(), record.thread_of.end());
    EXPECT_EQ(threads.size(), static_cast<std::size_t>(n)) << what << ": one thread per consumer";
    EXPECT_EQ(timing.step_end_seconds.size(), tight ? static_cast<std::size_t>(n) : 0u) << what;
    ASSERT_EQ(timing.thread_end_seconds.size(), static_cast<std::size_t>(n));
    for (double end : timing.thread_end_seconds) {
      EXPECT_GE(end, 0.0) << what << ": the clock starts when every thread has arrived";
      EXPECT_LE(end, timing.seconds) << what;
      if (tight) {
        EXPECT_GE(end, timing.step_end_seconds.back()) << what << ": a thread ends after the last step's barrier";
      }
    }
    for (std::size_t k = 1; k < timing.step_end_seconds.size(); ++k)
      EXPECT_LE(timing.step_end_seconds[k - 1], timing.step_end_seconds[k]) << what;
  }
}

TEST(ShuffleRunnerTest, DesignedScheduleDeliversEveryPieceOnceInItsStep) {
  const model::Topology t =
      model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "opteron-8220-8s-twisted-ladder.json");
  const std::vector<sim::PlacedThread> placed = sim::place_threads(t, 16, sim::ThreadPlacement{});
  sim::ScheduleOptions options;
  options.max_swaps = 20000;
  const sim::ScheduleDesign d = sim::design_schedule(t, placed, 1e6, options);
  const Schedule designed{d.schedule.steps};
  ASSERT_TRUE(designed.is_latin_square());
  EXPECT_GT(d.swaps_kept, 0) << "on the twisted ladder the design departs from the ring";
  expect_delivered_exactly_once(designed, "designed 16");
}

TEST(ShuffleRunnerTest, NaiveAndRingDeliverEveryPieceOnceInItsStep) {
  for (int n : {1, 2, 3, 5}) {
    expect_delivered_exactly_once(Schedule::naive(n), "naive " + std::to_string(n));
    expect_delivered_exactly_once(Schedule::ring(n), "ring " + std::to_string(n));
  }
  EXPECT_FALSE(Schedule::naive(3).is_latin_square());
  EXPECT_TRUE(Schedule::ring(3).is_latin_square());
  EXPECT_EQ(Schedule::ring(3).order(1), (std::vector<int>{1, 2, 0}));
}

TEST(ShuffleRunnerTest, UnequalPiecesComeWithTheirOwnSizes) {
  // Three producers whose pieces (key partitions, say) differ in size, some empty: one shared
  // buffer, offsets per producer. Byte i of the buffer holds i, so a piece shows where it began.
  std::vector<std::byte> data(64);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::byte>(i);
  PieceLayout layout;
  layout.buffers.assign(3, data.data());
  layout.offsets = {{0, 5, 5, 9}, {9, 10, 30, 30}, {30, 31, 32, 64}};
  Runner runner(std::vector<int>(3, kUnpinned));
  for (Sync sync : {Sync::kTight, Sync::kLoose}) {
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> seen(3);  // (first byte, bytes) per consumer
    runner.run(Schedule::ring(3), layout, sync, [&](int c, const std::byte* piece, std::size_t bytes) {
      seen[static_cast<std::size_t>(c)].emplace_back(static_cast<std::size_t>(piece - data.data()), bytes);
    });
    using Seen = std::vector<std::pair<std::size_t, std::size_t>>;
    EXPECT_EQ(seen[0], (Seen{{0, 5}, {9, 1}, {30, 1}}));   // ring: consumer 0 reads producers 0, 1, 2
    EXPECT_EQ(seen[1], (Seen{{10, 20}, {31, 1}, {5, 0}}));  // producers 1, 2, 0
    EXPECT_EQ(seen[2], (Seen{{32, 32}, {5, 4}, {30, 0}}));  // producers 2, 0, 1
  }
  PieceLayout descending = layout;
  descending.offsets[1] = {9, 30, 10, 30};
  EXPECT_THROW(runner.run(Schedule::ring(3), descending, Sync::kTight, [](int, const std::byte*, std::size_t) {}),
               std::invalid_argument);
}

TEST(ShuffleRunnerTest, PinnedThreadsConsumeOnTheirCpu) {
  cpu_set_t set;
  ASSERT_EQ(sched_getaffinity(0, sizeof set, &set), 0);
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  Runner runner(cpus);
  const NodeBuffers buffers(runner, 64, [](int, int, std::byte* piece, std::size_t bytes) { std::memset(piece, 1, bytes); });
  std::vector<int> seen(cpus.size(), -2);
  // A consumer that moves its thread elsewhere is back on its CPU at the next run.
  for (int run = 0; run < 2; ++run) {
    runner.run(Schedule::ring(static_cast<int>(cpus.size())), buffers.layout(), Sync::kLoose,
               [&](int c, const std::byte*, std::size_t) {
                 seen[static_cast<std::size_t>(c)] = sched_getcpu();
                 pin_current_thread(kUnpinned);
               });
    EXPECT_EQ(seen, cpus) << "run " << run;
  }
  // Every page of a producer's buffer is on its producer's node (here the only node there is).
  if (buffers.numa_bound()) {
    for (std::size_t p = 0; p < cpus.size(); ++p) {
      const int node = buffers.node(static_cast<int>(p));
      EXPECT_EQ(node, numa_node_of_cpu(cpus[p]));
      const PieceLayout& layout = buffers.layout();
      for (std::size_t c = 0; c < cpus.size(); ++c) {
        void* page = const_cast<std::byte*>(layout.piece(static_cast<int>(p), static_cast<int>(c)));
        int status = -1;
        ASSERT_EQ(move_pages(0, 1, &page, nullptr, &status, 0), 0);
        EXPECT_EQ(status, node) << "producer " << p << ", piece " << c;
      }
    }
  }
}

TEST(ShuffleRunnerTest, SchedulesThatDoNotFitAreRejectedBeforeRunning) {
  Runner runner(std::vector<int>(3, kUnpinned));
  const NodeBuffers buffers(runner, 8, [](int, int, std::byte* piece, std::size_t bytes) { std::memset(piece, 0, bytes); });
  int calls = 0;
  const Consumer count = [&](int, const std::byte*, std::size_t) { ++calls; };
  auto message = [&](const Schedule& s) {
    try {
      runner.run(s, buffers.layout(), Sync::kTight, count);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(Schedule::ring(4)), "shuffle schedule has 4 steps, expected 3 (one per thread)");
  EXPECT_EQ(message(Schedule{{{0, 1, 2}, {1, 2}, {2, 0, 1}}}), "shuffle schedule step 1 has 2 entries, expected 3 (one per consumer)");
  EXPECT_EQ(message(Schedule{{{0, 1, 2}, {1, 2, 3}, {2, 0, 1}}}), "shuffle schedule step 1, consumer 2: producer 3 is not a thread 0..2");
  EXPECT_EQ(message(Schedule{{{0, 1, 2}, {1, 2, 0}, {0, 0, 1}}}), "shuffle schedule step 2, consumer 0: reads producer 0 a second time");
  EXPECT_EQ(calls, 0);
  PieceLayout short_layout = buffers.layout();
  short_layout.buffers.pop_back();
  EXPECT_THROW(runner.run(Schedule::ring(3), short_layout, Sync::kLoose, count), std::invalid_argument);
  EXPECT_EQ(calls, 0);
  EXPECT_THROW(Runner(std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(Runner(std::vector<int>{CPU_SETSIZE + 5}), std::runtime_error);
}

TEST(ShuffleRunnerTest, AThrowingConsumerEndsTheRunWithoutHangingTheOthers) {
  Runner runner(std::vector<int>(3, kUnpinned));
  const NodeBuffers buffers(runner, 8, [](int, int, std::byte* piece, std::size_t bytes) { std::memset(piece, 0, bytes); });
  std::atomic<int> calls{0};
  for (Sync sync : {Sync::kTight, Sync::kLoose}) {
    calls = 0;
    EXPECT_THROW(runner.run(Schedule::ring(3), buffers.layout(), sync,
                            [&](int c, const std::byte*, std::size_t) {
                              ++calls;
                              if (c == 1) throw std::runtime_error("consumer 1 fails");
                            }),
                 std::runtime_error);
    EXPECT_EQ(calls.load(), 7);  // consumers 0 and 2 read all three pieces, consumer 1 its first
  }
  // The runner is still usable.
  calls = 0;
  runner.run(Schedule::ring(3), buffers.layout(), Sync::kTight, [&](int, const std::byte*, std::size_t) { ++calls; });
  EXPECT_EQ(calls.load(), 9);
}

}  // namespace
}  // namespace numatwin::shuffle
