#include "numatwin/shuffle/runner.hpp"

#include <sched.h>

#include <algorithm>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

namespace numatwin::shuffle {

namespace {

using Clock = std::chrono::steady_clock;

// Run by the last thread to arrive at a barrier, before any leaves: the moment every thread has
// arrived (only runs use the barrier: their start, then the end of every tight step).
struct BarrierClock {
  std::vector<Clock::time_point>* marks = nullptr;
  void operator()() noexcept { marks->push_back(Clock::now()); }  // reserved by run(): never allocates
};

}  // namespace

// Threads that wait for a task, run it and report; one std::barrier for the start and the
// tight steps.
struct Runner::Pool {
  std::vector<int> cpus;
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> pin_errors;
  std::vector<Clock::time_point> marks;
  std::barrier<BarrierClock> barrier;
  std::mutex mutex;
  std::condition_variable wake;
  std::condition_variable done;
  const std::function<void(int)>* task = nullptr;
  unsigned long long generation = 0;
  int running = 0;
  bool quit = false;
  std::exception_ptr error;

  explicit Pool(std::vector<int> c)
      : cpus(std::move(c)), pin_errors(cpus.size()), barrier(static_cast<std::ptrdiff_t>(cpus.size()), BarrierClock{&marks}) {}

  void loop(int t) {
    try {
      pin_current_thread(cpus[static_cast<std::size_t>(t)]);
    } catch (...) {
      pin_errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
    unsigned long long seen = 0;
    for (;;) {
      const std::function<void(int)>* current = nullptr;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return quit || generation != seen; });
        if (quit) return;
        seen = generation;
        current = task;
      }
      std::exception_ptr failure;
      try {
        (*current)(t);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard lock(mutex);
      if (failure && !error) error = failure;
      if (--running == 0) done.notify_all();
    }
  }

  void run(const std::function<void(int)>& f) {
    std::unique_lock lock(mutex);
    task = &f;
    error = nullptr;
    running = static_cast<int>(cpus.size());
    ++generation;
    wake.notify_all();
    done.wait(lock, [&] { return running == 0; });
    task = nullptr;
    if (error) std::rethrow_exception(std::exchange(error, nullptr));
  }

  void stop() {
    {
      std::lock_guard lock(mutex);
      quit = true;
    }
    wake.notify_all();
    for (std::thread& th : threads) th.join();
    threads.clear();
  }
};

void pin_current_thread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (cpu == kUnpinned) {
    if (sched_getaffinity(0, sizeof(set), &set) != 0 || CPU_COUNT(&set) == 0)
      for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
  } else {
    if (cpu < 0 || cpu >= CPU_SETSIZE) throw std::runtime_error("cannot pin a thread to CPU " + std::to_string(cpu) + ": out of range");
    CPU_SET(cpu, &set);
  }
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    const int error = errno;
    throw std::runtime_error("cannot pin a thread to CPU " + std::to_string(cpu) + ": " + std::strerror(error));
  }
  if (cpu != kUnpinned && sched_getcpu() != cpu) sched_yield();  // move now, not inside the timed part
}

Runner::Runner(std::vector<int> cpus) {
  if (cpus.empty()) throw std::invalid_argument("a shuffle runner needs at least one thread");
  pool_ = std::make_unique<Pool>(std::move(cpus));
  const int n = threads();
  pool_->threads.reserve(static_cast<std::size_t>(n));
  try {
    for (int t = 0; t < n; ++t) pool_->threads.emplace_back([this, t] { pool_->loop(t); });
  } catch (...) {  // no thread for everyone: join those that started before the error leaves
    pool_->stop();
    throw;
  }
  pool_->run([](int) {});  // every thread has tried to pin itself
  for (std::size_t t = 0; t < pool_->pin_errors.size(); ++t) {
    if (!pool_->pin_errors[t]) continue;
    std::string reason;
    try {
      std::rethrow_exception(pool_->pin_errors[t]);
    } catch (const std::exception& e) {
      reason = e.what();
    }
    pool_->stop();
    throw std::runtime_error("shuffle thread " + std::to_string(t) + ": " + reason);
  }
}

