// Key distributions of the generated data (Memarzia et al.) and what they mean for a table that
// is accessed at random: the share of accesses that hit in the last-level cache.
//
// With G groups (keys), an LLC that holds C table entries and LRU keeping the hottest entries:
//   uniform          h = min(1, C / G)
//   zipf(s)          h = H(min(C, G), s) / H(G, s),  H(n, s) = sum_{i=1..n} i^-s
//   heavy-hitter(q)  a share q of the accesses goes to one key: h = q + (1 - q) min(1, C / G)
//   moving-cluster   keys drawn from a window of W consecutive groups that slides along:
//                    h = min(1, C / W)
//   sequential       each group's records are consecutive: one miss per group,
//                    h = 1 - G / N for N accesses (0 if G >= N)
#pragma once

#include <string>

namespace numatwin::sim {

enum class KeyDistribution { kUniform, kZipf, kHeavyHitter, kMovingCluster, kSequential };

struct KeySpec {
  KeyDistribution distribution = KeyDistribution::kUniform;
  double groups = 1e6;               // distinct keys G
  double zipf_exponent = 0.5;        // s (the study uses 0.5)
  double heavy_hitter_share = 0.5;   // q
  double window_groups = 1000.0;     // W, moving cluster
};

// Share of `accesses` random accesses to a table of `groups` entries that hit in a cache
// holding `cached_entries` of them, under the distribution (formulas above).
double cache_hit_ratio(const KeySpec& keys, double cached_entries, double accesses);

// Generalised harmonic number H(n, s), summed to floor(n) up to n = 1e4 and to n beyond; the first
// 64 terms exactly, the rest by Euler-Maclaurin (relative error below 1e-15).
double harmonic(double n, double s);

// "uniform", "zipf", "zipf:0.8", "heavy-hitter", "heavy-hitter:0.3", "moving-cluster",
// "moving-cluster:5000", "sequential". Throws std::invalid_argument.
KeySpec parse_key_distribution(const std::string& text, double groups);
std::string key_distribution_name(const KeySpec& keys);

}  // namespace numatwin::sim
