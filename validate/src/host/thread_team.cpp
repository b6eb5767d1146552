#include "numatwin/validate/host/thread_team.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace numatwin::validate {

void ThreadTeam::pin_current(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu == kUnpinned) {
    // Every CPU the process may use: the process's own mask (the main thread's may be narrowed).
    if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) == 0) {
      for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
    }
  } else {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw std::runtime_error("cannot pin a thread to CPU " + std::to_string(cpu) + ": out of range");
    CPU_SET(cpu, &set);
  }
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    const int error = errno;
    throw std::runtime_error("cannot pin a thread to CPU " + std::to_string(cpu) + ": " + std::strerror(error));
  }
  if (cpu != kUnpinned) sched_yield();  // let the scheduler move us now, not in the timed loop
}

ThreadTeam::ThreadTeam(std::vector<int> cpus)
    : cpus_(std::move(cpus)), cpu_at_start_(cpus_.size(), -1), cpu_at_end_(cpus_.size(), -1), pin_errors_(cpus_.size()) {
  if (cpus_.empty()) throw std::invalid_argument("a thread team needs at least one worker");
  barrier_ = std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(cpus_.size()));
  threads_.reserve(cpus_.size());
  for (int w = 0; w < size(); ++w) threads_.emplace_back([this, w] { worker_loop(w); });
  // Surface pinning failures now, before any work: a no-op task makes every worker report.
  run([](int) {});
  for (auto& error : pin_errors_) {
    if (error) {
      std::exception_ptr first = error;
      {
        std::lock_guard lock(mutex_);
        quit_ = true;
      }
      wake_.notify_all();
      for (auto& t : threads_) t.join();
      threads_.clear();
      std::rethrow_exception(first);
    }
  }
}

ThreadTeam::~ThreadTeam() {
  {
    std::lock_guard lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadTeam::worker_loop(int worker) {
  try {
    pin_current(cpus_[static_cast<std::size_t>(worker)]);
  } catch (...) {
    pin_errors_[static_cast<std::size_t>(worker)] = std::current_exception();
  }
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(int)>* task = nullptr;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      task = task_;
    }
    cpu_at_start_[static_cast<std::size_t>(worker)] = sched_getcpu();
    std::exception_ptr error;
    try {
      (*task)(worker);
    } catch (...) {
      error = std::current_exception();
    }
    cpu_at_end_[static_cast<std::size_t>(worker)] = sched_getcpu();
    {
      std::lock_guard lock(mutex_);
      if (error && !error_) error_ = error;
      if (--running_ == 0) done_.notify_all();
    }
  }
}

void ThreadTeam::run(const std::function<void(int worker)>& task) {
  std::unique_lock lock(mutex_);
  task_ = &task;
  error_ = nullptr;
  running_ = size();
  ++generation_;
  wake_.notify_all();
  done_.wait(lock, [&] { return running_ == 0; });
  task_ = nullptr;
  if (error_) {
    std::exception_ptr error = error_;
    error_ = nullptr;
    std::rethrow_exception(error);
  }
}

void ThreadTeam::barrier() { barrier_->arrive_and_wait(); }

}  // namespace numatwin::validate
