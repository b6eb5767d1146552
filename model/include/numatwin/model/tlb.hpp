// Pages and the TLB: what address translation adds to a random access, by page size.
//
// ── Reach and miss ratio ─────────────────────────────────────────────────────────────────────
// A TLB level with E entries for pages of P bytes maps R = E x P bytes (its reach). For accesses
// drawn uniformly over a footprint of F bytes (a hash table's probes, a chain's nodes), a TLB
// holding R / P of the F / P pages (fully associative, any replacement that keeps a random
// subset) finds the page with probability min(1, R / F), so its miss ratio is
//     m(F, R) = 1 - min(1, R / F)                       (0 when the footprint fits its reach)
// The L1 dTLB (E1 entries) misses m1 = m(F, E1 P); the second-level TLB (STLB, E2 entries, which
// every L1 miss looks up) misses m2 = m(F, E2 P) <= m1 (E2 >= E1 is checked on input). An L1
// miss that hits the STLB costs stlb_hit_ns; an STLB miss starts a page walk of page_walk_ns(P):
// four levels of page table for 4 KiB pages, three for 2 MiB (the walk's references are partly
// cached: the upper levels in the walker's own caches, the leaf entries in L1/L2/LLC; the leaf
// table of F bytes of 4 KiB pages is F / 512 bytes, 8 bytes per page).
//
// ── Time per access ──────────────────────────────────────────────────────────────────────────
// A loop that keeps k accesses in flight overlaps their translations with each other and with
// the misses' latency; the overlap O(k) is 1 for a dependent access (k = 1: a chain's next node)
// and C = concurrent_walks for k >= 16, linear between:
//     O(k) = 1 + (C - 1) x min(1, (k - 1) / 15)
//     t(F, P, k) = ((m1 - m2) x stlb_hit_ns + m2 x page_walk_ns(P)) / O(k)
// C is what `validate measure --tlb-only` measures as the dependent walk's extra over the extra
// per load of 16 independent chains (validate/tlb_microbenchmark.hpp); it may exceed 16: on this
// project's VM a lone walk cost ~590 ns while 16 chains paid ~3 ns per load for 4 KiB pages.
// k is random_lines_in_flight for a table loop whose lines are prefetched ahead.
// ── What the model adds ──────────────────────────────────────────────────────────────────────
// The machine's latencies and operator costs are measured with transparent huge pages on every
// buffer (`validate measure` and the cost microbenchmarks madvise their buffers, as the kernels
// do by default), so they already contain the translation of 2 MiB pages. A buffer on pages of
// P bytes therefore adds, per access,
//     extra(F, P, k) = max(0, t(F, P, k) - t(F, 2 MiB, k))
// which is 0 for 2 MiB pages: the default page setting (huge pages on) predicts what it did
// before this model existed.
//
// ── Page settings (HugePages) ────────────────────────────────────────────────────────────────
//   on       every buffer on 2 MiB pages (THP "always", or every buffer advised);
//   off      every buffer on 4 KiB pages (MADV_NOHUGEPAGE, or THP "never");
//   madvise  the buffers the kernels advise (their placed datasets) on 2 MiB pages, the
//            allocator's own heap (MEDIAN's per-group blocks, the chained join's overflow nodes)
//            on 4 KiB pages: THP in "madvise" mode, as the system has it by default.
//
// ── Figures and their defaults ───────────────────────────────────────────────────────────────
// A topology file may give them under /tlb with a source (docs/topology-format.md); any figure it
// leaves out is the default below, and the basis says which ones are. Defaults:
//   entries: Intel Skylake's data TLBs (64 L1 entries for 4 KiB, 32 for 2 MiB; a 1536-entry STLB
//            shared by 4 KiB and 2 MiB pages), from Intel's optimisation reference manual's
//            Skylake TLB table as this project recalls it (not re-checked against the manual);
//   stlb_hit_ns = 3: about 9 cycles at 3 GHz, an order of magnitude, uncalibrated;
//   page_walk_ns 4 KiB = 30, 2 MiB = 20: a walk whose leaf entry hits the L2 or the LLC, an
//            order of magnitude, uncalibrated (`validate measure --tlb-only` measures the 4 KiB
//            walk's extra on the machine: validate/tlb_microbenchmark.hpp);
//   concurrent_walks = 2: uncalibrated; the two page walkers Intel has had since Broadwell (the
//            optimisation manual) as a floor, since C also counts the overlap with the misses.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace numatwin::model {

