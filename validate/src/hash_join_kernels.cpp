#include "numatwin/validate/hash_join_kernels.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "numatwin/validate/aggregation_kernels.hpp"
#include "numatwin/validate/placed_dataset.hpp"
#include "numatwin/validate/run_support.hpp"

namespace numatwin::validate {
namespace {

template <bool Concurrent>
void build_impl(TableView table, const Tuple* __restrict r, std::size_t n) {
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[d];
  const std::size_t head = std::min(n, d);
  for (std::size_t i = 0; i < head; ++i) {
    ring[i] = table.slot(r[i].key);
    table.prefetch(ring[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t s = ring[i % d];
    if (i + d < n) {
      ring[i % d] = table.slot(r[i + d].key);
      table.prefetch(ring[i % d]);
    }
    table.insert<Concurrent>(r[i].key, r[i].value, s);
  }
}

inline std::uint64_t partition_of(std::uint64_t key, int bits) {
  return bits == 0 ? 0 : (key * kFibonacci) >> (64 - bits);
}

struct alignas(64) Line {
  Tuple tuples[4];
};

// Copies `in` to out + offsets[p] per partition p (offsets advance), through line buffers.
void scatter_partitions(const Tuple* __restrict in, std::size_t n, Tuple* __restrict out,
                        std::uint64_t* offsets, int bits, Line* buffers, std::uint32_t* fill) {
  const std::size_t parts = std::size_t{1} << bits;
  std::fill(fill, fill + parts, 0U);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t p = partition_of(in[i].key, bits);
    Line& line = buffers[p];
    line.tuples[fill[p]] = in[i];
    if (++fill[p] == 4) {
      std::memcpy(out + offsets[p], &line, sizeof(Line));
      offsets[p] += 4;
      fill[p] = 0;
    }
  }
  for (std::size_t p = 0; p < parts; ++p) {
    std::memcpy(out + offsets[p], buffers[p].tuples, fill[p] * sizeof(Tuple));
    offsets[p] += fill[p];
  }
}

struct LocalEntry {
  std::uint64_t key;
  std::uint64_t value;
};

// Builds a private table from r_p and probes it with s_p; hash bits below the partition bits.
JoinTotals join_partition(const Tuple* __restrict r, std::size_t nr, const Tuple* __restrict s,
                          std::size_t ns, int bits, LocalEntry* table, std::size_t capacity_bits) {
  JoinTotals totals;
  if (nr == 0 || ns == 0) return totals;
  const std::size_t capacity = std::size_t{1} << capacity_bits;
  const std::uint64_t mask = capacity - 1;
  for (std::size_t i = 0; i < capacity; ++i) table[i].key = kEmptyKey;
  const auto slot = [&](std::uint64_t key) {
    return ((key * kFibonacci) << bits) >> (64 - capacity_bits);
  };
  for (std::size_t i = 0; i < nr; ++i) {
    std::uint64_t h = slot(r[i].key);
    while (table[h].key != kEmptyKey) h = (h + 1) & mask;
    table[h] = {r[i].key, r[i].value};
  }
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < ns; ++i) {
    const std::uint64_t key = s[i].key;
    std::uint64_t h = slot(key);
    for (;;) {
      const LocalEntry& e = table[h];
      if (e.key == key) {
        ++matches;
        checksum += e.value + s[i].value;
        break;
      }
      if (e.key == kEmptyKey) break;
      h = (h + 1) & mask;
    }
  }
  totals.matches = matches;
  totals.checksum = checksum;
  return totals;
}

}  // namespace

void hash_join_build(TableView table, std::span<const Tuple> build, bool concurrent) {
  if (concurrent) {
    build_impl<true>(table, build.data(), build.size());
  } else {
    build_impl<false>(table, build.data(), build.size());
  }
}

JoinTotals hash_join_probe(TableView table, std::span<const Tuple> probe) {
  const Tuple* __restrict s = probe.data();
  const std::size_t n = probe.size();
  constexpr std::size_t d = kPrefetchDistance;
  std::uint64_t ring[d];
  const std::size_t head = std::min(n, d);
  for (std::size_t i = 0; i < head; ++i) {
    ring[i] = table.slot(s[i].key);
    table.prefetch_read(ring[i]);
  }
  std::uint64_t matches = 0;
  std::uint64_t checksum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t slot = ring[i % d];
    if (i + d < n) {
      ring[i % d] = table.slot(s[i + d].key);
      table.prefetch_read(ring[i % d]);
    }
    const std::uint64_t key = s[i].key;
    for (;;) {
      const TableEntry& e = table.entries[slot];
      const std::uint64_t current = e.key.load(std::memory_order_relaxed);
      if (current == key) {
        ++matches;
        checksum += e.payload.load(std::memory_order_relaxed) + s[i].value;
        break;
      }
      if (current == kEmptyKey) break;
      slot = table.next(slot);
    }
  }
  return {matches, checksum};
}

