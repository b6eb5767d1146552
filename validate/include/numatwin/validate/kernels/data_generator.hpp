// Generated relations for the real kernels: keys drawn from the distributions of
// sim/workload/key_distribution.hpp (Memarzia et al.), values, and unique (primary) keys. Every number is
// a pure function of (seed, row), so any worker may generate any chunk and the data do not
// depend on the thread count (first touch by the workers, generation in parallel).
//
// With G groups and N rows, row r, u_r uniform in [0, 1) from a counter-based generator:
//   uniform            key = floor(u_r G)
//   zipf(s)            rank k in 1..G with P(k) ~ k^-s, by rejection-inversion (Hörmann and
//                      Derflinger, "Rejection-inversion to generate variates from monotone
//                      discrete distributions", 1996): O(1) memory for any G. The rank is then
//                      scattered over [0, G) by a fixed bijection so hot keys are not adjacent.
//   heavy-hitter(q)    with probability q key 0, otherwise uniform
//   moving-cluster(W)  a window of W consecutive keys slides from 0 to G - W over the rows:
//                      key = floor(r (G - W) / N) + floor(u_r W); a window wider than the
//                      key range is the whole range (W = min(W, G))
//   sequential         each group's rows are consecutive: key = floor(r G / N)
// Values are uniform in [0, 2^31), so sums of up to 2^32 values fit in 64 bits.
// Unique keys: a bijection of [0, n), r -> (a r + b) mod n with gcd(a, n) = 1.
#pragma once

#include <cstdint>
#include <span>

#include "numatwin/sim/workload/key_distribution.hpp"

namespace numatwin::validate {

struct Tuple {  // the 16-byte tuple of the studies: 8-byte key, 8-byte value
  std::uint64_t key;
  std::uint64_t value;
};
static_assert(sizeof(Tuple) == 16);

// splitmix64 of (seed, row, stream): the counter-based source of every generated number.
std::uint64_t mix64(std::uint64_t seed, std::uint64_t row, std::uint64_t stream = 0);

class KeyGenerator {
 public:
  // Throws std::invalid_argument for groups < 1, rows < 1, a zipf exponent <= 0, a heavy-hitter
  // share outside [0, 1] or a moving-cluster window below 1.
  KeyGenerator(const sim::KeySpec& keys, std::uint64_t rows, std::uint64_t seed);

  [[nodiscard]] std::uint64_t key(std::uint64_t row) const;
  void fill_keys(std::uint64_t first_row, std::span<std::uint64_t> out) const;
  void fill_tuples(std::uint64_t first_row, std::span<Tuple> out) const;  // keys and values
  [[nodiscard]] std::uint64_t groups() const { return groups_; }
  [[nodiscard]] std::uint64_t rows() const { return rows_; }

 private:
  [[nodiscard]] std::uint64_t zipf_rank(std::uint64_t row) const;  // 1..G
  [[nodiscard]] double zipf_h(double x) const;                     // integral of x^-s
  [[nodiscard]] double zipf_h_inverse(double y) const;

  sim::KeySpec keys_;
  std::uint64_t groups_;
  std::uint64_t rows_;
  std::uint64_t seed_;
  std::uint64_t window_;
  std::uint64_t scatter_;  // odd multiplier coprime with G
  double zipf_s_ = 0.0;
  double zipf_h_x1_ = 0.0;
  double zipf_h_n_ = 0.0;
  double zipf_shortcut_ = 0.0;
};

// The value of row `row` (uniform in [0, 2^31)).
std::uint64_t generated_value(std::uint64_t seed, std::uint64_t row);

// A fixed bijection of [0, n) (n >= 1): distinct rows get distinct keys, in a scattered order.
class UniqueKeys {
 public:
  UniqueKeys(std::uint64_t n, std::uint64_t seed);
  [[nodiscard]] std::uint64_t key(std::uint64_t row) const;

 private:
  std::uint64_t n_;
  std::uint64_t a_;
  std::uint64_t b_;
};

}  // namespace numatwin::validate
