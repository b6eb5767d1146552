#include "numatwin/model/solve_memo.hpp"

#include <bit>
#include <stdexcept>

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

std::uint64_t* put_spread(std::uint64_t* p, std::span<const NodeShare> spread) {
  *p++ = spread.size();
  for (const NodeShare& share : spread) {
    *p++ = bits(share.node);
    *p++ = bits(share.fraction);
  }
  return p;
}

bool same_spread(std::span<const NodeShare> a, std::span<const NodeShare> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (bits(a[i].node) != bits(b[i].node) || bits(a[i].fraction) != bits(b[i].fraction)) return false;
  return true;
}

// Every field but the core as the stream before (bit for bit): the simulator's streams come in
// runs of alike threads.
bool as_before(const Stream& s, const Stream& before) {
  return s.cpu_node == before.cpu_node && s.read_node == before.read_node && s.write_node == before.write_node &&
         bits(s.lines_in_flight) == bits(before.lines_in_flight) &&
         bits(s.rate_limit_bytes_per_s) == bits(before.rate_limit_bytes_per_s) &&
         same_spread(s.read_spread, before.read_spread) && same_spread(s.write_spread, before.write_spread);
}

}  // namespace

int SolveMemo::find(std::span<const Stream> streams, const std::vector<double>& warm_start) {
  // The warm start first: of two keys with the same streams it is where they differ. Then per
  // stream its core and 0 (every other field as the stream before) or 1 and those fields.
  std::size_t size = 2 + warm_start.size() + 2 * streams.size();
  for (std::size_t i = 0; i < streams.size(); ++i)
    if (i == 0 || !as_before(streams[i], streams[i - 1]))
      size += 7 + 2 * (streams[i].read_spread.size() + streams[i].write_spread.size());
  key_.resize(size);
  std::uint64_t* p = key_.data();
  *p++ = warm_start.size();
  for (double u : warm_start) *p++ = bits(u);
  *p++ = streams.size();
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const Stream& s = streams[i];
    *p++ = bits(s.core);
    if (i > 0 && as_before(s, streams[i - 1])) {
      *p++ = 0;
      continue;
    }
    *p++ = 1;
    *p++ = bits(s.cpu_node);
    *p++ = bits(s.read_node);
    *p++ = bits(s.write_node);
    p = put_spread(p, s.read_spread);
    p = put_spread(p, s.write_spread);
    *p++ = bits(s.lines_in_flight);
    *p++ = bits(s.rate_limit_bytes_per_s);
  }
  if (p != key_.data() + key_.size()) throw std::logic_error("solve memo: key size miscounted");
  // FNV-1a over the words, then a final mix: only to skip entries that cannot match (a match is
  // the whole key compared).
  std::uint64_t h = 1469598103934665603ULL;
  for (std::uint64_t w : key_) h = (h ^ w) * 1099511628211ULL;
  hash_ = h ^ (h >> 29U);
  for (std::size_t e = 0; e < entries_.size(); ++e) {
    if (entries_[e].hash == hash_ && entries_[e].key == key_) {
      ++hits_;
      return static_cast<int>(e);
    }
  }
  return -1;
}

void SolveMemo::store(const StreamRates& rates, const std::vector<double>& next_warm_start) {
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
