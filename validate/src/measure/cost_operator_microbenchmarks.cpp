// The cost microbenchmarks of the operators' inner loops on cache-resident data
// (cost_microbenchmarks.hpp): the index and hash joins' probes and build, the partitioned
// aggregation's update, the radix join's scatter and partition tables, MEDIAN's selection, the
// sort-merge join's sort and merge, the shuffle consumer. Each times the kernel's own function
// on fresh data a pass and checks the result.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "cost_microbenchmark_runner.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/data_generator.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/index_join_kernel.hpp"
#include "numatwin/validate/kernels/shared_hash_table.hpp"
#include "numatwin/validate/kernels/shuffle_kernels.hpp"
#include "numatwin/validate/kernels/sort_merge_join_kernel.hpp"
#include "../kernels/radix_join_steps.hpp"

namespace numatwin::validate::cost_bench {
namespace {

constexpr double kGroupTableLoad = 0.35355339059327373;  // 2^-1.5: group_update's table, 362 of 1024 slots used
constexpr std::size_t kSortValues = 8192;
constexpr std::size_t kMergeFacts = 8192;
constexpr std::size_t kMergeDimensions = 2048;
constexpr std::size_t kConsumerElements = 16384;

}  // namespace

void time_operator_loops(Runner& run, const CostBenchmarkOptions& o, const std::vector<Tuple>& input) {
  const std::size_t input_tuples = input.size();
  const auto private_bytes = static_cast<std::size_t>(o.private_cache_bytes);
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
    // The sort-merge join's sort (sort_by_key) of one run of fresh tuples a pass, a quarter of
    // the private cache (it stays there): ns per tuple; the model's comparisons are m log2 m.
    const std::size_t m = std::max<std::size_t>(1024, private_bytes / 4 / sizeof(Tuple));
    run.result.sort_run_tuples = static_cast<double>(m);
    std::vector<Tuple> tuples(m);
    std::uint64_t drawn = 0;
    std::uint64_t key_sum = 0;
    run.time("sort_tuples", "tuple",
             "sort-merge join's sort (sort_by_key, std::sort by key) of " + std::to_string(m) +
                 " fresh tuples a pass",
             static_cast<double>(m), [&] {
               key_sum = 0;
               for (Tuple& t : tuples) {
                 t = {mix64(kSeed, drawn, 12), drawn};
                 key_sum += t.key;
                 ++drawn;
               }
               return timed([&] { sort_by_key(tuples); });
             });
    std::uint64_t sorted_sum = 0;
    bool ordered = true;
    for (std::size_t i = 0; i < m; ++i) {
      sorted_sum += tuples[i].key;
      ordered = ordered && (i == 0 || tuples[i - 1].key <= tuples[i].key);
    }
    check(ordered && sorted_sum == key_sum, "sort_tuples", "the run is not sorted by key or lost a tuple");
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
}

}  // namespace numatwin::validate::cost_bench
