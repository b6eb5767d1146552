#include "numatwin/validate/measure/tlb_microbenchmark.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "numatwin/validate/measure/memory_kernels.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"
#include "numatwin/validate/host/thread_team.hpp"

namespace numatwin::validate {
namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;
constexpr std::size_t kWordsPerLine = kCacheLineBytes / sizeof(std::uint64_t);
constexpr std::size_t kStepsPerPass = 8192;
constexpr std::uint64_t kSeed = 20261126;

// An anonymous mapping of `bytes` (a multiple of 2 MiB), 2 MiB-aligned, advised `huge` or not,
// filled with the same random values at the start of every line.
class WalkBuffer {
 public:
  WalkBuffer(std::size_t bytes, bool huge) : bytes_(bytes) {
    mapped_ = mmap(nullptr, bytes_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped_ == MAP_FAILED) throw std::runtime_error("TLB microbenchmark: cannot map " + std::to_string(bytes_) + " bytes");
    const auto at = reinterpret_cast<std::uintptr_t>(mapped_);
    data_ = reinterpret_cast<std::uint64_t*>((at + kHuge - 1) / kHuge * kHuge);
    (void)madvise(data_, bytes_, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    std::uint64_t seed = kSeed;
    const std::size_t lines = bytes_ / kCacheLineBytes;
    for (std::size_t l = 0; l < lines; ++l) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      data_[l * kWordsPerLine] = seed >> 11;
    }
  }
  ~WalkBuffer() { munmap(mapped_, bytes_ + kHuge); }
  WalkBuffer(const WalkBuffer&) = delete;
  WalkBuffer& operator=(const WalkBuffer&) = delete;
  [[nodiscard]] const std::uint64_t* data() const { return data_; }
  [[nodiscard]] std::size_t lines() const { return bytes_ / kCacheLineBytes; }

  // The share of the buffer that /proc/self/smaps says is on huge pages (AnonHugePages of the
  // mapping holding it); -1 when unreadable.
  [[nodiscard]] double huge_page_share() const {
    std::ifstream in("/proc/self/smaps");
    if (!in) return -1.0;
    const auto begin = reinterpret_cast<std::uintptr_t>(mapped_);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
      unsigned long long lo = 0;
      unsigned long long hi = 0;
      if (std::sscanf(line.c_str(), "%llx-%llx ", &lo, &hi) == 2 && line.find(':') > line.find(' ')) {
        inside = lo <= begin && begin < hi;
        continue;
      }
      if (!inside || line.rfind("AnonHugePages:", 0) != 0) continue;
      std::istringstream fields(line.substr(14));
      double kib = 0.0;
      fields >> kib;
      return std::min(1.0, kib * 1024.0 / static_cast<double>(bytes_));
    }
    return -1.0;
  }

 private:
  std::size_t bytes_;
  void* mapped_ = nullptr;
  std::uint64_t* data_ = nullptr;
};

// Dependent loads of independently drawn random lines (each line a hash of the previous value and
// the step).
std::uint64_t walk(const std::uint64_t* data, std::uint64_t lines, std::uint64_t x, std::uint64_t first, std::size_t steps) {
  for (std::uint64_t i = first; i < first + steps; ++i) {
    const std::uint64_t h = (x ^ i) * 0x9E3779B97F4A7C15ULL;
    const auto line = static_cast<std::uint64_t>((static_cast<WideProduct>(h) * lines) >> 64);
    x = data[line * kWordsPerLine];
  }
  return x;
}

// kParallelChains independent walks advanced together: their loads overlap.
std::uint64_t parallel_walk(const std::uint64_t* data, std::uint64_t lines, std::uint64_t* x, std::uint64_t first,
                            std::size_t steps) {
  for (std::uint64_t i = first; i < first + steps; ++i) {
    for (int c = 0; c < kParallelChains; ++c) {
      const std::uint64_t h = (x[c] ^ (i * kParallelChains + static_cast<std::uint64_t>(c))) * 0x9E3779B97F4A7C15ULL;
      x[c] = data[static_cast<std::uint64_t>((static_cast<WideProduct>(h) * lines) >> 64) * kWordsPerLine];
    }
  }
  std::uint64_t sum = 0;
  for (int c = 0; c < kParallelChains; ++c) sum += x[c];
  return sum;
}

