#include "numatwin/sim/workload/key_distribution.hpp"

#include <cstdio>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace numatwin::sim {

double harmonic(double n, double s) {
  if (n <= 0.0) return 0.0;
  // Up to 1e4 the sum runs to floor(n) (a step in n, as a count of keys is); beyond, to n itself.
  constexpr double kFloorBelow = 1e4;
  const double m = n <= kFloorBelow ? std::floor(n) : n;
  // The first a terms exactly, small terms first; the tail sum_{i=a+1..m} i^-s by Euler-Maclaurin
  // with the Bernoulli terms B2, B4, B6. Its remainder is below |B8| / 8! (s)_7 a^(-s-7): 2e-17 of
  // H at s = 0.5 and a = 64, less for larger s (a sum of 1e4 terms rounds by more than that).
  constexpr double kExactTerms = 64.0;
  const double exact = std::min(m, kExactTerms);
  double sum = 0.0;
  for (double i = exact; i >= 1.0; i -= 1.0) sum += std::pow(i, -s);  // small terms first
  if (m <= exact) return sum;
  const double a = exact;
  // With g(x) = x^-s, its odd derivatives are g' = -s x^(-s-1), g3 = -s(s+1)(s+2) x^(-s-3),
  // g5 = -s(s+1)(s+2)(s+3)(s+4) x^(-s-5); each enters as g(m) - g(a).
  const auto g = [s](double x, double extra_power) { return std::pow(x, -s - extra_power); };
  const double integral = std::abs(s - 1.0) < 1e-12 ? std::log(m / a) : (std::pow(m, 1.0 - s) - std::pow(a, 1.0 - s)) / (1.0 - s);
  const double d1 = -s * (g(m, 1.0) - g(a, 1.0));
  const double d3 = -s * (s + 1.0) * (s + 2.0) * (g(m, 3.0) - g(a, 3.0));
  const double d5 = -s * (s + 1.0) * (s + 2.0) * (s + 3.0) * (s + 4.0) * (g(m, 5.0) - g(a, 5.0));
  // sum_{i=a+1..m} g(i) = integral + (g(m) - g(a)) / 2 + B2/2! d1 + B4/4! d3 + B6/6! d5,
  // B2 = 1/6, B4 = -1/30, B6 = 1/42.
  return sum + integral + 0.5 * (g(m, 0.0) - g(a, 0.0)) + d1 / 12.0 - d3 / 720.0 + d5 / 30240.0;
}

double cache_hit_ratio(const KeySpec& keys, double cached_entries, double accesses) {
  const double g = std::max(1.0, keys.groups);
  const double c = std::max(0.0, cached_entries);
  const double uniform = std::min(1.0, c / g);
  switch (keys.distribution) {
    case KeyDistribution::kUniform: return uniform;
    case KeyDistribution::kZipf: return std::min(1.0, harmonic(std::min(c, g), keys.zipf_exponent) / harmonic(g, keys.zipf_exponent));
    case KeyDistribution::kHeavyHitter: return keys.heavy_hitter_share + (1.0 - keys.heavy_hitter_share) * uniform;
    case KeyDistribution::kMovingCluster: return std::min(1.0, c / std::max(1.0, std::min(keys.window_groups, g)));
    case KeyDistribution::kSequential: return accesses > g ? 1.0 - g / accesses : 0.0;
  }
  return uniform;
}

KeySpec parse_key_distribution(const std::string& text, double groups) {
  KeySpec k;
  k.groups = groups;
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  double value = -1.0;
  if (colon != std::string::npos) {
    try {
      std::size_t used = 0;
      value = std::stod(text.substr(colon + 1), &used);
      if (used != text.size() - colon - 1) throw std::invalid_argument(text);
    } catch (const std::exception&) {
      throw std::invalid_argument("key distribution \"" + text + "\": expected a number after ':'");
    }
  }
  if (name == "uniform" && colon == std::string::npos) {
    k.distribution = KeyDistribution::kUniform;
  } else if (name == "zipf") {
    k.distribution = KeyDistribution::kZipf;
    if (value >= 0.0) k.zipf_exponent = value;
    if (!(k.zipf_exponent > 0.0)) throw std::invalid_argument("key distribution \"" + text + "\": the Zipf exponent must be > 0");
  } else if (name == "heavy-hitter") {
    k.distribution = KeyDistribution::kHeavyHitter;
    if (value >= 0.0) k.heavy_hitter_share = value;
    if (!(k.heavy_hitter_share >= 0.0 && k.heavy_hitter_share <= 1.0)) {
      throw std::invalid_argument("key distribution \"" + text + "\": the heavy hitter's share is in [0, 1]");
    }
  } else if (name == "moving-cluster") {
    k.distribution = KeyDistribution::kMovingCluster;
    if (value >= 0.0) k.window_groups = value;
    if (!(k.window_groups >= 1.0)) throw std::invalid_argument("key distribution \"" + text + "\": the window holds >= 1 group");
  } else if (name == "sequential" && colon == std::string::npos) {
    k.distribution = KeyDistribution::kSequential;
  } else {
    throw std::invalid_argument("unknown key distribution \"" + text +
                                "\"; expected uniform, zipf[:s], heavy-hitter[:share], moving-cluster[:window], sequential");
  }
  return k;
}

namespace {
std::string number_text(double x) {  // shortest form: 0.5, 1000
  char text[32];
  std::snprintf(text, sizeof text, "%g", x);
  return text;
}
}  // namespace

std::string key_distribution_name(const KeySpec& keys) {
  switch (keys.distribution) {
    case KeyDistribution::kUniform: return "uniform";
    case KeyDistribution::kZipf: return "zipf:" + number_text(keys.zipf_exponent);
    case KeyDistribution::kHeavyHitter: return "heavy-hitter:" + number_text(keys.heavy_hitter_share);
    case KeyDistribution::kMovingCluster: return "moving-cluster:" + number_text(keys.window_groups);
    case KeyDistribution::kSequential: return "sequential";
  }
  return "?";
}

}  // namespace numatwin::sim
