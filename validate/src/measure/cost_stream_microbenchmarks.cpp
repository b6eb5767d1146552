// The cost microbenchmarks over a memory-resident input (cost_microbenchmarks.hpp: count_private,
// count_stream, filter, filter_stream): a loop that does work per tuple keeps fewer of its
// input's lines in flight than a plain streaming read, so it can be slower over memory than
// over a cached input even where its work takes longer than the bandwidth's time. Each loop runs
// over a cache-resident input and then streams through a buffer of `memory_bytes` (at least 4 x
// the LLC), a slice of kSliceBytes a pass, slice after slice, so no pass finds its input cached.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cost_microbenchmark_runner.hpp"
#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"
#include "numatwin/validate/kernels/subarray_kernel.hpp"

namespace numatwin::validate::cost_bench {
namespace {

constexpr std::size_t kSliceBytes = 8u << 20;  // one pass: about a millisecond from memory
constexpr double kFilterThreshold = 0.1;       // the filter selects 10 % (subarray's default)

// Slices of `tuples` items over a buffer of `total` items: the next one each call, wrapping.
class Slices {
 public:
  Slices(std::size_t total, std::size_t per_slice) : total_(total), per_slice_(per_slice) {}
  std::size_t next() {
    const std::size_t at = next_;
    next_ = next_ + 2 * per_slice_ <= total_ ? next_ + per_slice_ : 0;
    return at;
  }

 private:
  std::size_t total_;
  std::size_t per_slice_;
  std::size_t next_ = 0;
};

// COUNT (count_aggregate, plain stores) into a table of a quarter of the private cache (in the
// core's own cache, beyond any L1): over `input_tuples` fresh tuples in cache, then streamed.
void time_count(Runner& run, const CostBenchmarkOptions& o, std::size_t memory_bytes) {
  const double groups =
      std::max(1024.0, std::floor(o.private_cache_bytes / 4.0 / (2.0 * sizeof(TableEntry))));
  std::vector<TableEntry> entries(static_cast<std::size_t>(2 * groups));
  const TableView table{entries.data(), entries.size()};
  table.clear(0, table.capacity);
  const std::string table_text = std::to_string(static_cast<std::uint64_t>(groups)) + " groups (" +
                                 std::to_string(entries.size() * sizeof(TableEntry) >> 10) +
                                 " KiB table: private cache / 4)";
  const std::size_t input_tuples =
      std::max<std::size_t>(1024, static_cast<std::size_t>(o.private_cache_bytes) / 4 / sizeof(Tuple));
  std::uint64_t counted = 0;
  FreshTuples fresh(groups, input_tuples, kSeed + 21);
  run.time("count_private", "tuple",
           "COUNT (count_aggregate, plain stores) into " + table_text + ", " + std::to_string(input_tuples) +
               " fresh tuples a pass (in cache)",
           static_cast<double>(input_tuples), [&] {
             const std::vector<Tuple>& in = fresh.next();
             counted += in.size();
             return timed([&] { count_aggregate(table, in, false); });
           });
  const Buffer buffer(memory_bytes);
  auto* input = buffer.as<Tuple>();
  const std::size_t total = buffer.bytes() / sizeof(Tuple);
  const KeyGenerator gen(sim::parse_key_distribution("uniform", groups), total, kSeed + 22);
  gen.fill_tuples(0, std::span<Tuple>(input, total));
  const std::size_t per_slice = std::min(kSliceBytes, buffer.bytes() / 2) / sizeof(Tuple);  // a small LLC: a small buffer
  Slices slices(total, per_slice);
  run.time("count_stream", "tuple",
           "the same loop and table, its input streamed from a " + std::to_string(buffer.bytes() >> 20) +
               " MiB buffer (" + std::to_string(kSliceBytes >> 20) + " MiB a pass)",
           static_cast<double>(per_slice), [&] {
             const std::size_t at = slices.next();
             counted += per_slice;
             return timed([&] { count_aggregate(table, std::span<const Tuple>(input + at, per_slice), false); });
           });
  check(table_digest(table, 0, table.capacity).payload_sum == counted, "count_stream",
        "the counts do not add up to the tuples");
}

// The array filter (subarray_filter, 10 % selected) over cells in cache, then streamed.
void time_filter(Runner& run, const CostBenchmarkOptions& o, std::size_t memory_bytes) {
  const Buffer buffer(memory_bytes);
  auto* cells = buffer.as<double>();
  const std::size_t total = buffer.bytes() / sizeof(double);
  for (std::size_t i = 0; i < total; ++i) cells[i] = subarray_cell_value(i);
  const std::size_t cached_cells =
      std::max<std::size_t>(4096, static_cast<std::size_t>(o.private_cache_bytes) / 4 / sizeof(double));
  const std::size_t per_slice = std::min(kSliceBytes, buffer.bytes() / 2) / sizeof(double);
  std::vector<double> result(std::max(cached_cells, per_slice));
  if (cached_cells > total / 2) throw std::invalid_argument("cost microbenchmarks: the memory buffer is smaller than twice the filter's cached block");
  std::atomic<std::uint64_t> cursor{0};
  SubarrayTotals got;
  std::uint64_t expected = 0;
  // The cached cells: the next block of the buffer each pass (fresh values for the branch-free
  // selection, the same data the stream reads), brought into the cache untimed.
  Slices blocks(total, cached_cells);
  run.time("filter", "cell",
           "array filter (subarray_filter, 10 % selected) over " + std::to_string(cached_cells) + " cells in cache",
           static_cast<double>(cached_cells), [&] {
             const std::size_t at = blocks.next();
             for (std::size_t i = at; i < at + cached_cells; ++i) expected += cells[i] < kFilterThreshold ? 1 : 0;
             cursor.store(0, std::memory_order_relaxed);
             return timed([&] { got += subarray_filter(cells, at, at + cached_cells, kFilterThreshold, result.data(), cursor); });
           });
  check(got.selected == expected, "filter", "the selected cells differ from the reference count");
  std::vector<std::uint64_t> slice_selected;  // per slice, counted once (untimed)
  for (std::size_t at = 0; at + per_slice <= total; at += per_slice) {
    std::uint64_t n = 0;
    for (std::size_t i = at; i < at + per_slice; ++i) n += cells[i] < kFilterThreshold ? 1 : 0;
    slice_selected.push_back(n);
  }
  Slices slices(total, per_slice);
  got = SubarrayTotals{};
  expected = 0;
  run.time("filter_stream", "cell",
           "the same loop, its cells streamed from a " + std::to_string(buffer.bytes() >> 20) + " MiB buffer (" +
               std::to_string(kSliceBytes >> 20) + " MiB a pass)",
           static_cast<double>(per_slice), [&] {
             const std::size_t at = slices.next();
             expected += slice_selected[at / per_slice];
             cursor.store(0, std::memory_order_relaxed);
             return timed([&] { got += subarray_filter(cells, at, at + per_slice, kFilterThreshold, result.data(), cursor); });
           });
  check(got.selected == expected, "filter_stream", "the selected cells differ from the reference count");
}

}  // namespace

void time_stream_loops(Runner& run, const CostBenchmarkOptions& o, std::size_t memory_bytes) {
  time_count(run, o, memory_bytes);
  if (run.stopped()) return;
  time_filter(run, o, memory_bytes);
}

}  // namespace numatwin::validate::cost_bench
