#include "numatwin/model/solve_memo.hpp"

#include <bit>

#include "numatwin/model/bandwidth_model.hpp"

namespace numatwin::model {

struct SolveMemo::Entry {
  std::uint64_t hash = 0;
  std::vector<std::uint64_t> key;
  StreamRates rates;
  std::vector<double> next_warm_start;
};

SolveMemo::SolveMemo() = default;
SolveMemo::~SolveMemo() = default;
SolveMemo::SolveMemo(const SolveMemo&) = default;
SolveMemo& SolveMemo::operator=(const SolveMemo&) = default;
SolveMemo::SolveMemo(SolveMemo&&) noexcept = default;
SolveMemo& SolveMemo::operator=(SolveMemo&&) noexcept = default;

namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }
std::uint64_t bits(int x) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(x)); }

void add_spread(std::vector<std::uint64_t>& key, std::span<const NodeShare> spread) {
  key.push_back(spread.size());
  for (const NodeShare& share : spread) {
    key.push_back(bits(share.node));
    key.push_back(bits(share.fraction));
  }
}

}  // namespace

int SolveMemo::find(std::span<const Stream> streams, const std::vector<double>& warm_start) {
  // Every field, one word each, with the length of each list before it. (Writing into a
  // pre-counted buffer with several hash lanes, or leaving out the fields of a stream alike to
  // the one before, cost more instructions than this: 4.04 and 4.64 against 3.82 G in callgrind
  // on weights xeon-max-9462-2s sort-merge-join.)
  if (off_) return -1;
  ++finds_;
  key_.clear();
  key_.push_back(streams.size());
  for (const Stream& s : streams) {
    key_.push_back(bits(s.cpu_node));
    key_.push_back(bits(s.core));
    key_.push_back(bits(s.read_node));
    key_.push_back(bits(s.write_node));
    add_spread(key_, s.read_spread);
    add_spread(key_, s.write_spread);
    key_.push_back(bits(s.lines_in_flight));
    key_.push_back(bits(s.rate_limit_bytes_per_s));
  }
  key_.push_back(warm_start.size());
  for (double u : warm_start) key_.push_back(bits(u));
  // FNV-1a over the words in four interleaved lanes (word i into lane i mod 4), then the lanes
  // and a final mix: only to skip entries that cannot match (a match is the whole key compared).
  // One lane is a chain of a multiply per word; four run side by side (perf put half of find's
  // time in the one-lane chain on weights xeon-max-9462-2s sort-merge-join).
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t lane[4] = {1469598103934665603ULL, 0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL, 0x165667b19e3779f9ULL};
  std::size_t i = 0;
  const std::size_t words = key_.size();
  for (; i + 4 <= words; i += 4) {
    for (std::size_t k = 0; k < 4; ++k) lane[k] = (lane[k] ^ key_[i + k]) * kPrime;
  }
  for (std::size_t k = 0; i < words; ++i, ++k) lane[k] = (lane[k] ^ key_[i]) * kPrime;
  std::uint64_t h = lane[0];
  for (std::size_t k = 1; k < 4; ++k) h = (h ^ lane[k]) * kPrime;
  hash_ = h ^ (h >> 29U);
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    if (entries_[e].hash == hash_ && entries_[e].key == key_) {
      ++hits_;
      return static_cast<int>(e);
    }
  }
  if (finds_ >= kTrialFinds && 2 * hits_ < finds_) {
    off_ = true;
    entries_.clear();
  }
  return -1;
}

void SolveMemo::store(const StreamRates& rates, const std::vector<double>& next_warm_start) {
  if (off_) return;
  if (entries_.size() < kEntries) {
    entries_.push_back(Entry{hash_, key_, rates, next_warm_start});
    return;
  }
  Entry& e = entries_[oldest_];
  e.hash = hash_;
  e.key = key_;
  e.rates = rates;
  e.next_warm_start = next_warm_start;
  oldest_ = (oldest_ + 1) % kEntries;
}

const StreamRates& SolveMemo::rates(int entry) const { return entries_.at(static_cast<std::size_t>(entry)).rates; }

const std::vector<double>& SolveMemo::next_warm_start(int entry) const {
  return entries_.at(static_cast<std::size_t>(entry)).next_warm_start;
}

}  // namespace numatwin::model
