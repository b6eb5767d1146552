#include "numatwin/validate/alloc/allocator_layout_bench.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>
#include <thread>

namespace numatwin::validate {
namespace {

constexpr std::size_t kPrefetch = 32;  // the kernels' kPrefetchDistance
constexpr double kMinMissShare = 0.05;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Shared {
  std::barrier<>* sync = nullptr;
  std::atomic<bool>* failed = nullptr;
  // The shared pass: every thread's objects and second sample, written before the first barrier
  // of scattered_passes and read after it.
  std::vector<std::vector<std::uint64_t*>*>* pools = nullptr;
  std::vector<std::vector<std::uint32_t>*>* second_samples = nullptr;
};

// The dependent-access passes over K objects of `size` bytes (top of the header).
void dependent_passes(std::size_t size, std::size_t objects, std::size_t accesses, std::uint64_t seed, Shared sh, LayoutTimings& t) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t*> obj(objects, nullptr);
  for (std::uint64_t*& p : obj) {
    p = static_cast<std::uint64_t*>(std::malloc(size));
    if (p == nullptr) {
      *sh.failed = true;
      break;
    }
    std::memset(p, 0, size);
  }
  const bool ok = !*sh.failed;
  const std::size_t lines = size / 64;
  if (ok) {
    for (std::uint64_t* p : obj) {
      p[0] = lines > 1 ? 8 * (1 + rng() % (lines - 1)) : 2;
      p[1] = reinterpret_cast<std::uint64_t>(obj[rng() % objects]);
      p[2] = 0;
      p[3] = 0;
    }
  }
  std::vector<std::uint32_t> seq(accesses);
  for (std::uint32_t& x : seq) x = static_cast<std::uint32_t>(rng() % objects);
  std::uint64_t sink = 0;
  const std::size_t n = ok ? accesses : 0;
  sh.sync->arrive_and_wait();
  double start = now_s();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetch < n) __builtin_prefetch(obj[seq[i + kPrefetch]], 1, 3);
    obj[seq[i]][2] = i;
  }
  t.base_write_s = now_s() - start;
  sh.sync->arrive_and_wait();
  start = now_s();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetch < n) __builtin_prefetch(obj[seq[i + kPrefetch]], 1, 3);
    std::uint64_t* p = obj[seq[i]];
    p[p[0]] = i;
  }
  t.dependent_write_s = now_s() - start;
  // The same writes, each inside a lock (a locked fetch_or on the thread's own, always cached,
  // lock word, released by a store), as the kernels' concurrent tables lock a slot per update:
  // the next lock waits for the write before it, so its miss is not left to drain behind.
  alignas(64) std::atomic<std::uint64_t> lock{0};
  sh.sync->arrive_and_wait();
  start = now_s();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetch < n) __builtin_prefetch(obj[seq[i + kPrefetch]], 1, 3);
    while (lock.fetch_or(1, std::memory_order_acquire) & 1) {
    }
    std::uint64_t* p = obj[seq[i]];
    p[p[0]] = i;
    lock.store(0, std::memory_order_release);
  }
  t.locked_write_s = now_s() - start;
  sh.sync->arrive_and_wait();
  start = now_s();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetch < n) __builtin_prefetch(obj[seq[i + kPrefetch]], 0, 3);
    sink += obj[seq[i]][3];
  }
  t.base_read_s = now_s() - start;
  sh.sync->arrive_and_wait();
  start = now_s();
  for (std::size_t i = 0; i < n; ++i) {
    if (i + kPrefetch < n) __builtin_prefetch(obj[seq[i + kPrefetch]], 0, 3);
    sink += reinterpret_cast<const std::uint64_t*>(obj[seq[i]][1])[3];
  }
  t.dependent_read_s = now_s() - start;
  // Block reads: each object read whole, the next one's index waiting for this one's sum.
  volatile std::uint64_t hidden_zero = 0;
  const std::uint64_t z = hidden_zero;
  const std::size_t words = size / 8;
  const std::size_t blocks = ok ? std::max<std::size_t>(1, accesses / 4) : 0;
  const auto block_chain = [&](auto&& index) {
    std::uint64_t sum = 0;
    sh.sync->arrive_and_wait();
    const double begin = now_s();
    for (std::size_t i = 0; i < blocks; ++i) {
      const std::uint64_t* p = obj[index(i) + (sum & z)];
      for (std::size_t k = 0; k < words; ++k) sum += p[k];
    }
    sink += sum;
    return now_s() - begin;
  };
  t.block_read_s = block_chain([&](std::size_t i) { return seq[i]; });
  t.block_hot_s = block_chain([&](std::size_t i) { return seq[i & 7]; });
  t.blocks = static_cast<double>(blocks);
  t.accesses = static_cast<double>(accesses);
  for (std::uint64_t* p : obj) std::free(p);
  if (sink == 1) t.accesses += 0.0;  // keeps the reads
}

