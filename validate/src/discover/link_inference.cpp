#include "numatwin/validate/discover/link_inference.hpp"

#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>

namespace numatwin::validate {

std::vector<std::vector<int>> hop_matrix_of(int node_count, const std::vector<std::pair<int, int>>& links) {
  std::vector<std::vector<int>> adjacency(static_cast<std::size_t>(node_count));
  for (const auto& [a, b] : links) {
    if (a < 0 || b < 0 || a >= node_count || b >= node_count) {
      throw std::invalid_argument("hop_matrix_of: link (" + std::to_string(a) + ", " + std::to_string(b) +
                                  ") outside 0.." + std::to_string(node_count - 1));
    }
    adjacency[a].push_back(b);
    adjacency[b].push_back(a);
  }
  std::vector<std::vector<int>> hops(static_cast<std::size_t>(node_count),
                                     std::vector<int>(static_cast<std::size_t>(node_count), -1));
  for (int source = 0; source < node_count; ++source) {
    std::vector<int>& row = hops[source];
    row[source] = 0;
    std::deque<int> queue{source};
    while (!queue.empty()) {
      const int at = queue.front();
      queue.pop_front();
      for (int next : adjacency[at]) {
        if (row[next] < 0) {
          row[next] = row[at] + 1;
          queue.push_back(next);
        }
      }
    }
  }
  return hops;
}

LinkInference infer_links(const std::vector<std::vector<int>>& distances) {
  const int n = static_cast<int>(distances.size());
  if (n == 0) throw std::invalid_argument("infer_links: empty distance matrix");
  for (const auto& row : distances) {
    if (static_cast<int>(row.size()) != n) throw std::invalid_argument("infer_links: the distance matrix is not square");
  }
  LinkInference result;
  auto pair_text = [&](int i, int j) {
    return "d(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(distances[i][j]);
  };
  if (n == 1) {
    result.consistent = true;
    result.hop_matrix = {{0}};
    result.explanation = "one node: no links";
    return result;
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j && distances[i][j] <= distances[i][i]) {
        result.explanation = "the matrix does not determine the links: " + pair_text(i, j) +
                             " is not larger than the local distance " + pair_text(i, i);
        return result;
      }
      if (distances[i][j] != distances[j][i]) {
        result.explanation = "the matrix does not determine the links: it is asymmetric (" + pair_text(i, j) +
                             " but " + pair_text(j, i) + ")";
        return result;
      }
    }
  }
  std::set<int> classes;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j) classes.insert(distances[i][j]);
    }
  }
  result.distance_classes.assign(classes.begin(), classes.end());
  const int nearest = result.distance_classes.front();
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (distances[i][j] == nearest) result.links.emplace_back(i, j);
    }
  }
  result.hop_matrix = hop_matrix_of(n, result.links);
  auto rank_of = [&](int distance) {
    return static_cast<int>(std::lower_bound(result.distance_classes.begin(), result.distance_classes.end(), distance) -
                            result.distance_classes.begin()) + 1;
  };
  std::string classes_text;
  for (std::size_t c = 0; c < result.distance_classes.size(); ++c) {
    classes_text += (c == 0 ? "" : "/") + std::to_string(result.distance_classes[c]);
  }
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const int hops = result.hop_matrix[i][j];
      const int rank = rank_of(distances[i][j]);
      if (hops != rank) {
        result.explanation = "the matrix does not determine the links: the graph of the " +
                             std::to_string(result.links.size()) + " pairs at distance " + std::to_string(nearest) +
                             (hops < 0 ? " does not connect " + std::to_string(i) + " and " + std::to_string(j)
                                       : " puts " + std::to_string(i) + " and " + std::to_string(j) + " " +
                                             std::to_string(hops) + " hop(s) apart") +
                             ", but " + pair_text(i, j) + " is distance class " + std::to_string(rank) + " of " +
                             classes_text;
        return result;
      }
    }
  }
  result.consistent = true;
  result.explanation = "the " + std::to_string(result.links.size()) + " pairs at distance " + std::to_string(nearest) +
                       " form a graph whose hop counts 1.." + std::to_string(result.distance_classes.size()) +
                       " reproduce the distance classes " + classes_text;
  return result;
}

LinkInference infer_links(const std::vector<std::vector<int>>& distances, const std::vector<bool>& has_cpus) {
  const int n = static_cast<int>(distances.size());
  if (static_cast<int>(has_cpus.size()) != n) throw std::invalid_argument("infer_links: one has_cpus entry per node is needed");
  std::vector<int> cpu_nodes;
  for (int i = 0; i < n; ++i) {
    if (has_cpus[i]) cpu_nodes.push_back(i);
  }
  if (static_cast<int>(cpu_nodes.size()) == n || cpu_nodes.size() < 2) return infer_links(distances);
  for (const auto& row : distances) {
    if (static_cast<int>(row.size()) != n) throw std::invalid_argument("infer_links: the distance matrix is not square");
  }
  // The nodes with CPUs among themselves.
  std::vector<std::vector<int>> sub(cpu_nodes.size(), std::vector<int>(cpu_nodes.size()));
  for (std::size_t a = 0; a < cpu_nodes.size(); ++a) {
    for (std::size_t b = 0; b < cpu_nodes.size(); ++b) sub[a][b] = distances[cpu_nodes[a]][cpu_nodes[b]];
  }
  const LinkInference among = infer_links(sub);
  LinkInference result;
  std::set<int> classes;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (i != j) classes.insert(distances[i][j]);
    }
  }
  result.distance_classes.assign(classes.begin(), classes.end());
  for (const auto& [a, b] : among.links) result.links.emplace_back(cpu_nodes[a], cpu_nodes[b]);
  if (!among.consistent) {
    result.explanation = "among the nodes with CPUs, " + among.explanation;
    result.hop_matrix = hop_matrix_of(n, result.links);
    return result;
  }
  std::string attached;
  for (int k = 0; k < n; ++k) {
    if (has_cpus[k]) continue;
    int host = -1;
    bool tie = false;
    for (int c : cpu_nodes) {
      const int d = std::min(distances[k][c], distances[c][k]);
      if (host < 0 || d < std::min(distances[k][host], distances[host][k])) {
        host = c;
        tie = false;
      } else if (d == std::min(distances[k][host], distances[host][k])) {
        tie = true;
      }
    }
    if (tie) {
      result.explanation = "the matrix does not determine the links: memory-only node " + std::to_string(k) +
                           " is equally near to several nodes with CPUs (d(" + std::to_string(k) + "," + std::to_string(host) +
                           ") = " + std::to_string(distances[k][host]) + ")";
      result.hop_matrix = hop_matrix_of(n, result.links);
      return result;
    }
    result.links.emplace_back(std::min(k, host), std::max(k, host));
    attached += (attached.empty() ? "" : ", ") + std::to_string(k) + " to " + std::to_string(host) + " (d = " +
                std::to_string(distances[k][host]) + ")";
  }
  std::sort(result.links.begin(), result.links.end());
  result.hop_matrix = hop_matrix_of(n, result.links);
  result.consistent = true;
  result.explanation = "among the nodes with CPUs, " + among.explanation + "; each memory-only node is linked to its nearest node with CPUs: " +
                       attached;
  return result;
}

}  // namespace numatwin::validate
