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

// The figure `field` at size class `cls` among the points of one row (sorted by size, not empty):
// clamped to the smallest and largest size, linear in log2(size) between.
template <class Point>
double interpolate(const std::vector<const Point*>& have, double cls, double Point::*field) {
  const double x = std::log2(std::clamp(cls, static_cast<double>(have.front()->size_bytes), static_cast<double>(have.back()->size_bytes)));
  const Point* lo = have.front();
  for (const Point* p : have) {
    if (std::log2(static_cast<double>(p->size_bytes)) <= x) lo = p;
  }
  const Point* hi = lo;
  for (const Point* p : have) {
    if (std::log2(static_cast<double>(p->size_bytes)) >= x) {
      hi = p;
      break;
    }
  }
  const double xl = std::log2(static_cast<double>(lo->size_bytes));
  const double xh = std::log2(static_cast<double>(hi->size_bytes));
  const double f = xh > xl ? (x - xl) / (xh - xl) : 0.0;
  return lo->*field + f * (hi->*field - lo->*field);
}

// The points of the row used for `threads`: the largest measured thread count <= threads, else
// the smallest; sorted by size. `points` is not empty.
template <class Point>
std::vector<const Point*> row_of(const std::vector<Point>& points, int threads) {
  std::set<int> rows;
  for (const Point& p : points) rows.insert(p.threads);
  int row = *rows.begin();
  for (int r : rows) {
    if (r <= threads) row = r;
  }
  std::vector<const Point*> line;
  for (const Point& p : points) {
    if (p.threads == row) line.push_back(&p);
  }
  std::sort(line.begin(), line.end(), [](const auto* a, const auto* b) { return a->size_bytes < b->size_bytes; });
  return line;
}

// Whether every point of the row has `field` > 0 (measured).
bool measured_in_row(const std::vector<const AllocatorLayoutPoint*>& row, double AllocatorLayoutPoint::*field) {
  return std::all_of(row.begin(), row.end(), [field](const AllocatorLayoutPoint* p) { return p->*field > 0.0; });
}

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
    AllocatorCostAt d;
    d.malloc_ns = kDefaultMallocNs;
    d.free_ns = kDefaultFreeNs;
    d.realloc_ns = kDefaultReallocBaseNs + kDefaultReallocNsPerByte * bytes;
    d.remote_free_ns = kDefaultRemoteFreeNs;
    d.is_default = true;
    d.scattered_realloc_ns = d.realloc_ns;  // no layout figures: the in-order ones stand in
    d.scattered_free_ns = d.free_ns;
    d.shared_realloc_ns = d.scattered_realloc_ns;
    d.reuse_malloc_ns = d.malloc_ns;
    return d;
  }
  const std::vector<const AllocatorCostPoint*> line = row_of(costs->points, threads);
  const double cls = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(bytes))));
  AllocatorCostAt out;
  out.is_default = false;
  out.malloc_ns = interpolate(line, cls, &AllocatorCostPoint::malloc_ns);
  out.free_ns = interpolate(line, cls, &AllocatorCostPoint::free_ns);
  out.realloc_ns = interpolate(line, cls, &AllocatorCostPoint::realloc_ns);
  out.remote_free_ns = interpolate(line, cls, &AllocatorCostPoint::remote_free_ns);
  out.scattered_realloc_ns = out.realloc_ns;
  out.scattered_free_ns = out.free_ns;
  out.shared_realloc_ns = out.realloc_ns;
  out.reuse_malloc_ns = out.malloc_ns;
  if (costs->layout.empty()) return out;
  const std::vector<const AllocatorLayoutPoint*> layout = row_of(costs->layout, threads);
  out.has_scattered = true;
  out.has_dependent = true;
  out.scattered_realloc_ns = interpolate(layout, cls, &AllocatorLayoutPoint::scattered_realloc_ns);
  out.scattered_free_ns = interpolate(layout, cls, &AllocatorLayoutPoint::scattered_free_ns);
  out.dependent_write_ns = interpolate(layout, cls, &AllocatorLayoutPoint::dependent_write_ns);
  out.dependent_read_ns = interpolate(layout, cls, &AllocatorLayoutPoint::dependent_read_ns);
  out.locked_write_ns = interpolate(layout, cls, &AllocatorLayoutPoint::locked_write_ns);
  // The optional figures come only from a row that measured them at every size (0 = not
  // measured: a file written before them); the shared realloc only from a row of 2 or more
  // threads (at one thread every block is the thread's own).
  out.has_reuse = measured_in_row(layout, &AllocatorLayoutPoint::reuse_malloc_ns);
  if (out.has_reuse) out.reuse_malloc_ns = interpolate(layout, cls, &AllocatorLayoutPoint::reuse_malloc_ns);
  out.has_block_read = measured_in_row(layout, &AllocatorLayoutPoint::block_read_ns);
  if (out.has_block_read) out.block_read_ns = interpolate(layout, cls, &AllocatorLayoutPoint::block_read_ns);
  out.has_shared = threads > 1 && layout.front()->threads > 1 && measured_in_row(layout, &AllocatorLayoutPoint::shared_realloc_ns);
  out.shared_realloc_ns = out.has_shared ? interpolate(layout, cls, &AllocatorLayoutPoint::shared_realloc_ns) : out.scattered_realloc_ns;
  return out;
}

const LineSplitPoint* line_split_at(const AllocatorCosts* costs, std::int64_t request_bytes) {
  if (costs == nullptr) return nullptr;
  for (const LineSplitPoint& p : costs->line_splits)
    if (p.request_bytes == request_bytes) return &p;
  return nullptr;
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
  seen.clear();
  for (std::size_t i = 0; i < costs.layout.size(); ++i) {
    const AllocatorLayoutPoint& p = costs.layout[i];
    const std::string at = who + ": layout point " + std::to_string(i);
    if (p.threads < 1) throw std::invalid_argument(at + ": threads must be >= 1");
    if (!power_of_two(p.size_bytes)) throw std::invalid_argument(at + ": size_bytes must be a power of two");
    for (double v : {p.scattered_realloc_ns, p.scattered_free_ns, p.dependent_write_ns, p.dependent_read_ns, p.shared_realloc_ns,
                     p.locked_write_ns, p.reuse_malloc_ns, p.block_read_ns}) {
      if (!(v >= 0.0) || !std::isfinite(v)) throw std::invalid_argument(at + ": times must be numbers >= 0");
    }
    if (!seen.insert({p.threads, p.size_bytes}).second)
      throw std::invalid_argument(at + ": a second layout point at the same threads and size_bytes");
  }
  std::set<std::int64_t> requests;
  for (std::size_t i = 0; i < costs.line_splits.size(); ++i) {
    const LineSplitPoint& p = costs.line_splits[i];
    const std::string at = who + ": line split " + std::to_string(i);
    if (p.request_bytes < 1) throw std::invalid_argument(at + ": request_bytes must be >= 1");
    if (!(p.low_share >= 0.0 && p.low_share <= p.high_share && p.high_share <= 1.0))
      throw std::invalid_argument(at + ": shares must satisfy 0 <= low_share <= high_share <= 1");
    if (!requests.insert(p.request_bytes).second) throw std::invalid_argument(at + ": a second line split at the same request_bytes");
  }
}

}  // namespace numatwin::model
