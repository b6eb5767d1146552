#include "numatwin/validate/line_split_bench.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

namespace numatwin::validate {

namespace {
constexpr std::uintptr_t kLine = 64;
}  // namespace

bool spans_two_lines(std::uintptr_t address, std::size_t request_bytes) {
  if (request_bytes < 1) throw std::invalid_argument("line split: a request of 0 bytes");
  return (address % kLine) + request_bytes > kLine;
}

model::LineSplitPoint line_split_range(std::int64_t request_bytes, const std::vector<double>& trial_shares) {
  if (trial_shares.empty()) throw std::invalid_argument("line split: no trial");
  for (double s : trial_shares)
    if (!(s >= 0.0 && s <= 1.0)) throw std::invalid_argument("line split: a share outside 0..1: " + std::to_string(s));
  const auto [low, high] = std::minmax_element(trial_shares.begin(), trial_shares.end());
  return {request_bytes, *low, *high};
}

std::vector<model::LineSplitPoint> run_line_split_bench(const LineSplitBenchOptions& o) {
  if (o.trials < 1 || o.blocks < 1) throw std::invalid_argument("line split benchmark: trials and blocks must be >= 1");
  for (std::int64_t r : o.request_bytes)
    if (r < 1) throw std::invalid_argument("line split benchmark: request sizes must be >= 1 byte, found " + std::to_string(r));
  std::vector<model::LineSplitPoint> out;
  std::vector<void*> kept;
  kept.reserve(static_cast<std::size_t>(o.trials) * (o.blocks + 1));
  const auto release = [&kept] {
    for (void* p : kept) std::free(p);
    kept.clear();
  };
  try {
    for (std::int64_t r : o.request_bytes) {
      std::vector<double> shares;
      for (int t = 0; t < o.trials; ++t) {
        void* shift = std::malloc(static_cast<std::size_t>(8 + 16 * t));
        if (shift == nullptr) throw std::bad_alloc();
        kept.push_back(shift);
        std::size_t split = 0;
        for (std::size_t i = 0; i < o.blocks; ++i) {
          void* p = std::malloc(static_cast<std::size_t>(r));
          if (p == nullptr) throw std::bad_alloc();
          kept.push_back(p);
          if (spans_two_lines(reinterpret_cast<std::uintptr_t>(p), static_cast<std::size_t>(r))) ++split;
        }
        shares.push_back(static_cast<double>(split) / static_cast<double>(o.blocks));
      }
      release();
      out.push_back(line_split_range(r, shares));
    }
  } catch (...) {
    release();
    throw;
  }
  return out;
}

}  // namespace numatwin::validate
