// The cost microbenchmarks' shared machinery (private to validate/src): the buffers they run
// over, the timer that takes a repetition's median pass, and fresh input for loops whose
// branches depend on their data. cost_microbenchmarks.cpp runs the cache and core loops,
// cost_stream_microbenchmarks.cpp the loops over a memory-resident input.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/sim/workload/key_distribution.hpp"
#include "numatwin/validate/measure/cost_microbenchmarks.hpp"
#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/run/run_support.hpp"

namespace numatwin::validate::cost_bench {

inline constexpr std::uint64_t kSeed = 20261117;
inline constexpr std::size_t kHugePage = 2 * 1024 * 1024;
inline constexpr int kRadixBits = 8;              // 256 partitions (one-line write-combining buffers)
inline constexpr std::size_t kSmallGroups = 512;  // tables of 1024 entries of 16 bytes: 16 KiB, in L1

// Memory aligned to 2 MiB with transparent huge pages advised (as `validate measure` and the
// kernels' buffers), every page touched.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_((bytes + kHugePage - 1) / kHugePage * kHugePage) {
    data_ = static_cast<std::byte*>(std::aligned_alloc(kHugePage, bytes_));
    if (data_ == nullptr)
      throw std::runtime_error("cost microbenchmarks: cannot allocate " + std::to_string(bytes_) +
                               " bytes");
    (void)madvise(data_, bytes_,
                  MADV_HUGEPAGE);  // advice only: without THP the chase sees TLB misses too
    std::memset(data_, 0, bytes_);
  }
  ~Buffer() { std::free(data_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  [[nodiscard]] std::byte* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  template <typename T>
  [[nodiscard]] T* as() const {
    return reinterpret_cast<T*>(data_);
  }

 private:
  std::size_t bytes_;
  std::byte* data_ = nullptr;
};

// Seconds that `work` takes.
template <typename Work>
inline double timed(Work&& work) {
  const double t0 = now_seconds();
  work();
  return now_seconds() - t0;
}

inline void check(bool ok, const std::string& loop, const std::string& what) {
  if (!ok) throw std::runtime_error("cost microbenchmark " + loop + ": wrong result: " + what);
}

class Runner {
 public:
  Runner(const CostBenchmarkOptions& o, int total) : options_(o), total_(total) {
    target_s_ = o.seconds_per_timing > 0.0 ? o.seconds_per_timing : (o.quick ? 0.003 : 0.03);
  }

  [[nodiscard]] bool stopped() const { return options_.stop != nullptr && options_.stop->load(); }

  // Times `pass` (one pass; returns the seconds of its timed part): a warm-up pass, then
  // options.repetitions repetitions of as many passes as fill the target time, each repetition
  // taking the median of its passes (a pass during which the core ran something else, on a busy
  // machine, is an outlier, not a share of the mean). Records ns per unit; returns false when
  // stopped before it ran.
  template <typename Pass>
  bool time(const std::string& name, const std::string& unit, const std::string& loop,
            double units_per_pass, Pass&& pass) {
    if (stopped()) return false;
    if (options_.progress) options_.progress(done_, total_, name);
    const double first = std::max(pass(), 1e-7);
    const auto passes =
        static_cast<std::size_t>(std::clamp(std::ceil(target_s_ / first), 1.0, 1e6));
    std::vector<double> ns;
    std::vector<double> per_pass;
    for (int r = 0; r < std::max(1, options_.repetitions); ++r) ns.push_back(median_pass(pass, passes, units_per_pass, per_pass));
    record(name, unit, loop, ns);
    return true;
  }

  // One of the passes that time_interleaved() times together.
  struct Interleaved {
    std::string name;
    std::string unit;
    std::string loop;
    double units_per_pass = 1.0;
    std::function<double()> pass;  // one pass; returns the seconds of its timed part
    std::function<void()> warm;    // optional: brings the item's data back before its repetition
  };

  // Times `items` in interleaved rounds: a round runs each item in turn for one repetition (its
  // warm-up and an untimed pass, then as many passes as fill the target time, their median). Each
  // timing is the median over the rounds, so the timings of a sweep sample the same stretch of
  // time: on a VM whose LLC is shared with other tenants, what they leave moves within seconds,
  // and a sweep measured size after size (each in ~15 ms at --quick) saw a different LLC at each
  // size. Rounds: options.repetitions, or more until they span at least `window_s` seconds (at
  // most 400). Returns false when stopped before the first round.
  bool time_interleaved(std::vector<Interleaved>& items, double window_s) {
    if (stopped() || items.empty()) return false;
    if (options_.progress) options_.progress(done_, total_, items.front().name);
    std::vector<std::size_t> passes(items.size());
    double round_s = 0.0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const double warm_s = timed([&] {
        if (items[i].warm) items[i].warm();
        (void)items[i].pass();
      });
      const double first = std::max(items[i].pass(), 1e-7);
      passes[i] = static_cast<std::size_t>(std::clamp(std::ceil(target_s_ / first), 1.0, 1e6));
      round_s += warm_s + first * static_cast<double>(passes[i] + 1);
    }
    const int rounds = std::clamp(static_cast<int>(std::ceil(window_s / std::max(round_s, 1e-9))),
                                  std::max(1, options_.repetitions), std::max(400, options_.repetitions));
    std::vector<std::vector<double>> ns(items.size());
    std::vector<double> per_pass;
    for (int r = 0; r < rounds && !(r > 0 && stopped()); ++r) {
      for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i].warm) items[i].warm();  // the previous item's data has pushed this one's out
        (void)items[i].pass();
        ns[i].push_back(median_pass(items[i].pass, passes[i], items[i].units_per_pass, per_pass));
      }
    }
    for (std::size_t i = 0; i < items.size(); ++i) record(items[i].name, items[i].unit, items[i].loop, ns[i]);
    return true;
  }

  void record(const std::string& name, const std::string& unit, const std::string& loop,
              std::vector<double> ns) {
    std::sort(ns.begin(), ns.end());
    const std::size_t n = ns.size();
    CostTiming t;
    t.name = name;
    t.unit = unit;
    t.loop = loop;
    t.median_ns = n % 2 == 1 ? ns[n / 2] : 0.5 * (ns[n / 2 - 1] + ns[n / 2]);
    t.low_ns = ns.front();
    t.high_ns = ns.back();
    result.timings.push_back(std::move(t));
    ++done_;
  }

  CostTimings result;

 private:
  // One repetition: `passes` passes of `pass`, the median in ns per unit (`scratch` keeps the
  // passes' times).
  template <typename Pass>
  static double median_pass(Pass& pass, std::size_t passes, double units_per_pass, std::vector<double>& scratch) {
    scratch.resize(passes);
    for (double& x : scratch) x = pass() * 1e9 / units_per_pass;
    const auto middle = scratch.begin() + static_cast<std::ptrdiff_t>(passes / 2);
    std::nth_element(scratch.begin(), middle, scratch.end());
    return *middle;
  }

  const CostBenchmarkOptions& options_;
  int total_;
  int done_ = 0;
  double target_s_ = 0.03;
};