JoinTotals radix_hash_join(ThreadTeam& team, std::span<const Tuple> r, std::span<const Tuple> s,
                           Tuple* r_out, Tuple* s_out, int bits, std::vector<PhaseTime>* phases) {
  if (bits < 0 || bits > 20) throw std::invalid_argument("radix bits must be in [0, 20]");
  const int workers = team.size();
  const std::size_t parts = std::size_t{1} << bits;
  // hist[w][p] (R) and hist[w][parts + p] (S), then the write offsets.
  std::vector<std::vector<std::uint64_t>> offsets(static_cast<std::size_t>(workers),
                                                  std::vector<std::uint64_t>(2 * parts, 0));
  std::vector<std::uint64_t> r_begin(parts + 1, 0);
  std::vector<std::uint64_t> s_begin(parts + 1, 0);
  std::atomic<std::size_t> next_partition{0};
  std::vector<JoinTotals> totals(static_cast<std::size_t>(workers));
  // Allocated before the parallel part: nothing may throw between two barriers.
  std::vector<std::unique_ptr<Line[]>> buffers;
  std::vector<std::vector<std::uint32_t>> fills;
  for (int w = 0; w < workers; ++w) {
    buffers.push_back(std::make_unique<Line[]>(parts));
    fills.emplace_back(parts);
  }
  double t_partitioned = 0.0;
  const double t0 = now_seconds();
  team.run([&](int w) {
    const auto wi = static_cast<std::size_t>(w);
    const auto [rb, re] = PlacedDataset::chunk(r.size(), w, workers);
    const auto [sb, se] = PlacedDataset::chunk(s.size(), w, workers);
    std::vector<std::uint64_t>& mine = offsets[wi];
    for (std::size_t i = rb; i < re; ++i) ++mine[partition_of(r[i].key, bits)];
    for (std::size_t i = sb; i < se; ++i) ++mine[parts + partition_of(s[i].key, bits)];
    team.barrier();
    if (w == 0) {
      std::uint64_t rr = 0;
      std::uint64_t ss = 0;
      for (std::size_t p = 0; p < parts; ++p) {
        r_begin[p] = rr;
        s_begin[p] = ss;
        for (auto& h : offsets) {
          const std::uint64_t rc = h[p];
          const std::uint64_t sc = h[parts + p];
          h[p] = rr;
          h[parts + p] = ss;
          rr += rc;
          ss += sc;
        }
      }
      r_begin[parts] = rr;
      s_begin[parts] = ss;
    }
    team.barrier();
    scatter_partitions(r.data() + rb, re - rb, r_out, mine.data(), bits, buffers[wi].get(),
                       fills[wi].data());
    scatter_partitions(s.data() + sb, se - sb, s_out, mine.data() + parts, bits, buffers[wi].get(),
                       fills[wi].data());
    team.barrier();
    if (w == 0) t_partitioned = now_seconds();
    std::uint64_t largest = 1;
    for (std::size_t p = 0; p < parts; ++p)
      largest = std::max(largest, r_begin[p + 1] - r_begin[p]);
    const auto capacity_bits = static_cast<std::size_t>(std::bit_width(2 * largest - 1));
    auto table = std::make_unique<LocalEntry[]>(std::size_t{1} << capacity_bits);
    JoinTotals sum;
    for (;;) {
      const std::size_t p = next_partition.fetch_add(1, std::memory_order_relaxed);
      if (p >= parts) break;
      const std::uint64_t nr = r_begin[p + 1] - r_begin[p];
      // The smallest power of two >= 2 |R_p| keeps the table half full and cache resident.
      const auto bits_p =
          static_cast<std::size_t>(std::bit_width(std::max<std::uint64_t>(2 * nr, 2) - 1));
      sum += join_partition(r_out + r_begin[p], nr, s_out + s_begin[p], s_begin[p + 1] - s_begin[p],
                            bits, table.get(), bits_p);
    }
    totals[wi] = sum;
  });
  const double t1 = now_seconds();
  if (phases != nullptr) {
    phases->push_back({"partition", t_partitioned - t0});
    phases->push_back({"join", t1 - t_partitioned});
  }
  JoinTotals result;
  for (const JoinTotals& t : totals) result += t;
  return result;
}

}  // namespace numatwin::validate