inline constexpr double kPage4KiBBytes = 4096.0;
inline constexpr double kPage2MiBBytes = 2.0 * 1024 * 1024;

enum class PageSize { k4KiB, k2MiB };
[[nodiscard]] double page_size_bytes(PageSize page);
[[nodiscard]] std::string_view page_size_name(PageSize page);  // "4 KiB", "2 MiB"

enum class HugePages { kOn, kOff, kMadvise };
[[nodiscard]] std::string_view huge_pages_name(HugePages setting);                // "on", "off", "madvise"
[[nodiscard]] std::optional<HugePages> parse_huge_pages(std::string_view text);  // nullopt: not one of them

// Which buffers: the kernels' placed (and advised) datasets, or the allocator's heap.
enum class BufferKind { kPlaced, kAllocatorHeap };
[[nodiscard]] PageSize page_size_of(HugePages setting, BufferKind buffer);

// The figures used (every field set).
struct TlbFigures {
  int l1_entries_4k = 64;       // default: Skylake (see the top)
  int l1_entries_2m = 32;       // default: Skylake
  int stlb_entries_4k = 1536;   // default: Skylake
  int stlb_entries_2m = 1536;   // default: Skylake (shared with 4 KiB)
  double stlb_hit_ns = 3.0;     // default: uncalibrated (range 1..10)
  double page_walk_ns_4k = 30.0;  // default: uncalibrated (range 10..200; more in a VM: 2-D walks)
  double page_walk_ns_2m = 20.0;  // default: uncalibrated (range 5..150)
  double concurrent_walks = 2.0;  // default: uncalibrated (range 1..200: the overlap C above)

  bool operator==(const TlbFigures&) const = default;
};

// A topology file's /tlb block: the figures it gives (absent: the default) and their source.
struct TlbSpec {
  std::optional<int> l1_entries_4k, l1_entries_2m, stlb_entries_4k, stlb_entries_2m;
  std::optional<double> stlb_hit_ns, page_walk_ns_4k, page_walk_ns_2m, concurrent_walks;
  std::string source;

  bool operator==(const TlbSpec&) const = default;
};

// What a prediction's translation costs rest on.
struct TlbBasis {
  TlbFigures figures;
  std::vector<std::string> given;      // the file's fields (JSON names), in the block's order
  std::vector<std::string> defaulted;  // the rest
  std::string source;                  // the file's source ("" without a block)
  // "tlb: defaults (no /tlb in the topology)" or "tlb: stlb_entries_4k, ... from <source>;
  // defaults: page_walk_ns_4k, ...".
  [[nodiscard]] std::string description() const;
};
[[nodiscard]] TlbBasis tlb_basis(const std::optional<TlbSpec>& from_file);

[[nodiscard]] double tlb_reach_bytes(int entries, PageSize page);
// m(F, R) above; F <= 0 gives 0.
[[nodiscard]] double tlb_miss_ratio(double footprint_bytes, double reach_bytes);
// t(F, P, k) above, ns per access (k < 1 counts as 1).
[[nodiscard]] double translation_ns_per_access(const TlbFigures& tlb, double footprint_bytes, PageSize page,
                                               double accesses_in_flight);
// extra(F, P, k) above: what pages of P bytes add over 2 MiB pages, ns per access.
[[nodiscard]] double extra_translation_ns(const TlbFigures& tlb, double footprint_bytes, PageSize page,
                                          double accesses_in_flight);

}  // namespace numatwin::model
