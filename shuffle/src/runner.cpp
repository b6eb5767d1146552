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
  // During a migration run: what the consumers carry, and the producer whose slot holds each
  // consumer's state (written and read on the consumer's own thread only).
  const Migration* migration = nullptr;
  std::vector<int> state_at;
  // Where consumers may move (node label -> CPUs) and how many are on each CPU now (by CPU
  // number), changed under move_mutex: one short critical section per move.
  std::vector<std::vector<int>> node_cpus;
  std::vector<int> on_cpu;
  std::mutex move_mutex;

  // A consumer leaves `from` for the least busy CPU of `choices` (the first on ties).
  int take_cpu(int from, const std::vector<int>& choices) {
    std::lock_guard lock(move_mutex);
    if (from != kUnpinned) --on_cpu[static_cast<std::size_t>(from)];
    int best = choices.front();
    for (int cpu : choices)
      if (on_cpu[static_cast<std::size_t>(cpu)] < on_cpu[static_cast<std::size_t>(best)]) best = cpu;
    ++on_cpu[static_cast<std::size_t>(best)];
    return best;
  }

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

void Runner::check_pieces(const Schedule& schedule, const PieceLayout& pieces, const Consumer& consume) const {
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
}

RunTiming Runner::run(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Consumer& consume) {
  check_pieces(schedule, pieces, consume);
  return run_steps(schedule, pieces, sync, nullptr, consume);
}

RunTiming Runner::run_migration(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Migration& migration,
                                const Consumer& consume) {
  check_pieces(schedule, pieces, consume);
  const auto un = static_cast<std::size_t>(threads());
  if (migration.state_bytes > 0) {
    if (migration.states.size() != un)
      throw std::invalid_argument("migration: " + std::to_string(migration.states.size()) + " state buffers for " + std::to_string(un) +
                                  " threads");
    for (std::size_t p = 0; p < un; ++p)
      if (migration.states[p] == nullptr) throw std::invalid_argument("migration: producer " + std::to_string(p) + " has no state buffer");
    if (migration.state_stride < migration.state_bytes)
      throw std::invalid_argument("migration: state stride " + std::to_string(migration.state_stride) + " is below the state size " +
                                  std::to_string(migration.state_bytes));
  }
  if (!migration.nodes.empty() && migration.nodes.size() != un)
    throw std::invalid_argument("migration: nodes for " + std::to_string(migration.nodes.size()) + " producers, expected " +
                                std::to_string(un));
  // Node labels: the given ones, else the producer's index.
  std::vector<int> node(un);
  int labels = 0;
  for (std::size_t p = 0; p < un; ++p) {
    node[p] = migration.nodes.empty() ? static_cast<int>(p) : migration.nodes[p];
    if (node[p] < 0) throw std::invalid_argument("migration: producer " + std::to_string(p) + " on node " + std::to_string(node[p]));
    labels = std::max(labels, node[p] + 1);
  }
  std::vector<std::vector<int>> node_cpus = migration.node_cpus;
  if (node_cpus.empty()) {
    node_cpus.resize(static_cast<std::size_t>(labels));
    for (std::size_t p = 0; p < un; ++p) {
      std::vector<int>& cpus = node_cpus[static_cast<std::size_t>(node[p])];
      if (pool_->cpus[p] != kUnpinned && std::find(cpus.begin(), cpus.end(), pool_->cpus[p]) == cpus.end())
        cpus.push_back(pool_->cpus[p]);
    }
  } else if (node_cpus.size() < static_cast<std::size_t>(labels)) {
    throw std::invalid_argument("migration: CPUs for " + std::to_string(node_cpus.size()) + " nodes, but a producer is on node " +
                                std::to_string(labels - 1));
  }
  int highest = 0;
  for (int cpu : pool_->cpus) highest = std::max(highest, cpu);
  for (std::size_t m = 0; m < node_cpus.size(); ++m) {
    if (node_cpus[m].empty() && std::find(node.begin(), node.end(), static_cast<int>(m)) != node.end())
      throw std::invalid_argument("migration: node " + std::to_string(m) + " has producers but no CPUs to move to");
    for (int cpu : node_cpus[m]) {
      if (cpu < 0 || cpu >= CPU_SETSIZE)
        throw std::invalid_argument("migration: node " + std::to_string(m) + " lists CPU " + std::to_string(cpu));
      highest = std::max(highest, cpu);
    }
  }
  pool_->node_cpus = std::move(node_cpus);
  pool_->on_cpu.assign(static_cast<std::size_t>(highest) + 1, 0);
  for (int cpu : pool_->cpus)
    if (cpu != kUnpinned) ++pool_->on_cpu[static_cast<std::size_t>(cpu)];
  Migration labelled = migration;
  labelled.nodes = std::move(node);
  return run_steps(schedule, pieces, sync, &labelled, consume);
}

std::byte* Runner::state(int consumer) const {
  const Migration* m = pool_->migration;
  if (m == nullptr || m->state_bytes == 0) return nullptr;
  const auto c = static_cast<std::size_t>(consumer);
  const auto slot = m->copy ? static_cast<std::size_t>(pool_->state_at[c]) : c;  // plain migration: home
  return m->states[slot] + c * m->state_stride;
}

RunTiming Runner::run_steps(const Schedule& schedule, const PieceLayout& pieces, Sync sync, const Migration* migration,
                            const Consumer& consume) {
  const int n = threads();
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
  pool_->migration = migration;
  pool_->state_at.resize(un);
  for (std::size_t c = 0; c < un; ++c) pool_->state_at[c] = static_cast<int>(c);  // home
  if (migration != nullptr) {
    timing.moves.assign(un, 0);
    if (migration->copy) timing.copies.assign(un, 0);
  }

  pool_->run([&](int c) {
    const auto uc = static_cast<std::size_t>(c);
    bool failed = false;
    try {
      pin_current_thread(pool_->cpus[uc]);
    } catch (...) {
      keep(std::current_exception());
      failed = true;
    }
    int cpu_now = pool_->cpus[uc];
    pool_->barrier.arrive_and_wait();
    for (std::size_t k = 0; k < un; ++k) {
      if (!failed) {
        try {
          const int p = schedule.steps[k][uc];
          if (migration != nullptr) {
            const auto up = static_cast<std::size_t>(p);
            int& at = pool_->state_at[uc];  // the producer whose node the consumer is on (its state's slot when copying)
            if (migration->nodes[up] != migration->nodes[static_cast<std::size_t>(at)]) {
              if (migration->copy) {
                if (migration->state_bytes > 0)
                  std::memcpy(migration->states[up] + uc * migration->state_stride,
                              migration->states[static_cast<std::size_t>(at)] + uc * migration->state_stride, migration->state_bytes);
                ++timing.copies[uc];
              }
              at = p;
              const int cpu = pool_->take_cpu(cpu_now, pool_->node_cpus[static_cast<std::size_t>(migration->nodes[up])]);
              cpu_now = cpu;  // counted as there even if pinning fails: the next move leaves it
              pin_current_thread(cpu);
              ++timing.moves[uc];
            }
          }
          consume(c, pieces.piece(p, c), pieces.bytes(p, c));
        } catch (...) {
          keep(std::current_exception());
          failed = true;
        }
      }
      if (tight) pool_->barrier.arrive_and_wait();
    }
    thread_end[uc] = Clock::now();
    if (migration != nullptr && cpu_now != pool_->cpus[uc]) {  // untimed: home again
      try {
        pin_current_thread(pool_->cpus[uc]);
      } catch (...) {
        keep(std::current_exception());
      }
    }
  });
  pool_->migration = nullptr;
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