// ns per load: the median over the repetitions of each repetition's median pass.
std::optional<TlbWalkTiming> time_walk(const WalkBuffer& buffer, const TlbBenchmarkOptions& options, bool parallel) {
  const std::size_t passes = options.quick ? 8 : 32;
  std::uint64_t x = 1;
  std::uint64_t step = 0;
  std::uint64_t chains[kParallelChains];
  for (int c = 0; c < kParallelChains; ++c) chains[c] = static_cast<std::uint64_t>(c) + 1;
  auto pass = [&] {
    const double t0 = now_seconds();
    if (parallel) {
      const std::size_t steps = kStepsPerPass / kParallelChains;
      x += parallel_walk(buffer.data(), buffer.lines(), chains, step, steps);
      step += steps;
    } else {
      x = walk(buffer.data(), buffer.lines(), x, step, kStepsPerPass);
      step += kStepsPerPass;
    }
    return (now_seconds() - t0) * 1e9 / static_cast<double>(kStepsPerPass);
  };
  for (int warm = 0; warm < 4; ++warm) (void)pass();
  std::vector<double> medians;
  std::vector<double> per_pass(passes);
  for (int r = 0; r < std::max(1, options.repetitions); ++r) {
    if (options.stop != nullptr && options.stop->load()) return std::nullopt;
    for (double& t : per_pass) t = pass();
    std::nth_element(per_pass.begin(), per_pass.begin() + static_cast<std::ptrdiff_t>(passes / 2), per_pass.end());
    medians.push_back(per_pass[passes / 2]);
  }
  asm volatile("" : : "r"(x));
  std::sort(medians.begin(), medians.end());
  TlbWalkTiming t;
  t.median_ns = medians[medians.size() / 2];
  t.low_ns = medians.front();
  t.high_ns = medians.back();
  t.huge_page_share = buffer.huge_page_share();
  return t;
}

std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v);
  return text;
}

}  // namespace

std::optional<CpuidTlb> read_cpuid_tlb() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return std::nullopt;
  const bool amd = b == 0x68747541 && d == 0x69746e65 && c == 0x444d4163;  // "AuthenticAMD"
  if (!amd) return std::nullopt;
  CpuidTlb t;
  if (__get_cpuid(0x80000005, &a, &b, &c, &d) == 0) return std::nullopt;
  t.l1_entries_2m = static_cast<int>((a >> 16) & 0xff);
  t.l1_entries_4k = static_cast<int>((b >> 16) & 0xff);
  if (__get_cpuid(0x80000006, &a, &b, &c, &d) == 0) return std::nullopt;
  t.stlb_entries_2m = static_cast<int>((a >> 16) & 0xfff);
  t.stlb_entries_4k = static_cast<int>((b >> 16) & 0xfff);
  if (t.l1_entries_4k == 0 || t.stlb_entries_4k == 0) return std::nullopt;
  t.source = "CPUID 0x80000005/0x80000006 (AMD)";
  return t;
#else
  return std::nullopt;
#endif
}

std::optional<TlbTimings> run_tlb_microbenchmark(const TlbBenchmarkOptions& options) {
  TlbTimings out;
  const double wanted = options.footprint_bytes > 0.0 ? options.footprint_bytes : (options.quick ? 256.0 : 1024.0) * 1024 * 1024;
  const std::size_t bytes = std::max<std::size_t>(kHuge, static_cast<std::size_t>(wanted) / kHuge * kHuge);
  out.footprint_bytes = static_cast<double>(bytes);
  out.cpu = options.cpu;
  out.cpuid = read_cpuid_tlb();
  bool stopped = false;
  ThreadTeam team({options.cpu < 0 ? kUnpinned : options.cpu});
  team.run([&](int) {
    for (const bool huge : {false, true}) {
      const WalkBuffer buffer(bytes, huge);
      const std::optional<TlbWalkTiming> t = time_walk(buffer, options, false);
      const std::optional<TlbWalkTiming> p = t ? time_walk(buffer, options, true) : std::nullopt;
      if (!t || !p) {
        stopped = true;
        return;
      }
      (huge ? out.huge_pages : out.small_pages) = *t;
      (huge ? out.huge_pages_parallel : out.small_pages_parallel) = *p;
    }
  });
  if (stopped) return std::nullopt;
  return out;
}

