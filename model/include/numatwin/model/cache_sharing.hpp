// How structures that are read at random at the same time share one LRU cache (issue 16,
// session 31; docs/chained-probe.md). Before, each structure of a loop sized its cache hits by
// the whole usable LLC, so a probe that reads a bucket array and a heap of chain nodes counted
// the same cache twice.
//
// Che's approximation (H. Che, Y. Tung, Z. Wang, "Hierarchical Web caching systems: modeling,
// design and experimental results", IEEE JSAC 20(7), 2002): in an LRU cache of C lines, a line
// requested at rate r stays in the cache if it is requested again within the cache's
// characteristic time T, so it is resident (and hit) with probability 1 - exp(-r T), and T is
// the time in which the distinct lines requested fill the cache:
//   sum_i L_i (1 - exp(-(a_i / L_i) T)) = C,
// for structures i of L_i lines each read uniformly at a_i requests per unit time (per line
// a_i / L_i). Structure i keeps C_i = L_i (1 - exp(-(a_i / L_i) T)) lines and its hit ratio is
// C_i / L_i. When sum_i L_i <= C every structure keeps all its lines (C_i = L_i).
// One structure alone keeps min(L, C) lines: the hit ratio min(1, C / L) that the operators
// already use. Structures with the same rate per line split the cache in proportion to their
// sizes. T is found by bisection on its logarithm (the left side grows with T).
#pragma once

#include <vector>

namespace numatwin::model {

struct CacheUser {
  double lines = 0.0;          // L_i, > 0
  double accesses_rate = 0.0;  // a_i, >= 0 (any unit, the same for all)
};

// C_i for each user, in their order. Throws std::invalid_argument for cache_lines < 0, a user
// with lines <= 0 or a negative rate.
std::vector<double> che_cache_shares(double cache_lines, const std::vector<CacheUser>& users);

}  // namespace numatwin::model
