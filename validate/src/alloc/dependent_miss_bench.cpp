#include "numatwin/validate/alloc/dependent_miss_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace numatwin::validate {
namespace {

constexpr std::size_t kPrefetch = 32;  // the kernels' kPrefetchDistance
constexpr double kMinMissShare = 0.05;
constexpr int kUnitProbe = 8;  // work units per item when timing the unit alone

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct alignas(64) Line {
  std::uint64_t next = 0;  // the chain: the next line's index
  std::uint64_t value = 0;
  std::uint64_t pad[6] = {};
};

inline std::uint64_t finaliser(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

inline std::uint64_t work(std::uint64_t i, int units) {
  std::uint64_t x = i;
  for (int j = 0; j < units; ++j) {
    x = finaliser(x + static_cast<std::uint64_t>(j));
    asm volatile("" : "+r"(x));  // one unit each: not vectorised, not folded
  }
  return x;
}

// One pass of the loop at the top of the header; returns seconds. The item that takes the miss
// (the first of its group of k) reads, by `mode`:
enum class Mode : int {
  kNone = 0,       // its head's link word (no further line)
  kFirst = 1,      // word 1 of the line its head links to: a dependent miss
  kSecond = 2,     // that, and word 1 of the line that line links to: a miss behind the miss
  kSplitHead = 3,  // its head's last word and the first word of the line after the head (not prefetched)
  kSplitMiss = 4,  // the last word of the line its head links to and the first word of the line after it
};
constexpr int kModes = 5;

double pass(const std::vector<Line>& buf, const std::vector<std::uint32_t>& heads, std::size_t n, std::size_t k, int units, Mode mode) {
  std::uint64_t sink = 0;
  const std::size_t lines = buf.size();
  const double start = now_s();
  for (std::size_t g = 0; g < n; g += k) {
    const std::size_t end = std::min(n, g + k);
    for (std::size_t i = g; i < end; ++i) {
      __builtin_prefetch(&buf[heads[i + kPrefetch]]);
      const Line& head = buf[heads[i]];
      std::uint64_t v = head.value;
      if (i != g || mode == Mode::kNone) {
        v += head.next;
      } else if (mode == Mode::kFirst) {
        v += buf[head.next].value;
      } else if (mode == Mode::kSecond) {
        const Line& first = buf[head.next];
        v += first.value + buf[first.next].value;
      } else if (mode == Mode::kSplitHead) {
        v += head.pad[5] + buf[(heads[i] + 1) % lines].next;
      } else {
        v += buf[head.next].pad[5] + buf[(head.next + 1) % lines].next;
      }
      sink += v ^ work(i, units);
    }
  }
  asm volatile("" : : "r"(sink));  // the loads and the work are what is timed: keep them
  return now_s() - start;
}

double compute_pass(std::size_t items, int units) {
  std::uint64_t sink = 0;
  const double start = now_s();
  for (std::size_t i = 0; i < items; ++i) sink += work(i, units);
  asm volatile("" : : "r"(sink));
  return now_s() - start;
}

}  // namespace

double derive_miss_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes) {
  if (rounds.empty()) throw std::invalid_argument("dependent-miss benchmark: no rounds");
  if (!(footprint_bytes >= 0.0) || !(llc_bytes >= 0.0)) throw std::invalid_argument("dependent-miss benchmark: bytes must be >= 0");
  const double miss = footprint_bytes > 0.0 ? std::max(kMinMissShare, 1.0 - std::min(1.0, llc_bytes / footprint_bytes)) : kMinMissShare;
  double with_s = rounds.front().with_miss_s;
  double without_s = rounds.front().without_miss_s;
  for (const DependentMissRound& r : rounds) {
    if (!(r.misses > 0.0) || r.misses != rounds.front().misses)
      throw std::invalid_argument("dependent-miss benchmark: a round took no misses, or not as many as the others");
    with_s = std::min(with_s, r.with_miss_s);
    without_s = std::min(without_s, r.without_miss_s);
  }
  return std::max(0.0, (with_s - without_s) / rounds.front().misses / miss * 1e9);
}

double derive_second_miss_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes) {
  std::vector<DependentMissRound> shifted = rounds;
  for (DependentMissRound& r : shifted) {
    if (!(r.second_miss_s > 0.0)) throw std::invalid_argument("dependent-miss benchmark: a round without the second-miss pass");
    r.without_miss_s = r.with_miss_s;  // the first miss is the base of the second
    r.with_miss_s = r.second_miss_s;
  }
  return derive_miss_ns(shifted, footprint_bytes, llc_bytes);
}

double derive_split_head_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes) {
  std::vector<DependentMissRound> shifted = rounds;
  for (DependentMissRound& r : shifted) {
    if (!(r.split_head_s > 0.0)) throw std::invalid_argument("dependent-miss benchmark: a round without the split-head pass");
    r.with_miss_s = r.split_head_s;  // against the loop without misses
  }
  return derive_miss_ns(shifted, footprint_bytes, llc_bytes);
}

