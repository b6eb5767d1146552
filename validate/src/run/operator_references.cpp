// The single-threaded references the operator kernels' results are verified against (declared
// in operator_run_common.hpp): direct addressing, keys are dense integers.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "operator_run_common.hpp"

namespace numatwin::validate {

// The reference of an aggregation, by direct addressing (keys are in [0, G)): per key the count,
// or twice the median from its sorted values.
GroupDigest reference_aggregation(const Tuple* input, std::uint64_t rows, std::uint64_t groups,
                                  bool median) {
  std::vector<std::uint64_t> counts(groups + 1, 0);
  for (std::uint64_t i = 0; i < rows; ++i) {
    if (input[i].key >= groups)
      throw std::runtime_error("generated key " + std::to_string(input[i].key) + " outside [0, G)");
    ++counts[input[i].key];
  }
  GroupDigest d;
  if (!median) {
    for (std::uint64_t k = 0; k < groups; ++k) {
      if (counts[k] == 0) continue;
      ++d.groups;
      d.digest += group_digest_term(k, counts[k]);
      d.payload_sum += counts[k];
    }
    return d;
  }
  std::vector<std::uint64_t> start(groups + 1, 0);
  for (std::uint64_t k = 0; k < groups; ++k) start[k + 1] = start[k] + counts[k];
  std::vector<std::uint64_t> values(rows);
  std::vector<std::uint64_t> cursor(start.begin(), start.end() - 1);
  for (std::uint64_t i = 0; i < rows; ++i) values[cursor[input[i].key]++] = input[i].value;
  for (std::uint64_t k = 0; k < groups; ++k) {
    if (counts[k] == 0) continue;
    auto* run = values.data() + start[k];
    std::sort(run, run + counts[k]);
    const std::uint64_t n = counts[k];
    const std::uint64_t twice = run[(n - 1) / 2] + run[n / 2];
    ++d.groups;
    d.digest += group_digest_term(k, twice);
    d.payload_sum += twice;
  }
  return d;
}

void check_digest(const GroupDigest& got, const GroupDigest& want, const char* what) {
  if (got.groups != want.groups || got.digest != want.digest || got.payload_sum != want.payload_sum)
    throw std::runtime_error(std::string(what) +
                             " differs from the reference: " + std::to_string(got.groups) +
                             " groups (" + std::to_string(want.groups) + " expected), digest " +
                             std::to_string(got.digest) + " (" + std::to_string(want.digest) + ")");
}

JoinTotals reference_join(const Tuple* r, std::uint64_t nr, const Tuple* s, std::uint64_t ns,
                          bool rank) {
  std::vector<std::uint64_t> by_key(nr, 0);
  std::vector<bool> present(nr, false);
  std::vector<std::uint64_t> keys;
  if (rank) {
    keys.resize(nr);
    for (std::uint64_t i = 0; i < nr; ++i) keys[i] = r[i].key;
    std::sort(keys.begin(), keys.end());
  }
  for (std::uint64_t i = 0; i < nr; ++i) {
    const std::uint64_t k = rank ? keys[i] : r[i].key;
    if (k >= nr)
      throw std::runtime_error("generated build key " + std::to_string(k) + " outside [0, |R|)");
    by_key[k] = rank ? i : r[i].value;
    present[k] = true;
  }
  JoinTotals t;
  for (std::uint64_t i = 0; i < ns; ++i) {
    const std::uint64_t k = s[i].key;
    if (k < nr && present[k]) {
      ++t.matches;
      t.checksum += by_key[k] + s[i].value;
    }
  }
  return t;
}

void check_join(const JoinTotals& got, const JoinTotals& want, const char* what) {
  if (got.matches != want.matches || got.checksum != want.checksum)
    throw std::runtime_error(
        std::string(what) + " differs from the reference: " + std::to_string(got.matches) +
        " matches (" + std::to_string(want.matches) + " expected), checksum " +
        std::to_string(got.checksum) + " (" + std::to_string(want.checksum) + ")");
}

}  // namespace numatwin::validate