// The scattered realloc and free passes (top of the header).
void scattered_passes(std::size_t thread, std::size_t size, std::size_t objects, std::size_t sampled, std::uint64_t seed, Shared sh,
                      LayoutTimings& t) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t*> obj(objects, nullptr);
  for (std::uint64_t*& p : obj) {
    p = static_cast<std::uint64_t*>(std::malloc(size / 2));
    if (p == nullptr) {
      *sh.failed = true;
      break;
    }
    std::memset(p, 1, size / 2);
  }
  std::vector<std::uint32_t> order(objects);
  std::iota(order.begin(), order.end(), 0u);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::uint32_t> sample(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(sampled));
  // The shared pass's sample: the next `sampled` objects of the same random order (disjoint).
  const std::size_t threads = sh.pools->size();
  std::vector<std::uint32_t> second;
  if (threads > 1)
    second.assign(order.begin() + static_cast<std::ptrdiff_t>(sampled), order.begin() + static_cast<std::ptrdiff_t>(2 * sampled));
  (*sh.pools)[thread] = &obj;
  (*sh.second_samples)[thread] = &second;
  const std::size_t n = *sh.failed ? 0 : sampled;
  std::uint64_t sink = 0;
  // One timed pass over the sample in a fresh random order, every thread starting together;
  // `visit` returns false to stop (a failed realloc).
  const auto timed_pass = [&](auto&& visit) {
    std::shuffle(sample.begin(), sample.end(), rng);
    sh.sync->arrive_and_wait();
    const double start = now_s();
    for (std::size_t i = 0; i < n; ++i)
      if (!visit(obj[sample[i]], i)) break;
    return now_s() - start;
  };
  t.touch_s = timed_pass([&](std::uint64_t* p, std::size_t) {
    sink += p[0];
    return true;
  });
  t.realloc_s = timed_pass([&](std::uint64_t*& p, std::size_t i) {
    sink += p[0];
    auto* grown = static_cast<std::uint64_t*>(std::realloc(p, size));
    if (grown == nullptr) {
      *sh.failed = true;
      return false;
    }
    p = grown;
    p[size / 8 - 1] = i;
    return true;
  });
  t.free_s = timed_pass([&](std::uint64_t*& p, std::size_t) {
    sink += p[0];
    std::free(p);
    p = nullptr;
    return true;
  });
  // Reuse: as many mallocs of `size` bytes as were just freed in a random order; whatever the
  // allocator hands out first is what it keeps of those frees (a free list through cold objects,
  // a slab's bitmap, ...). Nothing is written to the objects: the call only.
  std::vector<std::uint64_t*> again(n, nullptr);
  sh.sync->arrive_and_wait();
  const double reuse_start = now_s();
  for (std::size_t i = 0; i < n; ++i) {
    again[i] = static_cast<std::uint64_t*>(std::malloc(size));
    if (again[i] == nullptr) {
      *sh.failed = true;
      break;
    }
  }
  t.reuse_malloc_s = now_s() - reuse_start;
  if (threads > 1) {
    // Run after the reuse pass, not before it: the chained join, which reads the reuse figure,
    // never reallocs across threads, and right after this pass glibc's reuse figure doubled
    // (2 threads, 32 B: 320 ns, against 168 ns without the pass; 2026-11-27).
    // Thread t grows entry e of every thread's second sample for e = t mod T, visiting the pools
    // in turn: (T - 1) / T of its reallocs are of objects another thread allocated, and every
    // thread's blocks are grown by every thread at once, as in a table all threads share.
    // Each grow inside a lock taken by a locked read-modify-write, as a table the threads share
    // is (the kernels' slot lock): the lock waits for the stores before it, the previous copy's
    // among them. The lock word is the thread's own (always cached): its line's miss is the
    // table's, not the allocator's.
    alignas(64) std::atomic<std::uint64_t> lock{0};
    sh.sync->arrive_and_wait();
    const double start = now_s();
    std::size_t done = 0;
    for (std::size_t k = 0; k < sampled && !*sh.failed; ++k) {
      const std::size_t pool = k % threads;
      const std::size_t entry = k - pool + thread;
      if (entry >= sampled) continue;
      while (lock.fetch_or(1, std::memory_order_acquire) & 1) {
      }
      std::uint64_t*& p = (*(*sh.pools)[pool])[(*(*sh.second_samples)[pool])[entry]];
      sink += p[0];
      auto* grown = static_cast<std::uint64_t*>(std::realloc(p, size));
      if (grown == nullptr) {
        *sh.failed = true;
        lock.store(0, std::memory_order_release);
        break;
      }
      p = grown;
      p[size / 8 - 1] = k;
      lock.store(0, std::memory_order_release);
      ++done;
    }
    t.shared_realloc_s = now_s() - start;
    t.shared_sampled = static_cast<double>(done);
    // Every thread done with the others' pools before any frees its own.
    sh.sync->arrive_and_wait();
  }
  for (std::uint64_t* p : again) std::free(p);
  t.sampled = static_cast<double>(sampled);
  for (std::uint64_t* p : obj) std::free(p);
  asm volatile("" : : "r"(sink));  // the loads are the work: keep them
}

}  // namespace