double derive_split_miss_ns(const std::vector<DependentMissRound>& rounds, double footprint_bytes, double llc_bytes) {
  std::vector<DependentMissRound> shifted = rounds;
  for (DependentMissRound& r : shifted) {
    if (!(r.split_miss_s > 0.0)) throw std::invalid_argument("dependent-miss benchmark: a round without the split-miss pass");
    r.without_miss_s = r.with_miss_s;  // the one-line miss is the base
    r.with_miss_s = r.split_miss_s;
  }
  return derive_miss_ns(shifted, footprint_bytes, llc_bytes);
}

double derive_work_unit_ns(double work_s, double base_s, int units, double items) {
  if (units <= 0 || !(items > 0.0)) throw std::invalid_argument("dependent-miss benchmark: units and items must be > 0");
  return std::max(0.0, work_s - base_s) / (units * items) * 1e9;
}

model::DependentMissGrid run_dependent_miss_bench(const DependentMissBenchOptions& o) {
  for (int k : o.items_per_miss)
    if (k < 1) throw std::invalid_argument("dependent-miss benchmark: items per miss must be >= 1, found " + std::to_string(k));
  for (int w : o.work_units)
    if (w < 0) throw std::invalid_argument("dependent-miss benchmark: work units must be >= 0, found " + std::to_string(w));
  if (o.items_per_miss.empty() || o.work_units.empty()) throw std::invalid_argument("dependent-miss benchmark: an empty grid");
  if (o.rounds < 1) throw std::invalid_argument("dependent-miss benchmark: rounds must be >= 1");
  if (o.misses < 64) throw std::invalid_argument("dependent-miss benchmark: misses must be >= 64");
  if (!(o.footprint_bytes >= 1024.0 * 1024.0)) throw std::invalid_argument("dependent-miss benchmark: footprint must be >= 1 MiB");
  const auto lines = static_cast<std::size_t>(o.footprint_bytes / sizeof(Line));
  std::mt19937_64 rng(0x5EED0D3A11ULL);
  // The random chain: one cycle through every line (Sattolo's shuffle of the identity).
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0U);
  for (std::size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng() % i]);
  std::vector<Line> buf(lines);
  for (std::size_t i = 0; i < lines; ++i) {
    buf[i].next = order[i];
    buf[i].value = i;
  }
  order.clear();
  order.shrink_to_fit();
  const auto max_k = static_cast<std::size_t>(*std::max_element(o.items_per_miss.begin(), o.items_per_miss.end()));
  std::vector<std::uint32_t> heads(o.misses * max_k + kPrefetch);
  for (std::uint32_t& h : heads) h = static_cast<std::uint32_t>(rng() % lines);
  model::DependentMissGrid grid;
  double base_s = 1e300;
  double work_s = 1e300;
  for (int r = 0; r < o.rounds; ++r) {
    const bool base_first = r % 2 == 0;
    const double a = compute_pass(o.misses, base_first ? 0 : kUnitProbe);
    const double b = compute_pass(o.misses, base_first ? kUnitProbe : 0);
    base_s = std::min(base_s, base_first ? a : b);
    work_s = std::min(work_s, base_first ? b : a);
  }
  grid.work_unit_ns = std::max(1e-3, derive_work_unit_ns(work_s, base_s, kUnitProbe, static_cast<double>(o.misses)));
  for (int k : o.items_per_miss) {
    for (int w : o.work_units) {
      std::vector<DependentMissRound> rounds;
      const auto kk = static_cast<std::size_t>(k);
      const std::size_t items = o.misses * kk;
      for (int r = 0; r < o.rounds; ++r) {
        DependentMissRound round;
        round.misses = static_cast<double>(o.misses);
        double* seconds[kModes] = {&round.without_miss_s, &round.with_miss_s, &round.second_miss_s, &round.split_head_s,
                                   &round.split_miss_s};
        for (int j = 0; j < kModes; ++j) {  // the order rotates: 0 1 2 3 4, 1 2 3 4 0, ...
          const int mode = (r + j) % kModes;
          *seconds[mode] = pass(buf, heads, items, kk, w, static_cast<Mode>(mode));
        }
        rounds.push_back(round);
      }
      model::DependentMissPoint point;
      point.items_per_miss = static_cast<double>(k);
      point.work_units = static_cast<double>(w);
      point.miss_ns = derive_miss_ns(rounds, o.footprint_bytes, o.llc_bytes);
      point.second_miss_ns = derive_second_miss_ns(rounds, o.footprint_bytes, o.llc_bytes);
      point.split_head_ns = derive_split_head_ns(rounds, o.footprint_bytes, o.llc_bytes);
      point.split_miss_ns = derive_split_miss_ns(rounds, o.footprint_bytes, o.llc_bytes);
      grid.points.push_back(point);
    }
  }
  return grid;
}

}  // namespace numatwin::validate
