// A shuffle schedule: n threads, each both a producer (it owns a buffer of n pieces, piece c
// for consumer c) and a consumer (it reads its piece of every producer). steps[k][c] is the
// producer whose piece consumer c reads at step k, so steps has n rows of n entries.
//
// Executable (check_schedule): every consumer reads every producer exactly once over the n
// steps, i.e. every column of steps is a permutation of 0 .. n-1. The naive order (every
// consumer reads producer k at step k) is executable; a tight schedule loads the machine
// evenly when, in addition, every row is a permutation (each producer's buffer read by one
// consumer per step: a Latin square, as the ring and the orders `numatwin schedule` designs).
//
// This header is C++17 and needs nothing but the standard library.
#pragma once

#include <string>
#include <vector>

namespace numatwin::shuffle {

// What a schedule's steps do (docs/shuffle-schedule-format.md, `workload`):
//   kShuffle        consumer c reads piece c of producer steps[k][c] from where it is (pulls it);
//   kMigration      consumer c moves (re-pins) to producer steps[k][c]'s CPU and reads the piece
//                   there, locally; the state it carries stays on its home node;
//   kMigrationCopy  the same, and its state is copied to the node it moves to before each move.
enum class Workload { kShuffle, kMigration, kMigrationCopy };

// "shuffle", "migration", "migration-copy" (the file's and the numatwin command line's names).
[[nodiscard]] std::string workload_name(Workload workload);
// The inverse; false when `name` is none of the three.
[[nodiscard]] bool parse_workload(const std::string& name, Workload& workload);

struct Schedule {
  // steps[k][c]: the producer whose piece consumer c reads at step k.
  std::vector<std::vector<int>> steps;

  [[nodiscard]] int threads() const { return static_cast<int>(steps.size()); }
  // The producers consumer c visits, step by step (column c).
  [[nodiscard]] std::vector<int> order(int consumer) const;
  // Whether every step is a permutation as well (a Latin square).
  [[nodiscard]] bool is_latin_square() const;

  // Builds a schedule from per-consumer orders: orders[c][k] = steps[k][c].
  [[nodiscard]] static Schedule from_orders(const std::vector<std::vector<int>>& orders);
  // Reference orders: naive (steps[k][c] = k) and ring (steps[k][c] = (c + k) mod n).
  [[nodiscard]] static Schedule naive(int threads);
  [[nodiscard]] static Schedule ring(int threads);
};

// Throws std::invalid_argument, naming the first offending step and consumer, unless the
// schedule has `threads` steps of `threads` producers each in 0 .. threads-1 and every consumer
// reads every producer exactly once. `threads` must be >= 1.
void check_schedule(const Schedule& schedule, int threads);

}  // namespace numatwin::shuffle
