// Utilisation tracking as in Psaroudakis et al. (docs/adaptive.md):
//  - per task class, an exponential moving average of the memory throughput of its tasks,
//        ema <- w x new + (1 - w) x ema,   w = 0.1 (the first value initialises it);
//  - per table part and per socket, sampled histories: a sample is the time-weighted mean of
//    the quantity over one sample period (100 ms); the history keeps the samples of the last
//    history_s (5 min) and answers
//        avg(us) = sum over samples i overlapping [now - us, now] of v_i x overlap_i / sum of overlap_i
//    (a time-weighted average; samples are equally long, a partial overlap weighs less).
//  - a part's history follows its data: a moved part keeps its own; the two halves of a split
//    part each start with the parent's history x 1/2 (each half takes every other task of the
//    parent's queries); a merged part starts with the sum of its parts' histories (sample by
//    sample: the parts of one table are sampled at the same instants). So a layout change does
//    not reset what the placer knows of a table.
#pragma once

#include <cstddef>
#include <deque>

namespace numatwin::sim {

class ExponentialAverage {
 public:
  explicit ExponentialAverage(double new_value_weight) : weight_(new_value_weight) {}
  void add(double value);
  [[nodiscard]] bool empty() const { return empty_; }
  [[nodiscard]] double value() const { return value_; }

 private:
  double weight_;
  double value_ = 0.0;
  bool empty_ = true;
};

class SampledHistory {
 public:
  explicit SampledHistory(double keep_s) : keep_s_(keep_s) {}
  // A sample for [begin_s, end_s); samples come in time order. Drops those older than keep_s.
  void add(double begin_s, double end_s, double value);
  // Time-weighted average over [now_s - window_s, now_s]; 0 without samples there.
  [[nodiscard]] double average(double now_s, double window_s) const;
  // Seconds of history held (end of the last sample minus begin of the first).
  [[nodiscard]] double covered_s() const;
  [[nodiscard]] std::size_t size() const { return samples_.size(); }
  // Every sample's value x factor.
  void scale(double factor);
  // Adds `other` sample by sample: samples over the same [begin, end) add their values; a sample
  // that only one history holds is kept as it is (the other knew nothing then).
  void add_history(const SampledHistory& other);

 private:
  struct Sample {
    double begin_s;
    double end_s;
    double value;
  };
  double keep_s_;
  std::deque<Sample> samples_;
};

}  // namespace numatwin::sim
