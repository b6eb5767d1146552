#include "numatwin/sim/adaptive/adaptive_utilisation.hpp"

#include <algorithm>
#include <stdexcept>

namespace numatwin::sim {

void ExponentialAverage::add(double value) {
  if (empty_) {
    value_ = value;
    empty_ = false;
    return;
  }
  value_ = weight_ * value + (1.0 - weight_) * value_;
}

void SampledHistory::add(double begin_s, double end_s, double value) {
  if (!(end_s > begin_s)) throw std::invalid_argument("SampledHistory: a sample must have end > begin");
  if (!samples_.empty() && begin_s < samples_.back().end_s - 1e-9) {
    throw std::invalid_argument("SampledHistory: samples must come in time order");
  }
  samples_.push_back(Sample{begin_s, end_s, value});
  while (!samples_.empty() && samples_.front().end_s < end_s - keep_s_) samples_.pop_front();
}

double SampledHistory::average(double now_s, double window_s) const {
  const double from = now_s - window_s;
  double weighted = 0.0;
  double weight = 0.0;
  for (auto it = samples_.rbegin(); it != samples_.rend(); ++it) {
    if (it->end_s <= from) break;
    const double overlap = std::min(it->end_s, now_s) - std::max(it->begin_s, from);
    if (overlap <= 0.0) continue;
    weighted += it->value * overlap;
    weight += overlap;
  }
  return weight > 0.0 ? weighted / weight : 0.0;
}

void SampledHistory::scale(double factor) {
  for (Sample& sample : samples_) sample.value *= factor;
}

void SampledHistory::add_history(const SampledHistory& other) {
  // Two time-ordered lists merged; equal intervals (within rounding of the sample clock) add.
  constexpr double kSameInstant = 1e-9;
  std::deque<Sample> merged;
  auto a = samples_.begin();
  auto b = other.samples_.begin();
  while (a != samples_.end() || b != other.samples_.end()) {
    if (b == other.samples_.end() || (a != samples_.end() && a->end_s < b->end_s - kSameInstant)) {
      merged.push_back(*a++);
    } else if (a == samples_.end() || b->end_s < a->end_s - kSameInstant) {
      merged.push_back(*b++);
    } else {
      merged.push_back(Sample{std::min(a->begin_s, b->begin_s), a->end_s, a->value + b->value});
      ++a;
      ++b;
    }
  }
  samples_.swap(merged);
  keep_s_ = std::max(keep_s_, other.keep_s_);
}

double SampledHistory::covered_s() const {
  return samples_.empty() ? 0.0 : samples_.back().end_s - samples_.front().begin_s;
}

}  // namespace numatwin::sim