Runner::~Runner() {
  if (pool_) pool_->stop();
}

int Runner::threads() const { return static_cast<int>(pool_->cpus.size()); }

const std::vector<int>& Runner::cpus() const { return pool_->cpus; }

void Runner::on_each_thread(const std::function<void(int thread)>& task) { pool_->run(task); }

RunTiming Runner::run(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Consumer& consume) {
  const int n = threads();
  check_schedule(schedule, n);
  if (pieces.buffers.size() != static_cast<std::size_t>(n))
    throw std::invalid_argument("shuffle pieces: " + std::to_string(pieces.buffers.size()) + " producer buffers for " +
                                std::to_string(n) + " threads");
  for (std::size_t p = 0; p < pieces.buffers.size(); ++p)
    if (pieces.buffers[p] == nullptr) throw std::invalid_argument("shuffle pieces: producer " + std::to_string(p) + " has no buffer");
  if (pieces.offsets.empty() && pieces.stride < pieces.piece_bytes)
    throw std::invalid_argument("shuffle pieces: stride " + std::to_string(pieces.stride) + " is below the piece size " +
                                std::to_string(pieces.piece_bytes));
  if (!pieces.offsets.empty()) {
    if (pieces.offsets.size() != static_cast<std::size_t>(n))
      throw std::invalid_argument("shuffle pieces: offsets for " + std::to_string(pieces.offsets.size()) + " producers, expected " +
                                  std::to_string(n));
    for (std::size_t p = 0; p < pieces.offsets.size(); ++p) {
      const std::vector<std::size_t>& o = pieces.offsets[p];
      if (o.size() != static_cast<std::size_t>(n) + 1 || !std::is_sorted(o.begin(), o.end()))
        throw std::invalid_argument("shuffle pieces: producer " + std::to_string(p) + " needs " + std::to_string(n + 1) +
                                    " ascending piece offsets");
    }
  }
  if (!consume) throw std::invalid_argument("shuffle run without a consumer");

  const bool tight = sync == Sync::kTight;
  const auto un = static_cast<std::size_t>(n);
  RunTiming timing;
  pool_->marks.clear();
  pool_->marks.reserve(un + 1);  // the start, then the end of every tight step
  std::vector<Clock::time_point> thread_end(un);
  std::mutex error_mutex;
  std::exception_ptr first_error;
  auto keep = [&](std::exception_ptr e) {
    std::lock_guard lock(error_mutex);
    if (!first_error) first_error = std::move(e);
  };

  pool_->run([&](int c) {
    const auto uc = static_cast<std::size_t>(c);
    bool failed = false;
    try {
      pin_current_thread(pool_->cpus[uc]);
    } catch (...) {
      keep(std::current_exception());
      failed = true;
    }
    pool_->barrier.arrive_and_wait();
    for (std::size_t k = 0; k < un; ++k) {
      if (!failed) {
        try {
          const int p = schedule.steps[k][uc];
          consume(c, pieces.piece(p, c), pieces.bytes(p, c));
        } catch (...) {
          keep(std::current_exception());
          failed = true;
        }
      }
      if (tight) pool_->barrier.arrive_and_wait();
    }
    thread_end[uc] = Clock::now();
  });
  if (first_error) std::rethrow_exception(first_error);

  const Clock::time_point start = pool_->marks.front();
  auto since_start = [&](Clock::time_point t) { return std::chrono::duration<double>(t - start).count(); };
  for (std::size_t k = 1; k < pool_->marks.size(); ++k) timing.step_end_seconds.push_back(since_start(pool_->marks[k]));
  for (const Clock::time_point& t : thread_end) {
    timing.thread_end_seconds.push_back(since_start(t));
    timing.seconds = std::max(timing.seconds, timing.thread_end_seconds.back());
  }
  return timing;
}

}  // namespace numatwin::shuffle
