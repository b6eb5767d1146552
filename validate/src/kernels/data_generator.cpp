#include "numatwin/validate/kernels/data_generator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace numatwin::validate {
namespace {

__extension__ typedef unsigned __int128 uint128;  // GCC/Clang: exact 64 x 64-bit products

double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }  // [0, 1)

std::uint64_t below(std::uint64_t bits, std::uint64_t n) {  // floor(u n) without bias worth noting
  return static_cast<std::uint64_t>((static_cast<uint128>(bits) * n) >> 64);
}

std::uint64_t coprime_multiplier(std::uint64_t n, std::uint64_t start) {
  if (n <= 1) return 1;
  std::uint64_t a = (start % n) | 1U;
  if (a == 0) a = 1;
  while (std::gcd(a, n) != 1) a = (a + 2) % n == 0 ? 1 : (a + 2) % n;
  return a;
}

std::uint64_t mul_mod(std::uint64_t a, std::uint64_t b, std::uint64_t n) {
  return static_cast<std::uint64_t>((static_cast<uint128>(a) * b) % n);
}

}  // namespace

std::uint64_t mix64(std::uint64_t seed, std::uint64_t row, std::uint64_t stream) {
  std::uint64_t z = seed * 0x9E3779B97F4A7C15ULL + row * 0xD1B54A32D192ED03ULL + stream * 0x8CB92BA72F3D8DD7ULL + 0x632BE59BD9B4E019ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t generated_value(std::uint64_t seed, std::uint64_t row) { return mix64(seed, row, 7) >> 33; }

KeyGenerator::KeyGenerator(const sim::KeySpec& keys, std::uint64_t rows, std::uint64_t seed)
    : keys_(keys), groups_(0), rows_(rows), seed_(seed), window_(1), scatter_(1) {
  if (!(keys.groups >= 1.0) || keys.groups > 9e18) throw std::invalid_argument("key generator: groups must be >= 1");
  if (rows < 1) throw std::invalid_argument("key generator: rows must be >= 1");
  groups_ = static_cast<std::uint64_t>(std::llround(keys.groups));
  scatter_ = coprime_multiplier(groups_, 0x9E3779B97F4A7C15ULL);
  switch (keys.distribution) {
    case sim::KeyDistribution::kZipf: {
      if (!(keys.zipf_exponent > 0.0)) throw std::invalid_argument("key generator: zipf exponent must be > 0");
      zipf_s_ = keys.zipf_exponent;
      zipf_h_x1_ = zipf_h(1.5) - 1.0;
      zipf_h_n_ = zipf_h(static_cast<double>(groups_) + 0.5);
      zipf_shortcut_ = 2.0 - zipf_h_inverse(zipf_h(2.5) - std::pow(2.0, -zipf_s_));
      break;
    }
    case sim::KeyDistribution::kHeavyHitter:
      if (!(keys.heavy_hitter_share >= 0.0 && keys.heavy_hitter_share <= 1.0))
        throw std::invalid_argument("key generator: heavy-hitter share must be in [0, 1]");
      break;
    case sim::KeyDistribution::kMovingCluster:
      if (!(keys.window_groups >= 1.0)) throw std::invalid_argument("key generator: moving-cluster window must be >= 1");
      window_ = std::min(groups_, static_cast<std::uint64_t>(std::llround(keys.window_groups)));
      break;
    default: break;
  }
}

// H(x) = integral of t^-s: (x^(1-s) - 1) / (1 - s), log x when s = 1 (expm1/log1p keep it exact near s = 1).
double KeyGenerator::zipf_h(double x) const {
  const double log_x = std::log(x);
  const double t = (1.0 - zipf_s_) * log_x;
  return std::abs(t) > 1e-8 ? std::expm1(t) / (1.0 - zipf_s_) : log_x * (1.0 + t / 2.0);
}

double KeyGenerator::zipf_h_inverse(double y) const {
  const double t = y * (1.0 - zipf_s_);
  if (std::abs(t) > 1e-8) return std::exp(std::log1p(t) / (1.0 - zipf_s_));
  return std::exp(y * (1.0 - t / 2.0));
}

std::uint64_t KeyGenerator::zipf_rank(std::uint64_t row) const {
  const double n = static_cast<double>(groups_);
  for (std::uint64_t attempt = 0;; ++attempt) {
    const double u = zipf_h_n_ + unit(mix64(seed_, row, 1 + attempt)) * (zipf_h_x1_ - zipf_h_n_);
    const double x = zipf_h_inverse(u);
    double k = std::floor(x + 0.5);
    if (k < 1.0) k = 1.0;
    if (k > n) k = n;
    if (k - x <= zipf_shortcut_ || u >= zipf_h(k + 0.5) - std::pow(k, -zipf_s_)) return static_cast<std::uint64_t>(k);
  }
}

std::uint64_t KeyGenerator::key(std::uint64_t row) const {
  const std::uint64_t bits = mix64(seed_, row);
  switch (keys_.distribution) {
    case sim::KeyDistribution::kUniform: return below(bits, groups_);
    case sim::KeyDistribution::kZipf: return mul_mod(zipf_rank(row) - 1, scatter_, groups_);
    case sim::KeyDistribution::kHeavyHitter:
      return unit(mix64(seed_, row, 99)) < keys_.heavy_hitter_share ? 0 : below(bits, groups_);
    case sim::KeyDistribution::kMovingCluster: {
      const std::uint64_t start = static_cast<std::uint64_t>(
          (static_cast<uint128>(row) * (groups_ - window_)) / rows_);
      return start + below(bits, window_);
    }
    case sim::KeyDistribution::kSequential:
      return static_cast<std::uint64_t>((static_cast<uint128>(row) * groups_) / rows_);
  }
  return 0;
}

void KeyGenerator::fill_keys(std::uint64_t first_row, std::span<std::uint64_t> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = key(first_row + i);
}

void KeyGenerator::fill_tuples(std::uint64_t first_row, std::span<Tuple> out) const {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = Tuple{key(first_row + i), generated_value(seed_, first_row + i)};
}

UniqueKeys::UniqueKeys(std::uint64_t n, std::uint64_t seed) : n_(n), a_(1), b_(0) {
  if (n < 1) throw std::invalid_argument("unique keys: n must be >= 1");
  a_ = coprime_multiplier(n, mix64(seed, 0, 3) | 1U);
  b_ = mix64(seed, 1, 3) % n;
}

std::uint64_t UniqueKeys::key(std::uint64_t row) const {
  return static_cast<std::uint64_t>((static_cast<uint128>(a_) * (row % n_) + b_) % n_);
}

}  // namespace numatwin::validate
