// What a dependent LLC miss costs a loop as a function of the independent work around it
// (issue 16; docs/chained-probe.md). A miss whose address comes from a line already in flight
// (a chain's next node, read from a prefetched bucket) overlaps with whatever the core can issue
// while it waits: the loads of the next items, as far as the core's window reaches. The more
// independent work lies between two such misses, the fewer of them share the window, up to one
// miss at a time. validate/dependent_miss_bench.hpp measures the cost on a grid:
//   k  items per dependent miss (one item in k follows its head's link), k >= 1;
//   w  work units per item (one unit: one splitmix64 finaliser, work_unit_ns), w >= 0;
//   miss_ns(k, w) = (time of the loop with the misses - the same loop without them) / misses / m
// (m the share of the misses that miss the LLC; the translation on the bench buffer's pages is in
// it). The topology carries it under /dependent_misses with host, time and source.
//
// The lookup (dependent_miss_ns): the grid must be complete (every measured k with every measured
// w). Between measured values it is interpolated bilinearly, in log2 k and linearly in w; outside
// the measured ranges k and w are clamped to the nearest measured value (a loop with more work
// than the grid measured is charged what the most work measured costs: an under-estimate when the
// cost still grows there, said in the docs).
//
// The second miss (optional, measured with the grid since 2026-11-27): in each group of k items,
// the item with the miss follows one link further, a second miss whose address comes from the
// first miss's line (a chain's node behind another in the same probe):
//   second_miss_ns(k, w) = (time of the loop with both misses - the loop with the first only) / misses / m,
// looked up as miss_ns is. A grid has it at every point or at none (a file with it at some points
// only contradicts itself and is refused).
//
// Items that span two lines (optional, measured with the grid since 2026-11-27, session 31): an
// allocator whose blocks are not aligned to their size puts some of them across a 64-byte line
// boundary (glibc's 24-byte blocks, 16 bytes into a 32-byte chunk: half of them when the chunk
// sits at an odd 32 bytes). Reading such an item's last and first words reads two lines:
//   split_head_ns(k, w) = (time of the loop whose item with the miss instead reads its head's
//                          last word and the first word of the line after the head, which nothing
//                          prefetched - time of the loop without misses) / misses / m:
//                          a prefetched item's second line, its address known from the start;
//   split_miss_ns(k, w) = (time of the loop whose dependent miss reads the last word of its line
//                          and the first word of the line after it - the loop with the one-line
//                          miss) / misses / m: what a dependent miss's item spanning two lines adds.
// Both are looked up as miss_ns is, and a grid has each at every point or at none.
//
// A caller turns its own loop into (k, w): k = items between two items that take a dependent
// miss (1 / the share of items that take one), w = the loop's modelled core time per item
// divided by work_unit_ns.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace numatwin::model {

struct DependentMissPoint {
  double items_per_miss = 1.0;  // k
  double work_units = 0.0;      // w
  double miss_ns = 0.0;         // what one dependent miss adds, per LLC miss
  std::optional<double> second_miss_ns;  // what a second miss behind it adds, per LLC miss (not measured: none)
  std::optional<double> split_head_ns;   // a prefetched item's second, unprefetched line, per LLC miss
  std::optional<double> split_miss_ns;   // what a dependent miss's item spanning two lines adds, per LLC miss

  bool operator==(const DependentMissPoint&) const = default;
};

struct DependentMissGrid {
  double work_unit_ns = 1.0;  // one work unit's own time (a splitmix64 finaliser), ns
  std::vector<DependentMissPoint> points;
  std::string host;
  std::string measured_at;  // UTC, ISO 8601
  std::string source;       // command and parameters

  bool operator==(const DependentMissGrid&) const = default;
};

// The lookup above. Throws std::invalid_argument for an empty grid or items_per_miss < 1 or
// work_units < 0 (call check_dependent_miss_grid first for the grid's own shape).
double dependent_miss_ns(const DependentMissGrid& grid, double items_per_miss, double work_units);
// The second miss's cost, looked up the same way; nullopt when the grid did not measure it.
std::optional<double> dependent_second_miss_ns(const DependentMissGrid& grid, double items_per_miss, double work_units);

// Any optional figure of the points, looked up the same way; nullopt when the grid did not
// measure it. The named ones below call it.
std::optional<double> dependent_figure_ns(const DependentMissGrid& grid, double items_per_miss, double work_units,
                                          std::optional<double> DependentMissPoint::*field);
// The split figures, looked up the same way; nullopt when the grid did not measure them.
std::optional<double> dependent_split_head_ns(const DependentMissGrid& grid, double items_per_miss, double work_units);
std::optional<double> dependent_split_miss_ns(const DependentMissGrid& grid, double items_per_miss, double work_units);

// The optional figures of a point, with their JSON names (every point has each or none does).
struct OptionalMissFigure {
  const char* name;
  std::optional<double> DependentMissPoint::*field;
};
inline constexpr OptionalMissFigure kOptionalMissFigures[] = {{"second_miss_ns", &DependentMissPoint::second_miss_ns},
                                                              {"split_head_ns", &DependentMissPoint::split_head_ns},
                                                              {"split_miss_ns", &DependentMissPoint::split_miss_ns}};

// The distinct measured k and w, ascending.
std::vector<double> grid_items_per_miss(const DependentMissGrid& grid);
std::vector<double> grid_work_units(const DependentMissGrid& grid);

// Throws std::invalid_argument naming the first problem: no point, work_unit_ns <= 0, k < 1,
// w < 0, miss_ns < 0, a repeated (k, w), a grid that lacks a (k, w) of its measured values, an
// optional figure < 0, or an optional figure at some points and not at others.
void check_dependent_miss_grid(const DependentMissGrid& grid);

}  // namespace numatwin::model