// Tuples with keys drawn uniformly from `groups` groups (the generator of the kernels' data).
inline std::vector<Tuple> uniform_tuples(std::size_t n, double groups, std::uint64_t seed) {
  const KeyGenerator gen(sim::parse_key_distribution("uniform", groups), n, seed);
  std::vector<Tuple> out(n);
  gen.fill_tuples(0, out);
  return out;
}

// Fresh input for every pass: n tuples with keys drawn uniformly from `groups` groups, the next
// rows of one generator each time (rows never repeat), generated untimed. A loop whose branches
// depend on its keys must not see the same input twice: the branch predictor learns it
// (aggregate_piece over one 16384-tuple input, 512 groups: 2.1 ns a tuple by the 30th pass
// against 6.9 ns on fresh data, on this project's build VM, 2026-11-24), and the kernels never
// see an input twice.
class FreshTuples {
 public:
  FreshTuples(double groups, std::size_t n, std::uint64_t seed)
      : generator_(sim::parse_key_distribution("uniform", groups), std::uint64_t{1} << 40, seed), tuples_(n) {}
  // The next n tuples.
  const std::vector<Tuple>& next() {
    generator_.fill_tuples(row_, tuples_);
    row_ += tuples_.size();
    return tuples_;
  }
  [[nodiscard]] std::uint64_t rows() const { return row_; }

 private:
  KeyGenerator generator_;
  std::vector<Tuple> tuples_;
  std::uint64_t row_ = 0;
};

// One pass of the stream loops (cost_stream_microbenchmarks.cpp): COUNT into a table in the
// private cache and the array filter, each over a cache-resident and a memory-resident input of
// `memory_bytes`.
void time_stream_loops(Runner& run, const CostBenchmarkOptions& o, std::size_t memory_bytes);

// The operator loops on cache-resident data (cost_operator_microbenchmarks.cpp); `input`: the
// table loops' input (its size is theirs), the radix join's scatter reads it.
void time_operator_loops(Runner& run, const CostBenchmarkOptions& o, const std::vector<Tuple>& input);

}  // namespace numatwin::validate::cost_bench
