// Solves of the bandwidth model seen before, with their answers (BandwidthModel::solve).
//
// A solve is a pure function of its streams and of its warm start (the previous call's
// utilisations, bandwidth_model.hpp: Solution); it returns the rates and leaves the next warm
// start. When both inputs repeat bit for bit, so do both outputs, and the fixed point need not
// be iterated again. The simulator repeats solves exactly where a plan repeats itself: the
// sort-merge join's merge steps under one weight vector read the same spreads at every step, so
// once the warm start that opens a step has come back to its earlier bits, the step's events
// solve exactly the problems of the step before.
//
// The key is every field a solve reads from a stream (its core, read and write nodes, both
// spreads, misses in flight, rate limit; a stream's cpu_node too, although the solve derives
// the node from the core) and the warm start, all compared as bits (so -0.0 is not 0.0 and the
// answer is the one the iteration would give). Entries are kept per model (one simulation),
// at most kEntries of them, the oldest replaced first.
//
// The key costs about as much as a cheap solve (one word per field of every stream), so a run
// whose solves rarely repeat is slower with the memo: after kTrialFinds look-ups with fewer than
// half of them repeats, the memo switches itself off for the rest of its model's life (every
// call is then solved; the answers are the same either way).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace numatwin::model {

struct Stream;
struct StreamRates;

class SolveMemo {
 public:
  static constexpr std::size_t kEntries = 64;
  static constexpr long kTrialFinds = 32;

  SolveMemo();
  ~SolveMemo();
  SolveMemo(const SolveMemo&);
  SolveMemo& operator=(const SolveMemo&);
  SolveMemo(SolveMemo&&) noexcept;
  SolveMemo& operator=(SolveMemo&&) noexcept;

  // Builds the key of (streams, warm start) and returns the entry that holds it, or -1 (always
  // -1, without a key, once switched off).
  int find(std::span<const Stream> streams, const std::vector<double>& warm_start);
  // Stores the answer to the key of the last find (which returned -1); nothing once off.
  void store(const StreamRates& rates, const std::vector<double>& next_warm_start);
  [[nodiscard]] const StreamRates& rates(int entry) const;
  [[nodiscard]] const std::vector<double>& next_warm_start(int entry) const;
  // Solves answered from the memo (for tests and measurements).
  [[nodiscard]] long hits() const { return hits_; }
  [[nodiscard]] bool switched_off() const { return off_; }

 private:
  struct Entry;
  std::vector<std::uint64_t> key_;  // of the last find
  std::uint64_t hash_ = 0;
  std::vector<Entry> entries_;
  std::size_t oldest_ = 0;
  long hits_ = 0;
  long finds_ = 0;
  bool off_ = false;
};

}  // namespace numatwin::model
