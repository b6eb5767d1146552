// A team of worker threads that live for a whole kernel run, each pinned to one OS CPU (or left
// to the scheduler), so that first touch, timing and re-pinning (thread migration) all happen on
// the same threads. `run(task)` hands task(w) to every worker w and returns when all are done.
//
// Pinning uses sched_setaffinity on the worker itself: cheap enough to re-pin inside a timed
// loop (migration kernels), and the CPU lists come from ThreadPinner (hwloc) or discovery.
#pragma once

#include <barrier>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace numatwin::validate {

inline constexpr int kUnpinned = -1;

class ThreadTeam {
 public:
  // cpus[w]: the OS CPU worker w is pinned to, or kUnpinned. Throws std::invalid_argument for an
  // empty list and std::runtime_error (naming the CPU and errno) when a worker cannot be pinned.
  explicit ThreadTeam(std::vector<int> cpus);
  ~ThreadTeam();
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  [[nodiscard]] int size() const { return static_cast<int>(cpus_.size()); }
  [[nodiscard]] const std::vector<int>& pinned_cpus() const { return cpus_; }

  // Runs task(w) on every worker and waits for all; rethrows the first exception a task threw
  // (after every worker finished). Not reentrant.
  void run(const std::function<void(int worker)>& task);
  // Inside a task: waits until every worker reached the barrier (std::barrier phase). A task
  // that uses barriers must reach all of them on every worker: an exception thrown between two
  // barriers would leave the others waiting, so kernels validate before the parallel part.
  void barrier();
  // Inside worker w's task: pins the calling worker to `cpu` (kUnpinned: every CPU of the process).
  // Throws std::runtime_error when the kernel refuses. Does not change pinned_cpus().
  static void pin_current(int cpu);

  // Where each worker ran when its last task started and ended (sched_getcpu), -1 before any run.
  [[nodiscard]] const std::vector<int>& cpu_at_start() const { return cpu_at_start_; }
  [[nodiscard]] const std::vector<int>& cpu_at_end() const { return cpu_at_end_; }

 private:
  void worker_loop(int worker);

  std::vector<int> cpus_;
  std::vector<int> cpu_at_start_;
  std::vector<int> cpu_at_end_;
  std::vector<std::thread> threads_;
  std::unique_ptr<std::barrier<>> barrier_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(int)>* task_ = nullptr;
  std::uint64_t generation_ = 0;
  int running_ = 0;
  bool quit_ = false;
  std::exception_ptr error_;
  std::vector<std::exception_ptr> pin_errors_;
};

}  // namespace numatwin::validate