LayoutCosts derive_layout_costs(const LayoutTimings& t, double footprint_bytes, double llc_bytes) {
  if (!(t.accesses > 0.0) || !(t.sampled > 0.0)) throw std::invalid_argument("allocator layout: no accesses or objects measured");
  if (!(footprint_bytes >= 0.0) || !(llc_bytes >= 0.0)) throw std::invalid_argument("allocator layout: bytes must be >= 0");
  const double miss = footprint_bytes > 0.0 ? std::max(kMinMissShare, 1.0 - std::min(1.0, llc_bytes / footprint_bytes)) : kMinMissShare;
  LayoutCosts c;
  c.dependent_write_ns = std::max(0.0, t.dependent_write_s - t.base_write_s) / t.accesses / miss * 1e9;
  c.dependent_read_ns = std::max(0.0, t.dependent_read_s - t.base_read_s) / t.accesses / miss * 1e9;
  if (t.blocks > 0.0) c.block_read_ns = std::max(0.0, t.block_read_s - t.block_hot_s) / t.blocks / miss * 1e9;
  if (t.reuse_malloc_s > 0.0) c.reuse_malloc_ns = t.reuse_malloc_s / t.sampled * 1e9;
  if (t.locked_write_s > 0.0) c.locked_write_ns = std::max(0.0, t.locked_write_s - t.dependent_write_s) / t.accesses / miss * 1e9;
  c.scattered_realloc_ns = std::max(0.0, t.realloc_s - t.touch_s) / t.sampled * 1e9;
  c.scattered_free_ns = std::max(0.0, t.free_s - t.touch_s) / t.sampled * 1e9;
  if (t.shared_sampled > 0.0) c.shared_realloc_ns = std::max(0.0, t.shared_realloc_s - t.touch_s / t.sampled * t.shared_sampled) / t.shared_sampled * 1e9;
  return c;
}

