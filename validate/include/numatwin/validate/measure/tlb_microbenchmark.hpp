// The page walk's cost on this machine (`validate measure --tlb-only`, and after the operator
// costs in a full `validate measure`): the same dependent random loads over the same footprint,
// once on 4 KiB pages and once on 2 MiB pages; the difference is address translation.
//
// ── The loop ─────────────────────────────────────────────────────────────────────────────────
// One pinned thread; a buffer of F bytes (default 1 GiB, quick 256 MiB: far beyond the 4 KiB
// STLB's reach, E2 x 4 KiB = 6-12 MiB on current cores, and within the 2 MiB STLB's, E2 x 2 MiB =
// 3-6 GiB), mmap'd, 2 MiB-aligned, madvise(MADV_HUGEPAGE) for "2m" and MADV_NOHUGEPAGE for "4k",
// every page touched. Each load's line is a hash of the value the previous load returned and the
// step (the walk of the cost microbenchmarks): every line of F equally likely at every step, so
// every page is too, as model/tlb.hpp's miss ratio assumes. Both buffers hold the same values at
// the same offsets, so the two walks visit the same offsets; only the pages differ. ns per load:
// median over 5 repetitions of each repetition's median pass of 8192 loads. What each buffer
// really got is read back from /proc/self/smaps (AnonHugePages of its mapping): the share of F on
// huge pages, which must be >= 0.9 for "2m" and <= 0.1 for "4k", else nothing is derived.
//
// ── Derivation (model/tlb.hpp with k = 1: one load in flight, no walks overlap) ─────────────
// With m1_P, m2_P the L1 and STLB miss ratios of F on pages of P, s = stlb_hit_ns, W_P the walk:
//     t_P = t_mem + (m1_P - m2_P) s + m2_P W_P
// t_mem (the load itself: cache misses, DRAM) is the same for both buffers, so
//     t_4k - t_2m = (m1_4k - m2_4k) s + m2_4k W_4k - (m1_2m - m2_2m) s - m2_2m W_2m
//     W_4k = (t_4k - t_2m - (m1_4k - m2_4k) s + (m1_2m - m2_2m) s + m2_2m W_2m) / m2_4k
// s and W_2m are the figures given (the topology's /tlb or the defaults; W_2m enters only when F
// exceeds the 2 MiB STLB's reach, which the default F does not). m2_4k must be >= 0.5 (F at least
// twice the 4 KiB reach), else nothing is derived. Range: t_4k's low end with t_2m's high end and
// the reverse (interval arithmetic), widened to at least +-5 %. W_4k is what the model adds per
// STLB miss on 4 KiB pages: in a virtual machine it includes the host's nested (2-D) walk. No
// hardware counter is read (this project's VM has none): the miss ratios are the model's, not
// counted.
//
// ── Walks in flight ──────────────────────────────────────────────────────────────────────────
// The same buffers walked by K = 16 independent chains at once (each chain's next line a hash of
// its own last value; the core overlaps their misses and their walks): ns per load t_P,K. The
// model gives the translations' extra with K >= 16 loads in flight as Δ_1 / C (C =
// concurrent_walks, the overlap O(16) of model/tlb.hpp), with Δ_1 = t_4k - t_2m of the dependent
// walk above, so
//     C = Δ_1 / Δ_K,   Δ_K = t_4k,K - t_2m,K        (at least 1; it may exceed K: the walks
//                                                     overlap the misses' latency too)
// derived only when W_4k is and Δ_K > 0. Range by interval arithmetic as above.
//
// ── TLB sizes ────────────────────────────────────────────────────────────────────────────────
// On x86 the data TLBs' entries are read from CPUID (AMD: leaves 0x80000005 and 0x80000006; other
// vendors: not read, the figures given are used) and reported as a /tlb block for the topology.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "numatwin/model/tlb.hpp"

namespace numatwin::validate {

struct TlbBenchmarkOptions {
  bool quick = false;
  double footprint_bytes = 0.0;  // 0: 1 GiB (quick: 256 MiB)
  int repetitions = 5;
  int cpu = -1;  // the CPU to pin to (-1: where it runs)
  const std::atomic<bool>* stop = nullptr;
};

// One buffer's walk: ns per load (median, low, high) and the share of it on huge pages (-1: not
// known, /proc/self/smaps unreadable).
struct TlbWalkTiming {
  double median_ns = 0.0;
  double low_ns = 0.0;
  double high_ns = 0.0;
  double huge_page_share = -1.0;
};

// Data TLB entries read from CPUID.
struct CpuidTlb {
  int l1_entries_4k = 0;
  int l1_entries_2m = 0;
  int stlb_entries_4k = 0;
  int stlb_entries_2m = 0;
  std::string source;  // "CPUID 0x80000005/0x80000006 (AMD)"
};

struct TlbTimings {
  double footprint_bytes = 0.0;
  TlbWalkTiming small_pages;  // 4 KiB (MADV_NOHUGEPAGE)
  TlbWalkTiming huge_pages;   // 2 MiB (MADV_HUGEPAGE)
  // The same with kParallelChains independent chains (ns per load); median 0: not run.
  TlbWalkTiming small_pages_parallel;
  TlbWalkTiming huge_pages_parallel;
  int cpu = -1;
  std::optional<CpuidTlb> cpuid;
};

inline constexpr int kParallelChains = 16;

struct PageWalkDerivation {
  bool derived = false;
  std::string why_not;  // when not derived
  double page_walk_ns_4k = 0.0;
  double low_ns = 0.0;
  double high_ns = 0.0;
  double m1_4k = 0.0, m2_4k = 0.0, m1_2m = 0.0, m2_2m = 0.0;  // the model's miss ratios of F
  std::string derivation;  // the formula with its numbers
  bool walks_derived = false;  // concurrent walks C
  double concurrent_walks = 0.0;
  double walks_low = 0.0;
  double walks_high = 0.0;
  std::string walks_derivation;  // or why not
};

// The CPUID figures, when this is an x86 CPU that gives them.
[[nodiscard]] std::optional<CpuidTlb> read_cpuid_tlb();
// Runs both walks (nullopt when stopped).
[[nodiscard]] std::optional<TlbTimings> run_tlb_microbenchmark(const TlbBenchmarkOptions& options);
// The derivation above, with `figures` for the entries, s and W_2m.
[[nodiscard]] PageWalkDerivation derive_page_walk(const TlbTimings& timings, const model::TlbFigures& figures);
// The report's "tlb" section: the timings, the derivation, and a /tlb block for the topology
// (the CPUID entries when read, the derived walk when derived), with its source.
[[nodiscard]] nlohmann::json tlb_section_json(const TlbTimings& timings, const PageWalkDerivation& d,
                                              const model::TlbFigures& figures, const std::string& host);

}  // namespace numatwin::validate
