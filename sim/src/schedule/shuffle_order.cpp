#include "numatwin/sim/schedule/shuffle_order.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>
#include <tuple>

namespace numatwin::sim {

ShuffleOrder shuffle_order(const std::vector<PlacedThread>& placed, ShuffleAlgorithm algorithm, std::uint64_t seed,
                           const std::vector<std::vector<int>>& orders) {
  const int n = static_cast<int>(placed.size());
  // Rank of each thread among the threads of its node, in placement order.
  std::vector<int> rank(n, 0);
  std::map<model::NodeIndex, int> count;
  for (int t = 0; t < n; ++t) rank[t] = count[placed[t].node]++;
  ShuffleOrder order;
  // Outer ring: threads by (node, rank). Inner ring: producers by (rank, node).
  order.outer.resize(n);
  std::iota(order.outer.begin(), order.outer.end(), 0);
  std::stable_sort(order.outer.begin(), order.outer.end(), [&](int a, int b) {
    return std::tie(placed[a].node, rank[a]) < std::tie(placed[b].node, rank[b]);
  });
  std::vector<int> inner = order.outer;
  std::stable_sort(inner.begin(), inner.end(), [&](int a, int b) {
    return std::tie(rank[a], placed[a].node) < std::tie(rank[b], placed[b].node);
  });
  std::mt19937_64 random(seed);
  order.producers.resize(n);
  for (int o = 0; o < n; ++o) {
    std::vector<int>& visit = order.producers[o];
    switch (algorithm) {
      case ShuffleAlgorithm::kNaive:
        visit = order.outer;
        break;
      case ShuffleAlgorithm::kRing:
        visit.resize(n);
        for (int k = 0; k < n; ++k) visit[k] = inner[(o + k) % n];
        break;
      case ShuffleAlgorithm::kCoordinatedRandom:
        visit = order.outer;
        std::shuffle(visit.begin(), visit.end(), random);
        break;
      case ShuffleAlgorithm::kScheduled:
        if (orders.size() != static_cast<std::size_t>(n)) {
          throw std::invalid_argument("--algorithm scheduled needs one producer order per thread (numatwin schedule designs them)");
        }
        visit = orders[static_cast<std::size_t>(order.outer[o])];
        break;
    }
  }
  return order;
}

}  // namespace numatwin::sim