PageWalkDerivation derive_page_walk(const TlbTimings& t, const model::TlbFigures& f) {
  PageWalkDerivation d;
  const double F = t.footprint_bytes;
  d.m1_4k = model::tlb_miss_ratio(F, model::tlb_reach_bytes(f.l1_entries_4k, model::PageSize::k4KiB));
  d.m2_4k = model::tlb_miss_ratio(F, model::tlb_reach_bytes(f.stlb_entries_4k, model::PageSize::k4KiB));
  d.m1_2m = model::tlb_miss_ratio(F, model::tlb_reach_bytes(f.l1_entries_2m, model::PageSize::k2MiB));
  d.m2_2m = model::tlb_miss_ratio(F, model::tlb_reach_bytes(f.stlb_entries_2m, model::PageSize::k2MiB));
  if (t.huge_pages.huge_page_share >= 0.0 && t.huge_pages.huge_page_share < 0.9) {
    d.why_not = "the 2 MiB buffer got " + number(100.0 * t.huge_pages.huge_page_share) +
                " % of its bytes on huge pages (transparent huge pages off, or no free 2 MiB frames)";
    return d;
  }
  if (t.small_pages.huge_page_share > 0.1) {
    d.why_not = "the 4 KiB buffer got " + number(100.0 * t.small_pages.huge_page_share) + " % of its bytes on huge pages";
    return d;
  }
  if (d.m2_4k < 0.5) {
    d.why_not = "the footprint (" + number(F / 1048576.0) + " MiB) is less than twice the 4 KiB STLB's reach";
    return d;
  }
  const double s = f.stlb_hit_ns;
  const double fixed = -(d.m1_4k - d.m2_4k) * s + (d.m1_2m - d.m2_2m) * s + d.m2_2m * f.page_walk_ns_2m;
  auto solve = [&](double t4, double t2) { return (t4 - t2 + fixed) / d.m2_4k; };
  d.page_walk_ns_4k = solve(t.small_pages.median_ns, t.huge_pages.median_ns);
  d.low_ns = solve(t.small_pages.low_ns, t.huge_pages.high_ns);
  d.high_ns = solve(t.small_pages.high_ns, t.huge_pages.low_ns);
  const double half = 0.05 * std::abs(d.page_walk_ns_4k);
  d.low_ns = std::min(d.low_ns, d.page_walk_ns_4k - half);
  d.high_ns = std::max(d.high_ns, d.page_walk_ns_4k + half);
  if (!(d.page_walk_ns_4k > 0.0)) {
    d.why_not = "4 KiB pages were not slower than 2 MiB pages (" + number(t.small_pages.median_ns) + " against " +
                number(t.huge_pages.median_ns) + " ns per load): no walk cost to see";
    return d;
  }
  d.derived = true;
  const double delta_1 = t.small_pages.median_ns - t.huge_pages.median_ns;
  const double delta_k = t.small_pages_parallel.median_ns - t.huge_pages_parallel.median_ns;
  if (t.small_pages_parallel.median_ns <= 0.0) {
    d.walks_derivation = "not run";
  } else if (!(delta_k > 0.0) || !(delta_1 > 0.0)) {
    d.walks_derivation = "not derived: with " + std::to_string(kParallelChains) + " chains 4 KiB pages were not slower (" +
                         number(t.small_pages_parallel.median_ns) + " against " + number(t.huge_pages_parallel.median_ns) +
                         " ns per load)";
  } else {
    auto walks = [](double d1, double dk) { return dk > 0.0 ? std::max(1.0, d1 / dk) : 1e3; };
    d.walks_derived = true;
    d.concurrent_walks = walks(delta_1, delta_k);
    d.walks_low = walks(t.small_pages.low_ns - t.huge_pages.high_ns, t.small_pages_parallel.high_ns - t.huge_pages_parallel.low_ns);
    d.walks_high = walks(t.small_pages.high_ns - t.huge_pages.low_ns, t.small_pages_parallel.low_ns - t.huge_pages_parallel.high_ns);
    d.walks_low = std::min(d.walks_low, d.concurrent_walks);
    d.walks_high = std::max(d.walks_high, d.concurrent_walks);
    d.walks_derivation = "C = (t_4k - t_2m) / (t_4k,16 - t_2m,16) = (" + number(t.small_pages.median_ns) + " - " +
                         number(t.huge_pages.median_ns) + ") / (" + number(t.small_pages_parallel.median_ns) + " - " +
                         number(t.huge_pages_parallel.median_ns) + ") = " + number(d.concurrent_walks);
  }
  d.derivation = "W_4k = (t_4k - t_2m - (m1_4k - m2_4k) s + (m1_2m - m2_2m) s + m2_2m W_2m) / m2_4k = (" +
                 number(t.small_pages.median_ns) + " - " + number(t.huge_pages.median_ns) + " - (" + number(d.m1_4k) + " - " +
                 number(d.m2_4k) + ") " + number(s) + " + (" + number(d.m1_2m) + " - " + number(d.m2_2m) + ") " + number(s) +
                 " + " + number(d.m2_2m) + " x " + number(f.page_walk_ns_2m) + ") / " + number(d.m2_4k) + " = " +
                 number(d.page_walk_ns_4k) + " ns";
  return d;
}

