// The radix-partitioned hash join (hash_join_kernels.hpp): histogram, prefix sum, scatter
// through write-combining buffers flushed with streaming stores, then a private cache-resident
// table per partition.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/kernel_support.hpp"
#include "radix_join_steps.hpp"

namespace numatwin::validate {

using radix::count_partitions;
using radix::join_partition;
using radix::scatter;
using radix::ScatterBuffers;
using radix::table_bits;
using radix::kWideBufferPartitions;
using radix::kWideBufferLines;
using radix::LocalEntry;

JoinTotals radix_hash_join(ThreadTeam& team, std::span<const Tuple> r, std::span<const Tuple> s,
                           Tuple* r_out, Tuple* s_out, int bits, std::vector<PhaseTime>* phases) {
  if (bits < 0 || bits > kMaxRadixJoinBits)
    throw std::invalid_argument("radix bits must be in [0, " + std::to_string(kMaxRadixJoinBits) +
                                "]");
  const int workers = team.size();
  const auto wn = static_cast<std::size_t>(workers);
  const std::size_t parts = std::size_t{1} << bits;
  // offsets[w][p] (R) and offsets[w][parts + p] (S): histograms, then write positions.
  std::vector<std::vector<std::uint64_t>> offsets(wn, std::vector<std::uint64_t>(2 * parts, 0));
  std::vector<std::uint64_t> r_begin(parts + 1, 0);
  std::vector<std::uint64_t> s_begin(parts + 1, 0);
  std::atomic<std::size_t> next_partition{0};
  std::vector<JoinTotals> totals(wn);
  // Allocated before the parallel part: nothing may throw between two barriers.
  const std::uint32_t lines = parts <= kWideBufferPartitions ? kWideBufferLines : 1;
  std::vector<ScatterBuffers> buffers;
  buffers.reserve(wn);
  for (std::size_t w = 0; w < wn; ++w) buffers.emplace_back(parts, lines);
  double t_partitioned = 0.0;
  const double t0 = now_seconds();
  team.run([&](int w) {
    const auto wi = static_cast<std::size_t>(w);
    const auto [rb, re] = worker_chunk(r.size(), w, workers);
    const auto [sb, se] = worker_chunk(s.size(), w, workers);
    std::uint64_t* mine = offsets[wi].data();
    count_partitions(r.data() + rb, re - rb, bits, mine);
    count_partitions(s.data() + sb, se - sb, bits, mine + parts);
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
    scatter(r.data() + rb, re - rb, r_out, mine, bits, buffers[wi]);
    scatter(s.data() + sb, se - sb, s_out, mine + parts, bits, buffers[wi]);
    team.barrier();
    if (w == 0) t_partitioned = now_seconds();
    // After the last barrier: an allocation failure here reaches team.run's caller.
    std::uint64_t largest = 1;
    for (std::size_t p = 0; p < parts; ++p)
      largest = std::max(largest, r_begin[p + 1] - r_begin[p]);
    const auto table =
        std::make_unique_for_overwrite<LocalEntry[]>(std::size_t{1} << table_bits(largest));
    JoinTotals sum;
    for (;;) {
      const std::size_t p = next_partition.fetch_add(1, std::memory_order_relaxed);
      if (p >= parts) break;
      const std::uint64_t nr = r_begin[p + 1] - r_begin[p];
      sum += join_partition(r_out + r_begin[p], nr, s_out + s_begin[p], s_begin[p + 1] - s_begin[p],
                            bits, table.get(), table_bits(nr));
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
