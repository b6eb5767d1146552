// The cost microbenchmarks' loops (cost_microbenchmarks.hpp): the kernels' own functions on one
// pinned core, each repetition sized to options.seconds_per_timing, every loop's result checked.
#include "numatwin/validate/cost_microbenchmarks.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/sim/key_distribution.hpp"
#include "numatwin/sim/operator_plan.hpp"
#include "numatwin/validate/aggregation_kernels.hpp"
#include "numatwin/validate/core_to_core.hpp"
#include "numatwin/validate/data_generator.hpp"
#include "numatwin/validate/hash_join_kernels.hpp"
#include "numatwin/validate/index_join_kernel.hpp"
#include "numatwin/validate/memory_kernels.hpp"
#include "numatwin/validate/run_support.hpp"
#include "numatwin/validate/shared_hash_table.hpp"
#include "numatwin/validate/shuffle_kernels.hpp"
#include "numatwin/validate/sort_merge_join_kernel.hpp"
#include "numatwin/validate/thread_team.hpp"
#include "cost_microbenchmark_runner.hpp"
#include "radix_join_steps.hpp"

namespace numatwin::validate {
namespace {

using cost_bench::Buffer;
using cost_bench::check;
using cost_bench::FreshTuples;
using cost_bench::kSeed;
using cost_bench::Runner;
using cost_bench::timed;
using cost_bench::uniform_tuples;
constexpr int kRadixBits = 8;              // 256 partitions (one-line write-combining buffers)
constexpr std::size_t kSmallGroups = 512;  // tables of 1024 entries of 16 bytes: 16 KiB, in L1
constexpr double kGroupTableLoad = 0.35355339059327373;  // 2^-1.5: group_update's table, 362 of 1024 slots used
constexpr std::size_t kSortValues = 8192;
constexpr std::size_t kMergeFacts = 8192;
constexpr std::size_t kMergeDimensions = 2048;
constexpr std::size_t kConsumerElements = 16384;

// Dependent loads over `bytes` (a random cyclic permutation of its lines): ns per load.
void time_chase(Runner& run, const std::string& name, const Buffer& buffer, std::size_t bytes) {
  const std::size_t lines = std::max<std::size_t>(64, bytes / kCacheLineBytes / 16 * 16);
  const void* const start = build_pointer_chase(buffer.data(), lines, kSeed);
  // Passes of at most 8192 loads (about 1 ms from memory): short beside a scheduler's time slice,
  // so that the median pass is one the core ran through on a busy machine.
  const std::size_t steps = std::min<std::size_t>(lines, 8192) / 16 * 16;
  const void* p = start;
  const std::string loop = "dependent loads over a random cycle of " + std::to_string(lines) +
                           " lines (" + std::to_string(lines * kCacheLineBytes / 1024) + " KiB)";
  run.time(name, "load", loop, static_cast<double>(steps),
           [&] { return timed([&] { p = chase_pointers(p, steps); }); });
  const auto* at = static_cast<const std::byte*>(p);
  check(at >= buffer.data() && at < buffer.data() + lines * kCacheLineBytes &&
            (at - buffer.data()) % kCacheLineBytes == 0,
        name, "the chase left its buffer");
  if (steps == lines) check(p == start, name, "a whole cycle did not return to its start");
}

// Dependent loads of independently drawn random lines of `bytes`: each load's line is a hash of
// the value the previous load returned and the step, so every line is equally likely at every
// step whatever came before (the independent references of the model's cache_hit_ratio, which a
// cyclic chase is not: under LRU a cycle longer than the cache never hits). ns per load.
// `first`: the step number of the first load (the steps never repeat, so neither does the walk,
// pass after pass).
std::uint64_t random_walk(const std::uint64_t* lines_data, std::uint64_t lines, std::uint64_t x,
                          std::uint64_t first, std::size_t steps) {
  constexpr std::size_t kWordsPerLine = kCacheLineBytes / sizeof(std::uint64_t);
  for (std::uint64_t i = first; i < first + steps; ++i) {
    const std::uint64_t h = (x ^ i) * 0x9E3779B97F4A7C15ULL;
    const auto line = static_cast<std::uint64_t>((static_cast<WideProduct>(h) * lines) >> 64);
    x = lines_data[line * kWordsPerLine];
  }
  return x;
}

void time_random_walk(Runner& run, const std::string& name, const Buffer& buffer,
                      std::size_t bytes) {
  constexpr std::size_t kWordsPerLine = kCacheLineBytes / sizeof(std::uint64_t);
  const std::uint64_t lines = std::max<std::size_t>(64, bytes / kCacheLineBytes);
  auto* words = buffer.as<std::uint64_t>();
  std::uint64_t seed = kSeed;
  for (std::uint64_t l = 0; l < lines; ++l) {  // a random value at the start of every line
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    words[l * kWordsPerLine] = seed >> 11;
  }
  const std::size_t steps = 8192;
  std::uint64_t x = 1;
  std::uint64_t step = 0;
  run.time(name, "load",
           "dependent loads of independently drawn random lines of " +
               std::to_string(lines * kCacheLineBytes / 1024) + " KiB",
           static_cast<double>(steps), [&] {
             const double seconds = timed([&] { x = random_walk(words, lines, x, step, steps); });
             step += steps;
             return seconds;
           });
  // Nothing to verify (the walk computes nothing but its own path); its last value is kept live
  // so that the loads cannot be dropped.
  asm volatile("" : : "r"(x));
}

}  // namespace

namespace {

const model::Node& first_node_with_cores(const model::Topology& topology) {
  for (const model::Node& n : topology.nodes)
    if (n.has_cores()) return n;
  throw std::invalid_argument("operator costs: the topology " + topology.name +
                              " has no node with cores");
}

}  // namespace

CostBenchmarkOptions cost_benchmark_options(const model::Topology& topology, std::vector<int> cpus,
                                            bool quick) {
  const model::Node& node = first_node_with_cores(topology);
  CostBenchmarkOptions o;
  o.quick = quick;
  o.cpus = std::move(cpus);
  o.private_cache_bytes = sim::private_cache_bytes(node);
  int level = 0;
  o.llc_bytes = 0.0;
  for (const model::CacheLevel& c : node.caches) {
    if (c.level < level) continue;
    level = c.level;
    o.llc_bytes = static_cast<double>(c.size_bytes);
  }
  if (!(o.private_cache_bytes > 0.0) || !(o.llc_bytes > o.private_cache_bytes))
    throw std::invalid_argument("operator costs: node " + node.id + " of " + topology.name +
                                " lists no private cache and larger last-level cache; the "
                                "microbenchmarks size their data by them");
  return o;
}

double cost_miss_buffers(const model::Topology& topology) {
  return static_cast<double>(first_node_with_cores(topology).miss_buffers_per_core);
}

double cost_frequency_ghz(const model::Topology& topology) {
  return first_node_with_cores(topology).frequency_ghz;
}

CostTimings run_cost_microbenchmarks(const CostBenchmarkOptions& o) {
  if (o.cpus.empty()) throw std::invalid_argument("cost microbenchmarks: no usable CPU");
  if (!(o.private_cache_bytes > 0.0) || !(o.llc_bytes > 0.0))
    throw std::invalid_argument(
        "cost microbenchmarks: the private cache and the LLC must have > 0 bytes");
  const auto private_bytes = static_cast<std::size_t>(o.private_cache_bytes);
  const auto llc = static_cast<std::size_t>(o.llc_bytes);
  std::vector<std::size_t> sweep;  // LLC x 2^k, k = -4..1, at least twice the private cache
  for (int k = -4; k <= 1; ++k) {
    const std::size_t bytes = k < 0 ? llc >> -k : llc << k;
    if (bytes >= 2 * private_bytes) sweep.push_back(bytes);
  }
  Runner run(o, 28 + static_cast<int>(sweep.size()));
  run.result.cpu = o.cpus.front();
  run.result.private_cache_bytes = o.private_cache_bytes;
  run.result.llc_bytes = o.llc_bytes;
  // Input of the table loops: a quarter of the private cache (it stays there beside a table).
  const std::size_t input_tuples = std::max<std::size_t>(1024, private_bytes / 4 / sizeof(Tuple));

  ThreadTeam team({o.cpus.front()});
  team.run([&](int) {
    // ── Caches and memory ──
    {
      const std::size_t bytes = std::max<std::size_t>(4096, private_bytes / 2);
      const Buffer buffer(bytes);
      time_chase(run, "chase_private", buffer, bytes);
    }
    {
      const std::size_t bytes = std::max(4 * private_bytes, llc / 4);
      const Buffer buffer(bytes);
      time_chase(run, "chase_llc", buffer, bytes);
    }
    const std::size_t memory_bytes = o.quick ? 4 * llc : std::max<std::size_t>(4 * llc, 256u << 20);
    {
      // The LLC sweep: random walks at half the private cache, at each sweep footprint and over
      // the memory-sized buffer (cost_microbenchmarks.hpp: llc_usable_share).
      const std::size_t small = std::max<std::size_t>(4096, private_bytes / 2);
      const Buffer buffer(memory_bytes);
      time_random_walk(run, "walk_private", buffer, small);
      for (const std::size_t bytes : sweep)
        time_random_walk(run, "walk_" + std::to_string(bytes >> 10), buffer, bytes);
      time_random_walk(run, "walk_memory", buffer, memory_bytes);
      run.result.memory_bytes = static_cast<double>(memory_bytes);
    }
    {
      const Buffer buffer(memory_bytes);
      time_chase(run, "chase_memory", buffer, memory_bytes);
      // The hash join's probe loop over an empty table of the whole buffer: one independent
      // random line per tuple, kPrefetchDistance of them prefetched ahead. Fresh keys each pass.
      std::memset(buffer.data(), 0xFF, buffer.bytes());  // every key kEmptyKey
      const TableView table{buffer.as<TableEntry>(), buffer.bytes() / sizeof(TableEntry)};
      run.result.memory_llc_share =
          std::min(1.0, o.llc_bytes / static_cast<double>(buffer.bytes()));
      std::vector<Tuple> probe(16384);
      std::uint64_t next_key = 0;
      JoinTotals totals;
      run.time("random_memory", "line",
               "hash join probe loop (hash_join_probe) over an empty " +
                   std::to_string(buffer.bytes() >> 20) + " MiB table: one random line per tuple",
               static_cast<double>(probe.size()), [&] {
                 for (Tuple& t : probe) t = {next_key++, 1};
                 return timed([&] { totals += hash_join_probe(table, probe); });
               });
      check(totals.matches == 0 && totals.checksum == 0, "random_memory",
            "an empty table matched a key");
      // The same loop over an empty table in the private cache: its core work alone (every
      // probe ends at its first slot, as above, so the branches are the same).
      const TableView small{buffer.as<TableEntry>(), std::max<std::size_t>(64, private_bytes / 4 / sizeof(TableEntry))};
      run.time("empty_probe", "tuple",
               "hash join probe loop (hash_join_probe) over an empty " + std::to_string(small.capacity * sizeof(TableEntry) >> 10) +
                   " KiB table: random_memory's core work",
               static_cast<double>(probe.size()), [&] {
                 for (Tuple& t : probe) t = {next_key++, 1};
                 return timed([&] { totals += hash_join_probe(small, probe); });
               });
      check(totals.matches == 0 && totals.checksum == 0, "empty_probe", "an empty table matched a key");
    }
    if (run.stopped()) return;
    // ── Loops over a memory-resident input (cost_stream_microbenchmarks.cpp) ──
    cost_bench::time_stream_loops(run, o, memory_bytes);
    if (run.stopped()) return;

    // ── Scan: the radix join's histogram ──
    const std::vector<Tuple> input = uniform_tuples(input_tuples, 1e9, kSeed);
    {
      std::vector<std::uint64_t> counts(std::size_t{1} << kRadixBits, 0);
      std::uint64_t passes = 0;
      run.time("histogram", "tuple",
               "radix join histogram (count_partitions, 2^8 partitions), " +
                   std::to_string(input.size()) + " tuples",
               static_cast<double>(input.size()), [&] {
                 ++passes;
                 return timed([&] {
                   radix::count_partitions(input.data(), input.size(), kRadixBits, counts.data());
                 });
               });
      std::uint64_t total = 0;
      for (std::uint64_t c : counts) total += c;
      check(total == passes * input.size(), "histogram",
            "the partition counts do not add up to the tuples");
    }

    // ── Table loops on an L1-resident table ──
    for (const bool concurrent : {false, true}) {
      FreshTuples grouped(static_cast<double>(kSmallGroups), input_tuples, kSeed + 1);
      std::vector<TableEntry> entries(2 * kSmallGroups);
      const TableView table{entries.data(), entries.size()};
      table.clear(0, table.capacity);
      const std::string name = concurrent ? "count_atomic" : "count_plain";
      run.time(name, "tuple",
               std::string("COUNT (count_aggregate, ") +
                   (concurrent ? "locked updates" : "plain stores") + ") into " +
                   std::to_string(kSmallGroups) + " groups (16 KiB table), " +
                   std::to_string(input_tuples) + " fresh tuples a pass",
               static_cast<double>(input_tuples), [&] {
                 const std::vector<Tuple>& in = grouped.next();
                 return timed([&] { count_aggregate(table, in, concurrent); });
               });
      const GroupDigest d = table_digest(table, 0, table.capacity);
      check(d.payload_sum == grouped.rows() && d.groups <= kSmallGroups, name,
            "the counts do not add up to the tuples");
    }
    {
      // COUNT into a table of an eighth of the LLC: the LLC holds it (the model's h = 1), the
      // private cache the share the model gives it (recorded for the derivation). Fresh keys
      // each pass, generated untimed (the input stays cache resident, as for the other loops).
      const double groups = std::floor(o.llc_bytes / 8.0 / (2.0 * sizeof(TableEntry)));
      sim::KeySpec keys = sim::parse_key_distribution("uniform", groups);
      run.result.llc_table_private_share =
          sim::cache_hit_ratio(keys, o.private_cache_bytes / sizeof(TableEntry), 1e9);
      run.result.llc_table_llc_share =
          sim::cache_hit_ratio(keys, o.llc_bytes / sizeof(TableEntry), 1e9);
      const KeyGenerator gen(keys, std::uint64_t{1} << 40, kSeed + 9);
      std::vector<TableEntry> entries(static_cast<std::size_t>(2 * groups));
      const TableView table{entries.data(), entries.size()};
      table.clear(0, table.capacity);
      std::vector<Tuple> fresh(input_tuples);
      std::uint64_t row = 0;
      run.time("count_llc", "tuple",
               "COUNT (count_aggregate, plain stores) into " +
                   std::to_string(static_cast<std::uint64_t>(groups)) + " groups (" +
                   std::to_string(entries.size() * sizeof(TableEntry) >> 10) +
                   " KiB table: LLC / 8), " + std::to_string(fresh.size()) + " fresh tuples a pass",
               static_cast<double>(fresh.size()), [&] {
                 gen.fill_tuples(row, fresh);
                 row += fresh.size();
                 return timed([&] { count_aggregate(table, fresh, false); });
               });
      check(table_digest(table, 0, table.capacity).payload_sum == row, "count_llc",
            "the counts do not add up to the tuples");
    }
    {
      // The index nested-loop join's probe (index_join_probe) of an index of an eighth of the LLC.
      const auto keys =
          static_cast<std::uint64_t>(o.llc_bytes / 8.0 / sizeof(IndexNode) * 8.0 * 7.0 / 8.0);
      const IndexShape shape = index_shape(keys);
      std::vector<std::uint64_t> sorted(keys);
      for (std::uint64_t i = 0; i < keys; ++i) sorted[i] = 2 * i;
      std::vector<IndexNode> nodes(shape.nodes);
      write_index_nodes(shape, sorted.data(), nodes.data(), 0, shape.nodes);
      int depth = 1;  // the model's depth (sim/operator_plan.cpp): levels of 8^i nodes
      for (double level = static_cast<double>(keys) / 8.0; level > 1.0; level /= 8.0) ++depth;
      run.result.index_levels = depth;
      std::vector<Tuple> probe(input_tuples);
      std::uint64_t row = 0;
      JoinTotals totals;
      JoinTotals expected;
      run.time("index_probe", "tuple",
               "index join probe (index_join_probe) of a B+-tree over " + std::to_string(keys) +
                   " keys (" + std::to_string(nodes.size() * sizeof(IndexNode) >> 10) +
                   " KiB: LLC / 8), " + std::to_string(probe.size()) +
                   " fresh tuples a pass, all found",
               static_cast<double>(probe.size()), [&] {
                 for (Tuple& t : probe) {
                   const std::uint64_t rank = mix64(kSeed, row++, 13) % keys;
                   t = {2 * rank, generated_value(kSeed + 10, row)};
                   ++expected.matches;
                   expected.checksum += rank + t.value;
                 }
                 return timed([&] { totals += index_join_probe(shape, nodes.data(), probe); });
               });
      check(totals.matches == expected.matches && totals.checksum == expected.checksum,
            "index_probe", "matches or checksum differ from the reference");
    }
    {
      // Hash join: R of kSmallGroups distinct keys, S of input_tuples keys of R.
      // Fresh keys every pass (FreshTuples says why): each build inserts the next kSmallGroups
      // distinct keys; the probes then read the last build's table with fresh draws of its keys.
      const UniqueKeys unique(std::uint64_t{1} << 40, kSeed);
      std::vector<Tuple> r(kSmallGroups);
      std::uint64_t built = 0;
      std::vector<TableEntry> entries(2 * r.size());
      const TableView table{entries.data(), entries.size()};
      run.time("join_build", "tuple",
               "hash join build (hash_join_build, one worker) of " + std::to_string(r.size()) +
                   " fresh keys a pass (16 KiB table)",
               static_cast<double>(r.size()), [&] {
                 for (Tuple& t : r) {
                   t = {unique.key(built), generated_value(kSeed, built)};
                   ++built;
                 }
                 table.clear(0, table.capacity);
                 return timed([&] { hash_join_build(table, r, false); });
               });
      std::vector<Tuple> s(input_tuples);
      std::uint64_t row = 0;
      JoinTotals totals;
      JoinTotals expected;
      run.time("join_probe", "tuple",
               "hash join probe (hash_join_probe) of that table, " + std::to_string(s.size()) +
                   " fresh tuples a pass, all found",
               static_cast<double>(s.size()), [&] {
                 for (Tuple& t : s) {
                   const Tuple& match = r[mix64(kSeed, row, 7) % r.size()];
                   t = {match.key, generated_value(kSeed + 2, row++)};
                   ++expected.matches;
                   expected.checksum += match.value + t.value;
                 }
                 return timed([&] { totals += hash_join_probe(table, s); });
               });
      check(totals.matches == expected.matches && totals.checksum == expected.checksum, "join_probe",
            "matches or checksum differ from the reference");
    }
    {
      // aggregate_piece probes linearly and branches on every slot it looks at, so its time
      // depends on how full the table is; table_slots gives a kernel's table between 1/4 and 1/2
      // full (a power of two >= 2 x groups), and this table is at their geometric middle, 2^-1.5.
      const std::size_t slots = table_slots(static_cast<double>(kSmallGroups));
      const auto groups = static_cast<std::size_t>(std::round(static_cast<double>(slots) * kGroupTableLoad));
      std::vector<GroupEntry> entries(slots, GroupEntry{0, 0, 0});
      std::size_t used = 0;
      bool overflow = false;
      const AggregationTable table{entries.data(), slots - 1, &used, &overflow};
      FreshTuples grouped(static_cast<double>(groups), input_tuples, kSeed + 1);
      run.time("group_update", "tuple",
               "partitioned aggregation (aggregate_piece) into " + std::to_string(groups) +
                   " groups (" + std::to_string(slots * sizeof(GroupEntry) / 1024) +
                   " KiB table, " + std::to_string(slots) + " slots), " + std::to_string(input_tuples) + " fresh tuples a pass",
               static_cast<double>(input_tuples), [&] {
                 const std::vector<Tuple>& in = grouped.next();
                 return timed([&] { aggregate_piece(in.data(), in.size(), table); });
               });
      std::uint64_t counted = 0;
      for (const GroupEntry& e : entries) counted += e.count;
      check(!overflow && counted == grouped.rows(), "group_update",
            "the group counts do not add up to the tuples");
    }
    if (run.stopped()) return;

    // ── The radix join: scatter, then a partition's table ──
    {
      const std::size_t parts = std::size_t{1} << kRadixBits;
      std::vector<std::uint64_t> counts(parts, 0);
      radix::count_partitions(input.data(), input.size(), kRadixBits, counts.data());
      std::vector<std::uint64_t> starts(parts, 0);
      for (std::size_t p = 1; p < parts; ++p) starts[p] = starts[p - 1] + counts[p - 1];
      const Buffer out(input.size() * sizeof(Tuple));
      radix::ScatterBuffers buffers(
          parts, parts <= radix::kWideBufferPartitions ? radix::kWideBufferLines : 1);
      std::vector<std::uint64_t> first;
      run.time("radix_scatter", "tuple",
               "radix join scatter (2^8 partitions, write-combining buffers, streaming stores), " +
                   std::to_string(input.size()) + " tuples",
               static_cast<double>(input.size()), [&] {
                 first = starts;
                 return timed([&] {
                   radix::scatter(input.data(), input.size(), out.as<Tuple>(), first.data(),
                                  kRadixBits, buffers);
                 });
               });
      std::uint64_t key_sum = 0;
      for (const Tuple& t : input) key_sum += t.key;
      std::uint64_t out_sum = 0;
      bool placed = true;
      for (std::size_t p = 0; p < parts; ++p) {
        placed = placed && first[p] == starts[p] + counts[p];
        for (std::uint64_t i = starts[p]; i < starts[p] + counts[p]; ++i) {
          out_sum += out.as<Tuple>()[i].key;
          placed = placed && radix::radix_partition_of(out.as<Tuple>()[i].key, kRadixBits) == p;
        }
      }
      check(placed && out_sum == key_sum, "radix_scatter",
            "a tuple is missing or in the wrong partition");
    }
    {
      // The largest partition radix_partition_bits allows: its table (2 entries per tuple) in half
      // of the private cache.
      const std::size_t nr =
          std::max<std::size_t>(64, private_bytes / 2 / (2 * sizeof(radix::LocalEntry)));
      const int capacity_bits = radix::table_bits(nr);
      // Fresh keys every pass, as for the hash join.
      const UniqueKeys unique(std::uint64_t{1} << 40, kSeed + 3);
      std::vector<Tuple> r(nr);
      std::uint64_t built = 0;
      std::vector<Tuple> s(nr);
      std::uint64_t row = 0;
      JoinTotals totals;
      JoinTotals expected;
      std::vector<radix::LocalEntry> table(std::size_t{1} << capacity_bits);
      const std::string size =
          std::to_string(table.size() * sizeof(radix::LocalEntry) / 1024) + " KiB table";
      run.time("partition_build", "tuple",
               "radix join partition build (build_partition_table), " + std::to_string(nr) +
                   " tuples, " + size,
               static_cast<double>(nr), [&] {
                 for (Tuple& t : r) {
                   t = {unique.key(built), generated_value(kSeed + 3, built)};
                   ++built;
                 }
                 return timed([&] {
                   radix::build_partition_table(r.data(), nr, kRadixBits, table.data(),
                                                capacity_bits);
                 });
               });
      run.time("partition_probe", "tuple",
               "radix join partition probe (probe_partition_table), " + std::to_string(nr) +
                   " tuples, " + size,
               static_cast<double>(nr), [&] {
                 for (Tuple& t : s) {
                   const Tuple& match = r[mix64(kSeed, row, 9) % nr];
                   t = {match.key, generated_value(kSeed + 4, row++)};
                   ++expected.matches;
                   expected.checksum += match.value + t.value;
                 }
                 return timed([&] {
                   totals += radix::probe_partition_table(s.data(), nr, kRadixBits, table.data(),
                                                          capacity_bits);
                 });
               });
      check(totals.matches == expected.matches && totals.checksum == expected.checksum,
            "partition_probe", "matches or checksum differ from the reference");
    }
    if (run.stopped()) return;

    // ── MEDIAN's selection, the merge, the shuffle consumer ──
    for (const std::size_t k : {std::size_t{16}, std::size_t{256}}) {
      // Fresh values every pass (FreshTuples says why); the last pass's are checked.
      const std::size_t groups = kSortValues / k;
      std::vector<std::uint64_t> unsorted(kSortValues);
      std::uint64_t drawn = 0;
      std::vector<TableEntry> entries(2 * groups);
      const TableView table{entries.data(), entries.size()};
      std::vector<std::uint64_t> values(kSortValues);
      const std::string name = "sort_" + std::to_string(k);
      run.time(name, "value",
               "MEDIAN's selection (median_select) over " + std::to_string(groups) + " groups of " +
                   std::to_string(k) + " fresh values a pass",
               static_cast<double>(kSortValues), [&] {
                 for (std::uint64_t& v : unsorted) v = generated_value(kSeed + 5, drawn++);
                 values = unsorted;
                 table.clear(0, table.capacity);
                 for (std::size_t g = 0; g < groups; ++g) {
                   entries[2 * g].key.store(g, std::memory_order_relaxed);
                   entries[2 * g].payload.store((g + 1) * k,
                                                std::memory_order_relaxed);  // the end of its run
                 }
                 return timed([&] { median_select(table, 0, table.capacity, 0, values.data()); });
               });
      bool same = true;
      for (std::size_t g = 0; g < groups; ++g) {
        std::vector<std::uint64_t> run_values(unsorted.begin() + static_cast<std::ptrdiff_t>(g * k),
                                              unsorted.begin() + static_cast<std::ptrdiff_t>((g + 1) * k));
        std::sort(run_values.begin(), run_values.end());
        same = same && entries[2 * g].payload.load() == run_values[(k - 1) / 2] + run_values[k / 2];
      }
      check(same, name, "a group's median differs from the reference (a full sort)");
    }
    {
      // Fresh facts every pass: sorted keys drawn by stratified sampling (fact i's key uniform in
      // [2 D i / F, 2 D (i + 1) / F), so the facts come sorted without a sort), half of them
      // even (a match).
      std::vector<Tuple> dims(kMergeDimensions);
      for (std::size_t j = 0; j < dims.size(); ++j)
        dims[j] = {2 * j, generated_value(kSeed + 6, j)};
      std::vector<Tuple> facts(kMergeFacts);
      std::uint64_t drawn = 0;
      JoinTotals totals;
      JoinTotals expected;
      constexpr double kKeysPerFact = 2.0 * kMergeDimensions / kMergeFacts;
      run.time("merge", "fact",
               "sort-merge join merge (merge_join) of " + std::to_string(kMergeFacts) +
                   " fresh facts a pass with " + std::to_string(kMergeDimensions) + " dimension tuples",
               static_cast<double>(kMergeFacts), [&] {
                 for (std::size_t i = 0; i < facts.size(); ++i) {
                   const double u = static_cast<double>(mix64(kSeed, drawn, 11) >> 11) * 0x1.0p-53;
                   const auto key = static_cast<std::uint64_t>((static_cast<double>(i) + u) * kKeysPerFact);
                   facts[i] = {key, generated_value(kSeed + 7, drawn++)};
                   if (key % 2 == 0) {
                     ++expected.matches;
                     expected.checksum += dims[key / 2].value + facts[i].value;
                   }
                 }
                 return timed([&] { totals += merge_join(facts, dims); });
               });
      check(totals.matches == expected.matches && totals.checksum == expected.checksum, "merge",
            "matches or checksum differ from the reference");
    }
    {
      std::vector<std::uint64_t> elements(kConsumerElements);
      std::uint64_t expected = 0;
      for (std::size_t i = 0; i < elements.size(); ++i)
        expected += elements[i] = shuffle_element(kSeed, i);
      std::uint64_t sum = 0;
      run.time(
          "consumer_sum", "element",
          "shuffle consumer (sum_elements) over " + std::to_string(kConsumerElements) + " elements",
          static_cast<double>(elements.size()),
          [&] { return timed([&] { sum = sum_elements(elements.data(), elements.size()); }); });
      check(sum == expected, "consumer_sum", "the sum differs from the reference");
    }
  });

  // ── The shared line (two threads of their own): COUNT by two workers on one table, then the
  //    core-to-core handover ──
  if (run.stopped()) return run.result;
  if (o.cpus.size() < 2) {
    run.result.notes.emplace_back(
        "count_contended, shared_line: not measured: one usable CPU (they need two)");
    return run.result;
  }
  {
    ThreadTeam pair({o.cpus[0], o.cpus[1]});
    std::vector<TableEntry> entries(2 * kSmallGroups);
    const TableView table{entries.data(), entries.size()};
    table.clear(0, table.capacity);
    FreshTuples inputs[2] = {FreshTuples(static_cast<double>(kSmallGroups), input_tuples, kSeed + 1),
                             FreshTuples(static_cast<double>(kSmallGroups), input_tuples, kSeed + 8)};
    double seconds[2] = {0.0, 0.0};
    run.time("count_contended", "tuple",
             "COUNT (count_aggregate, locked updates) by two workers (CPUs " +
                 std::to_string(o.cpus[0]) + ", " + std::to_string(o.cpus[1]) +
                 ") into one table of " + std::to_string(kSmallGroups) + " groups, " +
                 std::to_string(input_tuples) + " tuples each: the mean of the two",
             static_cast<double>(input_tuples), [&] {
               const std::vector<Tuple>* in[2] = {&inputs[0].next(), &inputs[1].next()};
               pair.run([&](int w) {
                 pair.barrier();
                 seconds[w] = timed([&] { count_aggregate(table, *in[w], true); });
               });
               return 0.5 * (seconds[0] + seconds[1]);
             });
    const GroupDigest d = table_digest(table, 0, table.capacity);
    check(d.payload_sum == inputs[0].rows() + inputs[1].rows() && d.groups <= kSmallGroups, "count_contended",
          "the counts do not add up to the two workers' tuples");
  }
  CoreToCoreOptions c2c;
  if (o.quick) {
    c2c.trials = 5;
    c2c.round_trips = 500;
  }
  std::vector<double> ns;
  for (int r = 0; r < std::max(1, o.repetitions); ++r)
    ns.push_back(core_to_core_latency_ns(o.cpus[0], o.cpus[1], c2c));
  if (*std::min_element(ns.begin(), ns.end()) > 2000.0) {
    run.result.notes.emplace_back(
        "shared_line: not measured: the ping-pong between CPUs " + std::to_string(o.cpus[0]) +
        " and " + std::to_string(o.cpus[1]) +
        " took microseconds per handover (the threads did not run at once)");
    return run.result;
  }
  run.record("shared_line", "handover",
             "core-to-core ping-pong between CPUs " + std::to_string(o.cpus[0]) + " and " +
                 std::to_string(o.cpus[1]) + " (fastest of " + std::to_string(c2c.trials) + " x " +
                 std::to_string(c2c.round_trips) + " round trips, per repetition)",
             ns);
  return run.result;
}

}  // namespace numatwin::validate