nlohmann::json tlb_section_json(const TlbTimings& t, const PageWalkDerivation& d, const model::TlbFigures& f,
                                const std::string& host) {
  auto walk_json = [](const TlbWalkTiming& w) {
    nlohmann::json j{{"median_ns", w.median_ns}, {"low_ns", w.low_ns}, {"high_ns", w.high_ns}};
    if (w.huge_page_share >= 0.0) j["huge_page_share"] = w.huge_page_share;
    return j;
  };
  nlohmann::json out{{"footprint_bytes", t.footprint_bytes},
                     {"cpu", t.cpu},
                     {"loop", "dependent loads of independently drawn random lines, 8192 per pass; median of 5 repetitions' median passes"},
                     {"walk_4k", walk_json(t.small_pages)},
                     {"walk_2m", walk_json(t.huge_pages)},
                     {"walk_4k_16_chains", walk_json(t.small_pages_parallel)},
                     {"walk_2m_16_chains", walk_json(t.huge_pages_parallel)},
                     {"miss_ratios", {{"m1_4k", d.m1_4k}, {"m2_4k", d.m2_4k}, {"m1_2m", d.m1_2m}, {"m2_2m", d.m2_2m}}},
                     {"hardware_counters", "not measured: the miss ratios are the model's (no counters on this machine)"}};
  nlohmann::json block = nlohmann::json::object();
  std::string source;
  if (t.cpuid) {
    block["l1_entries_4k"] = t.cpuid->l1_entries_4k;
    block["l1_entries_2m"] = t.cpuid->l1_entries_2m;
    block["stlb_entries_4k"] = t.cpuid->stlb_entries_4k;
    block["stlb_entries_2m"] = t.cpuid->stlb_entries_2m;
    source = "entries: " + t.cpuid->source + " on " + host;
  } else {
    out["cpuid"] = "not read (not an AMD x86 CPU): the derivation used the figures given";
  }
  if (d.derived) {
    out["page_walk_ns_4k"] = {{"value", d.page_walk_ns_4k}, {"low", d.low_ns}, {"high", d.high_ns}, {"derivation", d.derivation}};
    block["page_walk_ns_4k"] = d.page_walk_ns_4k;
    if (d.walks_derived) {
      out["concurrent_walks"] = {{"value", d.concurrent_walks}, {"low", d.walks_low}, {"high", d.walks_high},
                                 {"derivation", d.walks_derivation}};
      block["concurrent_walks"] = d.concurrent_walks;
    } else {
      out["concurrent_walks_not_derived"] = d.walks_derivation;
    }
    source += std::string(source.empty() ? "" : "; ") + "page_walk_ns_4k: validate measure --tlb-only on " + host +
              " (4 KiB against 2 MiB pages, " + number(t.footprint_bytes / 1048576.0) + " MiB" +
              (d.walks_derived ? ", and concurrent_walks from 16 chains" : "") + ")";
  } else {
    out["page_walk_ns_4k_not_derived"] = d.why_not;
  }
  out["figures_used"] = {{"l1_entries_4k", f.l1_entries_4k}, {"l1_entries_2m", f.l1_entries_2m},
                         {"stlb_entries_4k", f.stlb_entries_4k}, {"stlb_entries_2m", f.stlb_entries_2m},
                         {"stlb_hit_ns", f.stlb_hit_ns}, {"page_walk_ns_2m", f.page_walk_ns_2m}};
  if (!block.empty()) {
    block["source"] = source;
    out["topology_tlb"] = block;
  }
  return out;
}

}  // namespace numatwin::validate
