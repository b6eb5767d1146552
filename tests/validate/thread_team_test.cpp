// ThreadTeam: every worker runs each task, exceptions come back to the caller, barriers order
// phases, and workers run on the CPUs they were pinned to (and re-pinned to).
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <set>
#include <stdexcept>
#include <vector>

#include "numatwin/validate/host/thread_team.hpp"

namespace numatwin::validate {
namespace {

std::vector<int> process_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

TEST(ThreadTeamTest, RunsEveryWorkerOncePerTask) {
  for (int workers : {1, 2, 3}) {
    ThreadTeam team(std::vector<int>(static_cast<std::size_t>(workers), kUnpinned));
    EXPECT_EQ(team.size(), workers);
    std::vector<std::atomic<int>> calls(static_cast<std::size_t>(workers));
    for (int task = 0; task < 5; ++task) team.run([&](int w) { ++calls[static_cast<std::size_t>(w)]; });
    for (const auto& c : calls) EXPECT_EQ(c.load(), 5);
  }
}

TEST(ThreadTeamTest, RethrowsATasksExceptionAndStaysUsable) {
  ThreadTeam team({kUnpinned, kUnpinned});
  std::atomic<int> finished{0};
  EXPECT_THROW(team.run([&](int w) {
    if (w == 1) throw std::runtime_error("worker 1 failed");
    ++finished;
  }),
               std::runtime_error);
  EXPECT_EQ(finished.load(), 1);  // the other worker still ran to the end
  std::atomic<int> calls{0};
  team.run([&](int) { ++calls; });
  EXPECT_EQ(calls.load(), 2);
}

TEST(ThreadTeamTest, BarrierOrdersPhases) {
  constexpr int kWorkers = 3;
  ThreadTeam team(std::vector<int>(kWorkers, kUnpinned));
  std::vector<int> written(kWorkers, 0);
  std::vector<int> seen(kWorkers, 0);
  for (int round = 1; round <= 20; ++round) {
    team.run([&](int w) {
      written[static_cast<std::size_t>(w)] = round;  // phase 1
      team.barrier();
      int sum = 0;  // phase 2: every worker's phase-1 write is visible
      for (int v : written) sum += v;
      seen[static_cast<std::size_t>(w)] = sum;
      team.barrier();
    });
    for (int s : seen) EXPECT_EQ(s, kWorkers * round);
  }
}

TEST(ThreadTeamTest, PinsToTheCpuAskedAndRepinsInsideATask) {
  const std::vector<int> cpus = process_cpus();
  ASSERT_FALSE(cpus.empty());
  ThreadTeam team(cpus);
  EXPECT_EQ(team.pinned_cpus(), cpus);
  std::vector<int> ran_on(cpus.size(), -1);
  team.run([&](int w) { ran_on[static_cast<std::size_t>(w)] = sched_getcpu(); });
  EXPECT_EQ(ran_on, cpus);
  EXPECT_EQ(team.cpu_at_start(), cpus);
  EXPECT_EQ(team.cpu_at_end(), cpus);
  // Worker 0 moves to the last CPU and back: what thread migration does.
  int moved_to = -1;
  team.run([&](int w) {
    if (w != 0) return;
    ThreadTeam::pin_current(cpus.back());
    moved_to = sched_getcpu();
    ThreadTeam::pin_current(cpus.front());
  });
  EXPECT_EQ(moved_to, cpus.back());
  EXPECT_EQ(team.cpu_at_end().front(), cpus.front());
}

TEST(ThreadTeamTest, RejectsAnEmptyTeamAndACpuThatDoesNotExist) {
  EXPECT_THROW(ThreadTeam(std::vector<int>{}), std::invalid_argument);
  EXPECT_THROW(ThreadTeam(std::vector<int>{CPU_SETSIZE + 5}), std::runtime_error);
  EXPECT_THROW(ThreadTeam::pin_current(-7), std::runtime_error);
}

}  // namespace
}  // namespace numatwin::validate
