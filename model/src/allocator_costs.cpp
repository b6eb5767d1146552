#include "numatwin/model/allocator_costs.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>
#include <utility>

namespace numatwin::model {
namespace {

constexpr double kDefaultMallocNs = 20.0;
constexpr double kDefaultFreeNs = 15.0;
constexpr double kDefaultRemoteFreeNs = 40.0;
constexpr double kDefaultReallocBaseNs = 40.0;
constexpr double kDefaultReallocNsPerByte = 0.1;

bool power_of_two(std::int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

const AllocatorCosts* find_allocator_costs(const std::vector<AllocatorCosts>& costs, std::string_view allocator) {
  for (const AllocatorCosts& c : costs) {
    if (c.allocator == allocator) return &c;
  }
  return nullptr;
}

AllocatorCostAt allocator_cost_at(const AllocatorCosts* costs, int threads, double bytes) {
  if (threads < 1) throw std::invalid_argument("allocator cost: threads must be >= 1");
  if (!(bytes > 0.0)) throw std::invalid_argument("allocator cost: bytes must be > 0");
  if (costs == nullptr || costs->points.empty()) {
    return AllocatorCostAt{kDefaultMallocNs, kDefaultFreeNs, kDefaultReallocBaseNs + kDefaultReallocNsPerByte * bytes,
                           kDefaultRemoteFreeNs, true};
  }
  // The row: the largest measured thread count <= threads, else the smallest.
  std::set<int> rows;
  for (const AllocatorCostPoint& p : costs->points) rows.insert(p.threads);
  int row = *rows.begin();
  for (int r : rows) {
    if (r <= threads) row = r;
  }
  std::vector<const AllocatorCostPoint*> line;
  for (const AllocatorCostPoint& p : costs->points) {
    if (p.threads == row) line.push_back(&p);
  }
  std::sort(line.begin(), line.end(), [](const auto* a, const auto* b) { return a->size_bytes < b->size_bytes; });
  // Round up to the size class, clamp, interpolate in log2(size).
  const double cls = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(bytes))));
  const double x = std::log2(std::clamp(cls, static_cast<double>(line.front()->size_bytes),
                                        static_cast<double>(line.back()->size_bytes)));
  const AllocatorCostPoint* lo = line.front();
  const AllocatorCostPoint* hi = line.front();
  for (const AllocatorCostPoint* p : line) {
    if (std::log2(static_cast<double>(p->size_bytes)) <= x) lo = p;
  }
  hi = lo;
  for (const AllocatorCostPoint* p : line) {
    if (std::log2(static_cast<double>(p->size_bytes)) >= x) {
      hi = p;
      break;
    }
  }
  const double xl = std::log2(static_cast<double>(lo->size_bytes));
  const double xh = std::log2(static_cast<double>(hi->size_bytes));
  const double f = xh > xl ? (x - xl) / (xh - xl) : 0.0;
  const auto mix = [f](double a, double b) { return a + f * (b - a); };
  return AllocatorCostAt{mix(lo->malloc_ns, hi->malloc_ns), mix(lo->free_ns, hi->free_ns), mix(lo->realloc_ns, hi->realloc_ns),
                         mix(lo->remote_free_ns, hi->remote_free_ns), false};
}

void check_allocator_costs(const AllocatorCosts& costs) {
  const std::string who = "allocator costs of " + (costs.allocator.empty() ? std::string("(unnamed)") : costs.allocator);
  if (!(costs.overhead_ratio >= 0.0) || !std::isfinite(costs.overhead_ratio))
    throw std::invalid_argument(who + ": overhead_ratio must be a number >= 0");
  std::set<std::pair<int, std::int64_t>> seen;
  for (std::size_t i = 0; i < costs.points.size(); ++i) {
    const AllocatorCostPoint& p = costs.points[i];
    const std::string at = who + ": point " + std::to_string(i);
    if (p.threads < 1) throw std::invalid_argument(at + ": threads must be >= 1");
    if (!power_of_two(p.size_bytes)) throw std::invalid_argument(at + ": size_bytes must be a power of two");
    for (double v : {p.malloc_ns, p.free_ns, p.realloc_ns, p.remote_free_ns}) {
      if (!(v >= 0.0) || !std::isfinite(v)) throw std::invalid_argument(at + ": times must be numbers >= 0");
    }
    if (!seen.insert({p.threads, p.size_bytes}).second)
      throw std::invalid_argument(at + ": a second point at the same threads and size_bytes");
  }
}

}  // namespace numatwin::model
