// How a core streams bytes through its caches: the Execution-Cache-Memory (ECM) composition of a
// streaming loop's in-cache transfers with its memory time (Treibig & Hager, "Introducing a
// performance model for bandwidth-limited loop kernels", PPAM 2009 / LNCS 6067, 2010; Hager,
// Treibig, Habich & Wellein, "Exploring performance and power properties of modern multicore
// chips via simple machine models", CCPE 28(2), 2016; kerncraft's machine files, of which
// ../shared/data/kerncraft keeps five).
//
// ── Per cache line ───────────────────────────────────────────────────────────────────────────
// A core streams payload through its hierarchy in lines of S bytes. Per line read from memory:
//   T_L1   = S / (a x loads_per_cycle)        its load instructions on the L1 (a = 8 B: the scalar
//                                            64-bit accesses of the analysed loops)
//   T_L2L1 = S / B_21                        the line from L2 into L1
//   T_L3L2 = S / B_32                        the line from L3 into L2 (on a core with a victim L3,
//                                            Skylake-SP and later, the line comes from memory into
//                                            L2 and the line it evicts goes to L3: the same S bytes
//                                            cross the L2/L3 boundary, as kerncraft charges them)
//   T_mem                                     the memory's time for the line: bandwidth_model.hpp's
//                                            Little's-law bound L / M per line, or a saturated
//                                            resource's share
// A line written (write-allocate: read for ownership, later written back) moves in and out of
// every level: T_L1 = S / (a x stores_per_cycle), and a level of rate B moves 2 S (half-duplex,
// in then out) or max(in, out) S (full-duplex: in and out in the same cycles) per line. A copy
// reads one line and writes one: in-bound 2 S and out-bound S per level.
//
// ── What overlaps, and how it meets the memory ──────────────────────────────────────────────
// ECM: the core's other work (T_OL: arithmetic, hashing, the analysed loop's cycles) overlaps with
// everything; each level says whether its transfers overlap with the others (kerncraft's
// "transfers overlap"; every Intel server core in the ECM literature: none; AMD Zen: L1 and L2
// do). ECM adds the non-overlapping levels and the memory's bandwidth term T_mem = S f / C (C the
// memory's saturated bandwidth, per line):
//   T_ECM = max( T_OL , T_nOL + sum over non-overlapping levels T_level + T_mem )
// The model keeps, beside it, the Little's-law bound of bandwidth_model.hpp (M lines in flight
// over the loaded latency L), and a stream gets the least of the two and of its core's work:
//   rate <= min( f / c ,  b = (M/s) S / L ,  1 / (s (t_serial + t_mem)) ,  1 / (s t_overlap) )
//   t_serial  = sum over non-overlapping in-cache levels of T_level / (S f)   (per byte)
//   t_mem     = sum over the memory controllers the stream loads of coefficient / capacity
//   t_overlap = the largest overlapping level's T_level / (S f)
// with c the loop's in-core cycles per byte (the transfer's cycles_per_byte) and s the streams on
// the core (they share its ports and cache bandwidth as they share its miss buffers). When the
// memory overlaps too, the serial sum joins the overlapping bound and t_serial = 0.
//
// Why a least and not a sum. Adding t_serial to the Little's-law time (b' = 1 / (t_serial + 1/b))
// is what a reading of ECM with a latency-bound memory term would do; kerncraft's measured
// single-core bandwidth of a Xeon Gold 6148 (../shared/data/kerncraft/SkylakeSP_Gold-6148.yml,
// likwid-bench on one core: load 14.32 GB/s, copy 13.08 GB/s of explicit bytes = 6.54 GB/s of
// payload) rejects it: with M = 16 (the L2 superqueue, as the shipped 8180 file) and the 81.4 ns
// idle latency of the 2 x 8180 mlc run (../shared/data/mlc, the same Skylake-SP die; transferred,
// not measured on the 6148), Little's law alone gives load 12.6 GB/s (-12 %) and copy 6.29 (-4 %);
// with the Skylake-SP path added to it (AVX-512 loads as likwid's kernels: 5.5 cycles per line
// read, 12.5 per line copied) 8.67 (-39 %) and 4.16 (-36 %); ECM alone (T_mem from the 117.8 GB/s
// the file measures on the full socket) 22.6 (+58 %) and 9.4 (+44 %). The prefetched lines' in-cache
// transfers hide under the memory's latency: the in-cache path is one more bound, not a delay.
// On the shipped machines it binds where a core's cache path is slower than its share of the
// memory (few load ports, narrow L2 paths, high memory bandwidth per core), and otherwise it is
// reported (PhaseTime::cache_transfer_s) without changing the time. With no data path given
// (Topology::core_data_path empty) nothing changes.
//
// Random accesses (lines_in_flight > 0: hash probes, chains) are latency-bound and take no
// in-cache bound: ECM is a model of streams.
//
// Worked example (Skylake-SP per kerncraft's file: 2 loads per cycle, L2->L1 64 B/cy half-duplex,
// L3->L2 16 B/cy full-duplex, nothing overlaps; 2.4 GHz; S = 64; scalar 8-byte loads): a read's
// T_L1 = 64 / 16 = 4 cy, T_L2L1 = 1 cy, T_L3L2 = 4 cy: 9 cy per line, t_serial = 9 / (64 x 2.4e9)
// = 58.6 ps per byte; with C = 117.8 GB/s, t_mem = 8.5 ps: the in-cache bound is 1 / 67.1 ps =
// 14.9 GB/s, above the 12.6 GB/s of Little's law: the stream stays latency-bound.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace numatwin::model {

// A core's in-cache data path, as the topology file's /core_data_path gives it.
struct CoreDataPath {
  std::string microarchitecture;       // e.g. "skylake-avx512" (llvm-mca's -mcpu name)
  double loads_per_cycle = 2.0;        // scalar 8-byte loads the L1 serves per cycle
  double stores_per_cycle = 1.0;       // scalar 8-byte stores per cycle
  double l2_to_l1_bytes_per_cycle = 64.0;
  bool l2_l1_full_duplex = false;
  // Absent: the core has no L3 on its path (the L2 is the last level, as on a K8).
  std::optional<double> l3_to_l2_bytes_per_cycle;
  bool l3_l2_full_duplex = false;
  bool l1_overlaps = false;      // the load/store instructions' cycles overlap with the transfers
  bool l2_l1_overlaps = false;
  bool l3_l2_overlaps = false;
  bool memory_overlaps = false;  // the memory's time overlaps with the in-cache transfers
  std::string source;
  bool operator==(const CoreDataPath&) const = default;
};

// The access width of the analysed loops' scalar loads and stores (bytes).
constexpr double kScalarAccessBytes = 8.0;

// Cycles per payload byte a stream spends in the in-cache levels (see above): `serial`, the
// non-overlapping levels' sum, added to the memory's bandwidth term; `overlapping`, a bound of its
// own: the largest overlapping level, or the serial sum when the memory overlaps (then `serial`
// is 0).
struct InCacheCycles {
  double serial = 0.0;
  double overlapping = 0.0;
  friend bool operator==(const InCacheCycles&, const InCacheCycles&) = default;
};

// For a stream that reads and/or writes (both: a copy); neither: zero.
[[nodiscard]] InCacheCycles in_cache_cycles_per_byte(const CoreDataPath& path, bool reads, bool writes);

// Problems with a data path's figures (empty: none): rates and port counts must be > 0.
[[nodiscard]] std::vector<std::string> core_data_path_problems(const CoreDataPath& path);

}  // namespace numatwin::model
