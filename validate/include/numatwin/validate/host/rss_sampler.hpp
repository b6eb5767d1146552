// The resident set over time, for Durner et al.'s "memory consumption over time": a thread reads
// /proc/self/statm (second field: resident pages) every period and keeps (time, bytes) samples.
// The read uses a stack buffer and read(2), so sampling itself does not allocate (the sample
// vector is reserved for an hour at the period and grows only beyond it).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>
#include <vector>

namespace numatwin::validate {

// The resident pages in the text of a statm file ("size resident shared text lib data dt", all in
// pages). Throws std::runtime_error quoting the text when the second field is not a number.
std::uint64_t statm_resident_pages(std::string_view statm_text);

// This process's resident set, bytes (resident pages x the page size). Throws std::runtime_error
// when /proc/self/statm cannot be read.
double current_rss_bytes();

struct RssSample {
  double seconds = 0.0;  // after the origin
  double rss_bytes = 0.0;
};

class RssSampler {
 public:
  // Starts sampling at once (the first sample is taken before the constructor returns). Throws
  // std::invalid_argument for a period that is not above 0.
  RssSampler(std::chrono::steady_clock::time_point origin, double period_ms);
  ~RssSampler();
  RssSampler(const RssSampler&) = delete;
  RssSampler& operator=(const RssSampler&) = delete;

  // Takes a last sample and ends the thread; returns every sample, oldest first.
  std::vector<RssSample> stop();

 private:
  void take_sample();

  std::chrono::steady_clock::time_point origin_;
  std::chrono::steady_clock::duration period_;
  std::vector<RssSample> samples_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace numatwin::validate
