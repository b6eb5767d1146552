#include "numatwin/validate/alloc/line_split_bench.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <new>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>

namespace numatwin::validate {

namespace {
constexpr std::uintptr_t kLine = 64;
constexpr std::size_t kShiftBytes = 40;  // an odd number of 16-byte granules with an 8-byte header
}  // namespace

double run_split_share(std::uintptr_t phase, std::uintptr_t stride, std::size_t request_bytes) {
  if (stride < 1) throw std::invalid_argument("line split: a stride of 0 bytes");
  if (request_bytes < 1) throw std::invalid_argument("line split: a request of 0 bytes");
  if (request_bytes > kLine) return 1.0;
  const std::uintptr_t period = kLine / std::gcd(stride, kLine);
  std::uintptr_t split = 0;
  for (std::uintptr_t j = 0; j < period; ++j) split += spans_two_lines(phase + j * stride, request_bytes) ? 1 : 0;
  return static_cast<double>(split) / static_cast<double>(period);
}

std::uintptr_t run_stride(const std::vector<std::uintptr_t>& addresses) {
  std::map<std::uintptr_t, std::size_t> count;
  for (std::size_t i = 1; i < addresses.size(); ++i)
    if (addresses[i] > addresses[i - 1]) ++count[addresses[i] - addresses[i - 1]];
  std::uintptr_t best = 0;
  std::size_t most = 0;
  for (const auto& [difference, n] : count) {
    if (n > most) {
      best = difference;
      most = n;
    }
  }
  return best;
}

model::LineSplitPoint line_split_from(std::int64_t request_bytes, const std::vector<std::uintptr_t>& plain,
                                      const std::vector<std::uintptr_t>& interleaved) {
  if (request_bytes < 1) throw std::invalid_argument("line split: a request of 0 bytes");
  if (plain.empty() || interleaved.empty()) throw std::invalid_argument("line split: an empty run");
  const auto r = static_cast<std::uintptr_t>(request_bytes);
  std::uintptr_t stride = run_stride(plain);
  if (stride == 0) stride = (r + 15) / 16 * 16;
  const std::uintptr_t g = std::gcd(stride, kLine);
  std::set<std::uintptr_t> phases;
  for (const std::vector<std::uintptr_t>* run : {&plain, &interleaved})
    for (std::uintptr_t p : *run) phases.insert(p % g);
  double low = 1.0;
  double high = 0.0;
  for (std::uintptr_t c : phases) {
    const double share = run_split_share(c, stride, r);
    low = std::min(low, share);
    high = std::max(high, share);
  }
  return {request_bytes, low, high};
}

std::vector<model::LineSplitPoint> run_line_split_bench(const LineSplitBenchOptions& o) {
  if (o.blocks < 2) throw std::invalid_argument("line split benchmark: blocks must be >= 2");
  for (std::int64_t r : o.request_bytes)
    if (r < 1) throw std::invalid_argument("line split benchmark: request sizes must be >= 1 byte, found " + std::to_string(r));
  std::vector<model::LineSplitPoint> out;
  std::vector<void*> kept;
  const auto keep = [&kept](std::size_t bytes) {
    void* p = std::malloc(bytes);
    if (p == nullptr) throw std::bad_alloc();
    kept.push_back(p);
    return reinterpret_cast<std::uintptr_t>(p);
  };
  const auto release = [&kept] {
    for (void* p : kept) std::free(p);
    kept.clear();
  };
  try {
    for (std::int64_t r : o.request_bytes) {
      std::vector<std::uintptr_t> plain;
      std::vector<std::uintptr_t> interleaved;
      for (std::size_t i = 0; i < o.blocks; ++i) plain.push_back(keep(static_cast<std::size_t>(r)));
      for (std::size_t i = 0; i < o.blocks; ++i) {
        interleaved.push_back(keep(static_cast<std::size_t>(r)));
        (void)keep(kShiftBytes);
      }
      release();
      out.push_back(line_split_from(r, plain, interleaved));
    }
  } catch (...) {
    release();
    throw;
  }
  return out;
}

}  // namespace numatwin::validate