std::vector<model::AllocatorLayoutPoint> run_allocator_layout_bench(const AllocatorLayoutBenchOptions& o) {
  if (o.max_threads < 1) throw std::invalid_argument("allocator layout benchmark: threads must be >= 1");
  if (o.repetitions < 1) throw std::invalid_argument("allocator layout benchmark: repetitions must be >= 1");
  for (std::int64_t s : o.sizes) {
    if (s < 32 || (s & (s - 1)) != 0)
      throw std::invalid_argument("allocator layout benchmark: size " + std::to_string(s) + " is not a power of two >= 32");
  }
  std::vector<model::AllocatorLayoutPoint> points;
  for (int threads = 1; threads <= o.max_threads; ++threads) {
    for (std::int64_t s : o.sizes) {
      const auto size = static_cast<std::size_t>(s);
      const std::size_t objects = std::max<std::size_t>(64, static_cast<std::size_t>(o.bytes_per_thread / static_cast<double>(s)));
      // Two disjoint samples when there is a shared pass (threads > 1).
      const std::size_t sampled = std::min(threads > 1 ? objects / 2 : objects, o.max_sampled);
      std::vector<double> dw, dr, sr, sf, shr, lw, rm, br;
      for (int rep = 0; rep < o.repetitions; ++rep) {
        const auto t_count = static_cast<std::size_t>(threads);
        std::vector<LayoutTimings> per_thread(t_count);
        std::atomic<bool> failed{false};
        std::barrier<> sync(static_cast<std::ptrdiff_t>(threads));
        std::vector<std::vector<std::uint64_t*>*> pools(t_count, nullptr);
        std::vector<std::vector<std::uint32_t>*> second_samples(t_count, nullptr);
        const Shared sh{&sync, &failed, &pools, &second_samples};
        std::vector<std::thread> pool;
        for (std::size_t t = 0; t < t_count; ++t) {
          pool.emplace_back([&, t] {
            const std::uint64_t seed = 0x9E3779B97F4A7C15ULL * (t + 1) + static_cast<std::uint64_t>(rep) * 7919 + size;
            dependent_passes(size, objects, o.accesses, seed, sh, per_thread[t]);
            scattered_passes(t, size, objects, sampled, seed + 1, sh, per_thread[t]);
          });
        }
        for (std::thread& p : pool) p.join();
        if (failed) throw std::runtime_error("allocator layout benchmark: malloc or realloc returned no memory");
        LayoutCosts mean;
        for (const LayoutTimings& t : per_thread) {
          const LayoutCosts c = derive_layout_costs(t, o.bytes_per_thread * threads, o.llc_bytes);
          mean.dependent_write_ns += c.dependent_write_ns / threads;
          mean.dependent_read_ns += c.dependent_read_ns / threads;
          mean.scattered_realloc_ns += c.scattered_realloc_ns / threads;
          mean.scattered_free_ns += c.scattered_free_ns / threads;
          mean.shared_realloc_ns += c.shared_realloc_ns / threads;
          mean.locked_write_ns += c.locked_write_ns / threads;
          mean.reuse_malloc_ns += c.reuse_malloc_ns / threads;
          mean.block_read_ns += c.block_read_ns / threads;
        }
        dw.push_back(mean.dependent_write_ns);
        dr.push_back(mean.dependent_read_ns);
        sr.push_back(mean.scattered_realloc_ns);
        sf.push_back(mean.scattered_free_ns);
        shr.push_back(mean.shared_realloc_ns);
        lw.push_back(mean.locked_write_ns);
        rm.push_back(mean.reuse_malloc_ns);
        br.push_back(mean.block_read_ns);
      }
      points.push_back({threads, s, median(sr), median(sf), median(dw), median(dr), threads > 1 ? median(shr) : 0.0, median(lw),
                        median(rm), median(br)});
    }
  }
  return points;
}

}  // namespace numatwin::validate
