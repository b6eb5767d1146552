#include "numatwin/validate/alloc/allocator_cost_bench.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace numatwin::validate {
namespace {

double now_ns() {
  return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Repetition {
  double malloc_ns = 0.0;
  double free_ns = 0.0;
  double realloc_ns = 0.0;
  double remote_free_ns = 0.0;
};

// One repetition at (threads, size): the per-operation means over the threads.
Repetition one_repetition(int threads, std::size_t size, std::size_t objects) {
  const auto t_count = static_cast<std::size_t>(threads);
  std::vector<std::vector<unsigned char*>> held(t_count, std::vector<unsigned char*>(objects, nullptr));
  std::vector<Repetition> per_thread(t_count);
  std::atomic<bool> failed{false};
  std::barrier sync(static_cast<std::ptrdiff_t>(threads));
  const auto allocate = [&](std::vector<unsigned char*>& mine, std::size_t bytes) {
    for (unsigned char*& p : mine) {
      p = static_cast<unsigned char*>(std::malloc(bytes));
      if (p == nullptr) {
        failed = true;
        return;
      }
      p[0] = static_cast<unsigned char>(bytes);
    }
  };
  const auto release = [](std::vector<unsigned char*>& list) {
    for (unsigned char*& p : list) {
      std::free(p);
      p = nullptr;
    }
  };
  auto worker = [&](std::size_t t) {
    std::vector<unsigned char*>& mine = held[t];
    Repetition& r = per_thread[t];
    const auto n = static_cast<double>(objects);
    // malloc, then local free
    sync.arrive_and_wait();
    double start = now_ns();
    allocate(mine, size);
    r.malloc_ns = (now_ns() - start) / n;
    sync.arrive_and_wait();
    start = now_ns();
    release(mine);
    r.free_ns = (now_ns() - start) / n;
    // realloc s/2 -> s
    allocate(mine, size / 2);
    for (unsigned char* p : mine) {
      if (p != nullptr) std::fill(p, p + size / 2, static_cast<unsigned char>(t));
    }
    sync.arrive_and_wait();
    start = now_ns();
    for (unsigned char*& p : mine) {
      if (p == nullptr) continue;
      auto* grown = static_cast<unsigned char*>(std::realloc(p, size));
      if (grown == nullptr) {
        failed = true;
        break;
      }
      p = grown;
      p[size - 1] = 1;
    }
    r.realloc_ns = (now_ns() - start) / n;
    release(mine);
    // remote free: thread t frees thread t+1's objects
    allocate(mine, size);
    sync.arrive_and_wait();
    if (threads > 1) {
      std::vector<unsigned char*>& theirs = held[(t + 1) % t_count];
      start = now_ns();
      release(theirs);
      r.remote_free_ns = (now_ns() - start) / n;
    }
    sync.arrive_and_wait();
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < t_count; ++t) pool.emplace_back(worker, t);
  for (std::thread& p : pool) p.join();
  if (threads == 1) {  // the objects the only worker allocated, freed by another thread
    std::thread other([&] {
      const double start = now_ns();
      release(held[0]);
      per_thread[0].remote_free_ns = (now_ns() - start) / static_cast<double>(objects);
    });
    other.join();
  }
  for (auto& list : held) release(list);  // after a failure
  if (failed) throw std::runtime_error("allocator cost benchmark: malloc or realloc returned no memory");
  Repetition mean;
  for (const Repetition& r : per_thread) {
    mean.malloc_ns += r.malloc_ns / threads;
    mean.free_ns += r.free_ns / threads;
    mean.realloc_ns += r.realloc_ns / threads;
    mean.remote_free_ns += r.remote_free_ns / threads;
  }
  return mean;
}

}  // namespace

std::vector<model::AllocatorCostPoint> run_allocator_cost_bench(const AllocatorCostBenchOptions& o) {
  if (o.max_threads < 1) throw std::invalid_argument("allocator cost benchmark: threads must be >= 1");
  if (o.repetitions < 1) throw std::invalid_argument("allocator cost benchmark: repetitions must be >= 1");
  for (std::int64_t s : o.sizes) {
    if (s < 2 || (s & (s - 1)) != 0)
      throw std::invalid_argument("allocator cost benchmark: size " + std::to_string(s) + " is not a power of two >= 2");
  }
  std::vector<model::AllocatorCostPoint> points;
  for (int threads = 1; threads <= o.max_threads; ++threads) {
    for (std::int64_t s : o.sizes) {
      const auto size = static_cast<std::size_t>(s);
      const std::size_t objects =
          std::clamp(static_cast<std::size_t>(o.bytes_per_size / static_cast<double>(s)), o.min_objects, o.max_objects);
      std::vector<double> m, f, re, rf;
      for (int rep = 0; rep < o.repetitions; ++rep) {
        const Repetition r = one_repetition(threads, size, objects);
        m.push_back(r.malloc_ns);
        f.push_back(r.free_ns);
        re.push_back(r.realloc_ns);
        rf.push_back(r.remote_free_ns);
      }
      points.push_back({threads, s, median(m), median(f), median(re), median(rf)});
    }
  }
  return points;
}

}  // namespace numatwin::validate
