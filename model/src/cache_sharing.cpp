#include "numatwin/model/cache_sharing.hpp"

#include <cmath>
#include <stdexcept>

namespace numatwin::model {
namespace {

double filled(const std::vector<CacheUser>& users, double t) {
  double sum = 0.0;
  for (const CacheUser& u : users) sum += u.lines * -std::expm1(-(u.accesses_rate / u.lines) * t);
  return sum;
}

}  // namespace

std::vector<double> che_cache_shares(double cache_lines, const std::vector<CacheUser>& users) {
  if (!(cache_lines >= 0.0)) throw std::invalid_argument("cache sharing: the cache must have >= 0 lines");
  double total = 0.0;
  double reachable = 0.0;  // the lines of users that are read at all
  for (const CacheUser& u : users) {
    if (!(u.lines > 0.0)) throw std::invalid_argument("cache sharing: a user with no lines");
    if (!(u.accesses_rate >= 0.0)) throw std::invalid_argument("cache sharing: a negative access rate");
    total += u.lines;
    if (u.accesses_rate > 0.0) reachable += u.lines;
  }
  std::vector<double> shares;
  if (total <= cache_lines) {
    for (const CacheUser& u : users) shares.push_back(u.lines);
    return shares;
  }
  if (reachable <= cache_lines) {  // the unread users never enter the cache
    for (const CacheUser& u : users) shares.push_back(u.accesses_rate > 0.0 ? u.lines : 0.0);
    return shares;
  }
  // Bisection on log T: filled(T) rises from 0 to `reachable` > cache_lines.
  double lo = -60.0;
  double hi = 60.0;
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (filled(users, std::exp(mid)) < cache_lines ? lo : hi) = mid;
  }
  const double t = std::exp(0.5 * (lo + hi));
  for (const CacheUser& u : users) shares.push_back(u.lines * -std::expm1(-(u.accesses_rate / u.lines) * t));
  return shares;
}

}  // namespace numatwin::model
