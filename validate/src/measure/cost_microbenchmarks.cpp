// The cost microbenchmarks' loops (cost_microbenchmarks.hpp): the kernels' own functions on one
// pinned core, each repetition sized to options.seconds_per_timing, every loop's result checked.
#include "numatwin/validate/measure/cost_microbenchmarks.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/sim/workload/key_distribution.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/measure/core_to_core.hpp"
#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/index_join_kernel.hpp"
#include "numatwin/validate/measure/memory_kernels.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"
#include "numatwin/validate/kernels/shuffle_kernels.hpp"
#include "numatwin/validate/kernels/sort_merge_join_kernel.hpp"
#include "numatwin/validate/host/thread_team.hpp"
#include "cost_microbenchmark_runner.hpp"
#include "../kernels/radix_join_steps.hpp"

namespace numatwin::validate {
namespace {

using cost_bench::Buffer;
using cost_bench::check;
using cost_bench::FreshTuples;
using cost_bench::kSeed;
using cost_bench::Runner;
using cost_bench::timed;
using cost_bench::uniform_tuples;
using cost_bench::kRadixBits;
using cost_bench::kSmallGroups;

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

// One random walk (random_walk above) over the first `bytes` of `buffer`, as a pass of
// Runner::time_interleaved: 8192 loads a pass, steps never repeated. Every line of the buffer
// holds a random value at its start (init_random_lines: the same for every footprint).
struct RandomWalk {
  const std::uint64_t* words;
  std::uint64_t lines;
  std::uint64_t x = 1;
  std::uint64_t step = 0;
  static constexpr std::size_t kSteps = 8192;

  double operator()() {
    const double seconds = timed([&] { x = random_walk(words, lines, x, step, kSteps); });
    step += kSteps;
    // Nothing to verify (the walk computes nothing but its own path); its last value is kept
    // live so that the loads cannot be dropped.
    asm volatile("" : : "r"(x));
    return seconds;
  }
};

void init_random_lines(const Buffer& buffer) {
  constexpr std::size_t kWordsPerLine = kCacheLineBytes / sizeof(std::uint64_t);
  auto* words = buffer.as<std::uint64_t>();
  std::uint64_t seed = kSeed;
  for (std::uint64_t l = 0; l < buffer.bytes() / kCacheLineBytes; ++l) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    words[l * kWordsPerLine] = seed >> 11;
  }
}

// The LLC sweep (cost_microbenchmarks.hpp: walk_private, walk_K, walk_memory) in interleaved
// rounds over at least `window_s` seconds, so that every footprint sees the same neighbours.
void time_random_walks(Runner& run, const Buffer& buffer, const std::vector<std::pair<std::string, std::size_t>>& walks,
                       std::size_t llc_bytes, double window_s) {
  const std::uint64_t llc_lines = llc_bytes / kCacheLineBytes;
  init_random_lines(buffer);
  std::vector<RandomWalk> state;
  state.reserve(walks.size());
  std::vector<Runner::Interleaved> items;
  for (const auto& [name, bytes] : walks) {
    const std::uint64_t lines = std::max<std::size_t>(64, std::min(bytes, buffer.bytes()) / kCacheLineBytes);
    state.push_back(RandomWalk{buffer.as<std::uint64_t>(), lines});
    RandomWalk* walk = &state.back();
    // Before each repetition, random loads over three times the lines the LLC can keep of the
    // footprint (min(footprint, LLC)), untimed: the walk's hit ratio settles only by walking
    // (reading or rewriting the footprint in order left a 4 MiB walk at 24-51 ns for its first
    // 50 passes against 14 ns after, on this project's build VM, 2026-11-28: the AMD L3 there
    // fills from the L2's victims), and the walk before it (a larger one) has pushed it out.
    const std::uint64_t warm_passes = (3 * std::min<std::uint64_t>(lines, llc_lines) + RandomWalk::kSteps - 1) / RandomWalk::kSteps;
    const auto warm = [walk, warm_passes] {
      for (std::uint64_t p = 0; p < warm_passes; ++p) (void)(*walk)();
    };
    items.push_back({name, "load",
                     "dependent loads of independently drawn random lines of " + std::to_string(lines * kCacheLineBytes / 1024) + " KiB",
                     static_cast<double>(RandomWalk::kSteps), [walk] { return (*walk)(); }, warm});
  }
  run.time_interleaved(items, window_s);
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
      std::vector<std::pair<std::string, std::size_t>> walks{{"walk_private", small}};
      for (const std::size_t bytes : sweep) walks.emplace_back("walk_" + std::to_string(bytes >> 10), bytes);
      walks.emplace_back("walk_memory", memory_bytes);
      time_random_walks(run, buffer, walks, llc, o.llc_window_s >= 0.0 ? o.llc_window_s : (o.quick ? 1.0 : 20.0));
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
    // ── Joins, partitioned aggregation, the radix join, MEDIAN's selection, the sorts, the merge,
    //    the shuffle consumer (cost_operator_microbenchmarks.cpp) ──
    cost_bench::time_operator_loops(run, o, input);
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
