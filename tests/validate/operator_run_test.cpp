// The operator kernels against simple references (std::map, std::sort) on small generated inputs,
// for uniform and skewed keys, 1 and 2 workers, first-touch and interleave; the spec-selected
// radix join at 0, some and many partition bits; bad specs.
#include "numatwin/validate/run/operator_run.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/index_join_kernel.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/kernels/operator_data.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

using test_support::this_machine;
using test_support::ThisMachine;

sim::WorkloadSpec spec_of(sim::WorkloadKind kind, const std::string& keys, int threads,
                          const std::string& memory) {
  sim::WorkloadSpec spec;
  spec.kind = kind;
  spec.threads = threads;
  // Two workers on a machine with fewer CPUs run unpinned ("none").
  if (threads > this_machine().topology.total_cores())
    spec.placement.kind = sim::PlacementKind::kNone;
  spec.data.records = 20000;
  spec.data.build_records = 3000;
  spec.data.keys = sim::parse_key_distribution(keys, 500);
  spec.memory = sim::parse_memory_policy(memory, this_machine().topology);
  spec.seed = 7;
  return spec;
}

std::vector<Tuple> probe_tuples(const sim::WorkloadSpec& spec) {
  std::vector<Tuple> t(input_rows(spec));
  ProbeData(spec).fill(0, t);
  return t;
}

std::vector<Tuple> build_tuples(const sim::WorkloadSpec& spec) {
  std::vector<Tuple> t(build_rows(spec));
  BuildData(spec).fill(0, t);
  return t;
}

// The digest of per-key results, as table_digest computes it.
std::uint64_t digest_of(const std::map<std::uint64_t, std::uint64_t>& results) {
  std::uint64_t d = 0;
  for (const auto& [key, result] : results) d += group_digest_term(key, result);
  return d;
}

std::uint64_t reference_checksum(const sim::WorkloadSpec& spec) {
  const std::vector<Tuple> input = probe_tuples(spec);
  switch (spec.kind) {
    case sim::WorkloadKind::kCountAggregation: {
      std::map<std::uint64_t, std::uint64_t> counts;
      for (const Tuple& t : input) ++counts[t.key];
      return digest_of(counts);
    }
    case sim::WorkloadKind::kMedianAggregation: {
      std::map<std::uint64_t, std::vector<std::uint64_t>> values;
      for (const Tuple& t : input) values[t.key].push_back(t.value);
      std::map<std::uint64_t, std::uint64_t> twice_median;
      for (auto& [key, v] : values) {
        std::sort(v.begin(), v.end());
        twice_median[key] = v[(v.size() - 1) / 2] + v[v.size() / 2];
      }
      return digest_of(twice_median);
    }
    case sim::WorkloadKind::kHashJoin:
    case sim::WorkloadKind::kSortMergeJoin:
    case sim::WorkloadKind::kIndexJoin: {
      const std::vector<Tuple> r = build_tuples(spec);
      std::vector<std::uint64_t> keys;
      for (const Tuple& t : r) keys.push_back(t.key);
      std::sort(keys.begin(), keys.end());
      std::map<std::uint64_t, std::uint64_t> payload;
      for (const Tuple& t : r) {
        payload[t.key] =
            spec.kind != sim::WorkloadKind::kIndexJoin
                ? t.value
                : static_cast<std::uint64_t>(std::lower_bound(keys.begin(), keys.end(), t.key) -
                                             keys.begin());
      }
      std::uint64_t sum = 0;
      for (const Tuple& t : input) {
        const auto it = payload.find(t.key);
        if (it != payload.end()) sum += it->second + t.value;
      }
      return sum;
    }
    default:
      return 0;
  }
}

RunOptions quick() {
  RunOptions o;
  o.repetitions = 2;
  return o;
}

struct Case {
  sim::WorkloadKind kind;
  const char* keys;
  int threads;
  const char* memory;
};

class OperatorRunTest : public ::testing::TestWithParam<Case> {};

TEST_P(OperatorRunTest, MatchesTheReference) {
  const Case c = GetParam();
  const sim::WorkloadSpec spec = spec_of(c.kind, c.keys, c.threads, c.memory);
  const RealRun run =
      run_operator_workload(this_machine().topology, this_machine().host, spec, quick());
  EXPECT_TRUE(run.verified) << run.verification;
  EXPECT_EQ(run.checksum, reference_checksum(spec));
  EXPECT_EQ(run.work_unit, "tuples");
  EXPECT_EQ(run.repetition_seconds.size(), 2u);
  EXPECT_EQ(run.threads.size(), static_cast<std::size_t>(c.threads));
  EXPECT_FALSE(run.phases.empty());
  for (const DatasetObservation& d : run.datasets) EXPECT_GT(d.pages.pages, 0u) << d.name;
  if (c.kind == sim::WorkloadKind::kHashJoin) {
    sim::WorkloadSpec radix_spec = spec;
    radix_spec.join_algorithm = sim::JoinAlgorithm::kRadix;
    const RealRun radix =
        run_operator_workload(this_machine().topology, this_machine().host, radix_spec, quick());
    EXPECT_TRUE(radix.verified) << radix.verification;
    EXPECT_EQ(radix.checksum, run.checksum);
    ASSERT_EQ(radix.phases.size(), 2u);
    EXPECT_EQ(radix.phases[0].name, "partition");
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (sim::WorkloadKind kind :
       {sim::WorkloadKind::kCountAggregation, sim::WorkloadKind::kMedianAggregation,
        sim::WorkloadKind::kHashJoin, sim::WorkloadKind::kIndexJoin})
    for (const char* keys : {"uniform", "zipf", "heavy-hitter", "moving-cluster:50", "sequential"})
      for (int threads : {1, 2})
        for (const char* memory : {"first-touch", "interleave"})
          out.push_back({kind, keys, threads, memory});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Operators, OperatorRunTest, ::testing::ValuesIn(cases()),
                         [](const auto& param_info) {
                           std::string name = sim::workload_kind_name(param_info.param.kind) + "_" +
                                              param_info.param.keys + "_" +
                                              std::to_string(param_info.param.threads) + "_" +
                                              param_info.param.memory;
                           for (char& ch : name)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return name;
                         });

// This machine's topology with every node's caches replaced by one private cache of `bytes`
// (none when 0): the radix join's partition bits follow it (radix_join_bits).
model::Topology with_private_cache(std::int64_t bytes) {
  model::Topology t = this_machine().topology;
  for (model::Node& n : t.nodes) {
    n.caches.clear();
    if (bytes > 0) n.caches.push_back({2, bytes, 1});
  }
  return t;
}

TEST(RadixJoinRunTest, SpecSelectedRadixJoinMatchesTheReferenceAtEveryPartitionCount) {
  // 3000 build tuples, 2 entries of 16 bytes each per tuple, in half of the private cache:
  // 1 MiB holds them all (0 bits); 4 KiB holds 64 per partition (3000 / 64 -> 6 bits); no
  // private cache listed leaves 1 per partition (12 bits: 4096 partitions, one-line buffers).
  struct Cache {
    std::int64_t bytes;
    int bits;
  };
  for (const Cache cache : {Cache{1 << 20, 0}, Cache{4096, 6}, Cache{0, 12}}) {
    const model::Topology topology = with_private_cache(cache.bytes);
    for (int threads : {1, 2}) {
      for (const char* keys : {"uniform", "zipf"}) {
        sim::WorkloadSpec spec =
            spec_of(sim::WorkloadKind::kHashJoin, keys, threads, "first-touch");
        spec.join_algorithm = sim::JoinAlgorithm::kRadix;
        const std::string what = std::to_string(cache.bytes) + " bytes, " +
                                 std::to_string(threads) + " threads, " + keys;
        ASSERT_EQ(radix_join_bits(topology, spec), cache.bits) << what;
        const RealRun run = run_operator_workload(topology, this_machine().host, spec, quick());
        EXPECT_TRUE(run.verified) << what;
        EXPECT_EQ(run.checksum, reference_checksum(spec)) << what;
        EXPECT_NE(run.verification.find("2^" + std::to_string(cache.bits) + " partitions"),
                  std::string::npos)
            << run.verification;
        ASSERT_EQ(run.phases.size(), 2u) << what;
        EXPECT_EQ(run.phases[0].name, "partition");
        EXPECT_EQ(run.phases[1].name, "join");
        std::vector<std::string> names;
        for (const DatasetObservation& d : run.datasets) names.push_back(d.name);
        EXPECT_EQ(names, (std::vector<std::string>{"R", "S", "R partitions", "S partitions"}));
      }
    }
  }
}

TEST(RadixJoinRunTest, PartitionCopiesAreCountedInTheMemoryNeeded) {
  sim::WorkloadSpec spec = spec_of(sim::WorkloadKind::kHashJoin, "uniform", 1, "first-touch");
  spec.data.records = 1e6;
  spec.data.build_records = 1e5;
  const double shared_table = operator_memory_bytes(spec);
  spec.join_algorithm = sim::JoinAlgorithm::kRadix;
  // R and S twice (inputs and copies) instead of R, S and a table of 2 |R| entries.
  EXPECT_DOUBLE_EQ(operator_memory_bytes(spec) - shared_table, (1e6 + 1e5) * 16.0 - 2e5 * 16.0);
}

TEST(SortMergeJoinRunTest, EveryOrderAndSyncMatchesTheReference) {
  for (sim::ShuffleAlgorithm algorithm :
       {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing,
        sim::ShuffleAlgorithm::kCoordinatedRandom})
    for (sim::SyncMode sync : {sim::SyncMode::kTight, sim::SyncMode::kLoose})
      for (int threads : {1, 2})
        for (const char* keys : {"uniform", "zipf"}) {
          sim::WorkloadSpec spec = spec_of(sim::WorkloadKind::kSortMergeJoin, keys, threads,
                                           threads == 1 ? "first-touch" : "interleave");
          spec.algorithm = algorithm;
          spec.sync = sync;
          const RealRun run =
              run_operator_workload(this_machine().topology, this_machine().host, spec, quick());
          EXPECT_TRUE(run.verified);
          EXPECT_EQ(run.checksum, reference_checksum(spec));
          EXPECT_EQ(run.phases.size(),
                    sync == sim::SyncMode::kTight ? static_cast<std::size_t>(threads) : 1u);
        }
  sim::WorkloadSpec spec = spec_of(sim::WorkloadKind::kSortMergeJoin, "uniform", 2, "first-touch");
  spec.algorithm = sim::ShuffleAlgorithm::kScheduled;  // without producer orders
  EXPECT_THROW(run_operator_workload(this_machine().topology, this_machine().host, spec, quick()),
               std::invalid_argument);
  spec.algorithm = sim::ShuffleAlgorithm::kRing;
  spec.data.records = 3;  // fewer than threads^2
  EXPECT_THROW(run_operator_workload(this_machine().topology, this_machine().host, spec, quick()),
               std::invalid_argument);
}

// All four P-MPSM phases (sort facts, partition, gather, sort dimension, merge) at 1 and 2 threads,
// every order that needs no schedule file, tight and loose: the join matches the test's own
// reference and the run verifies its dimension runs (every R tuple gathered once, sorted).
TEST(SortMergeJoinRunTest, AllPhasesMatchTheReferenceAtOneAndTwoThreads) {
  for (sim::ShuffleAlgorithm algorithm :
       {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing, sim::ShuffleAlgorithm::kCoordinatedRandom})
    for (sim::SyncMode sync : {sim::SyncMode::kTight, sim::SyncMode::kLoose})
      for (int threads : {1, 2})
        for (const char* keys : {"uniform", "zipf"}) {
          sim::WorkloadSpec spec = spec_of(sim::WorkloadKind::kSortMergeJoin, keys, threads,
                                           threads == 1 ? "first-touch" : "interleave");
          spec.sort_merge_phases = sim::SortMergePhases::kAll;
          spec.algorithm = algorithm;
          spec.sync = sync;
          const RealRun run =
              run_operator_workload(this_machine().topology, this_machine().host, spec, quick());
          EXPECT_TRUE(run.verified) << run.verification;
          EXPECT_NE(run.verification.find("every R tuple once"), std::string::npos);
          EXPECT_EQ(run.checksum, reference_checksum(spec));
          std::vector<std::string> names;
          for (const PhaseTime& p : run.phases) names.push_back(p.name);
          EXPECT_EQ(names, (std::vector<std::string>{"sort facts", "partition", "gather",
                                                     "sort dimension", "merge"}));
          ASSERT_EQ(run.datasets.size(), 4u);
          EXPECT_EQ(run.datasets[1].name, "dimension chunks");
        }
}

TEST(OperatorSpecTest, TinyInputsWithIdleWorkersStillMatch) {
  for (sim::WorkloadKind kind :
       {sim::WorkloadKind::kCountAggregation, sim::WorkloadKind::kMedianAggregation,
        sim::WorkloadKind::kHashJoin, sim::WorkloadKind::kIndexJoin}) {
    sim::WorkloadSpec spec = spec_of(kind, "uniform", 2, "first-touch");
    spec.data.records = 1;
    spec.data.build_records = 1;
    spec.data.keys.groups = 1;
    const RealRun run =
        run_operator_workload(this_machine().topology, this_machine().host, spec, quick());
    EXPECT_TRUE(run.verified) << sim::workload_kind_name(kind);
    EXPECT_EQ(run.checksum, reference_checksum(spec)) << sim::workload_kind_name(kind);
  }
}

TEST(OperatorSpecTest, BadSpecsAreRefusedBeforeWork) {
  const ThisMachine& m = this_machine();
  sim::WorkloadSpec spec =
      spec_of(sim::WorkloadKind::kCountAggregation, "uniform", 1, "first-touch");
  spec.data.tuple_bytes = 8;
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec.data.tuple_bytes = 16;
  spec.data.records = 0;
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec.data.records = 100;
  spec.data.keys.groups = 0;
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec = spec_of(sim::WorkloadKind::kHashJoin, "uniform", 1, "first-touch");
  spec.data.build_records = 0;
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec.join_algorithm = sim::JoinAlgorithm::kRadix;
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec = spec_of(sim::WorkloadKind::kShuffle, "uniform", 1, "first-touch");
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec = spec_of(sim::WorkloadKind::kPartitionedAggregation, "uniform", 1, "first-touch");
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
  spec = spec_of(sim::WorkloadKind::kCountAggregation, "uniform", 1, "first-touch");
  spec.data.records = 1e15;  // far more than memory
  EXPECT_THROW(run_operator_workload(m.topology, m.host, spec, quick()), std::invalid_argument);
}

TEST(OperatorKernelTest, MedianOfOddAndEvenGroupsIsExact) {
  // Group 5: values 9 1 4 (median 4); group 8: 10 2 7 3 (median 5, kept as 3 + 7 = 10).
  const std::vector<Tuple> input = {{5, 9}, {8, 10}, {5, 1}, {8, 2}, {8, 7}, {5, 4}, {8, 3}};
  std::vector<TableEntry> entries(4);
  const TableView table{entries.data(), entries.size()};
  table.clear(0, 4);
  count_aggregate(table, input, false);
  counts_to_offsets(table, 0, 4, 0);
  std::vector<std::uint64_t> values(input.size());
  median_scatter(table, input, values.data(), false);
  median_select(table, 0, 4, 0, values.data());
  const GroupDigest d = table_digest(table, 0, 4);
  EXPECT_EQ(d.groups, 2u);
  EXPECT_EQ(d.payload_sum, 8u + 10u);
  EXPECT_EQ(d.digest, group_digest_term(5, 8) + group_digest_term(8, 10));
}

TEST(OperatorKernelTest, IndexShapeAndLookupOfEveryKey) {
  for (std::uint64_t n : {1ULL, 7ULL, 8ULL, 9ULL, 64ULL, 65ULL, 1000ULL}) {
    const IndexShape shape = index_shape(n);
    EXPECT_EQ(shape.level_nodes.front(), 1u);
    EXPECT_EQ(shape.level_nodes.back(), (n + 7) / 8);
    std::vector<std::uint64_t> keys(n);
    for (std::uint64_t i = 0; i < n; ++i) keys[i] = 3 * i + 1;  // sparse: some probes miss
    std::vector<IndexNode> nodes(shape.nodes);
    write_index_nodes(shape, keys.data(), nodes.data(), 0, shape.nodes);
    std::vector<Tuple> probe;
    for (std::uint64_t k = 0; k < 3 * n + 3; ++k) probe.push_back({k, 1});
    const JoinTotals t = index_join_probe(shape, nodes.data(), probe);
    EXPECT_EQ(t.matches, n) << n;
    EXPECT_EQ(t.checksum, n * (n - 1) / 2 + n) << n;  // ranks 0..n-1, plus one per match
  }
  EXPECT_THROW(index_shape(0), std::invalid_argument);
}

TEST(OperatorKernelTest, RadixJoinWithManyPartitionsMatchesTheSharedTable) {
  std::vector<Tuple> r;
  std::vector<Tuple> s;
  for (std::uint64_t i = 0; i < 2000; ++i) r.push_back({i * 7, i});
  for (std::uint64_t i = 0; i < 9000; ++i) s.push_back({(i * 13) % 16000, 1});
  std::vector<TableEntry> entries(4000);
  const TableView table{entries.data(), entries.size()};
  table.clear(0, entries.size());
  hash_join_build(table, r, false);
  const JoinTotals shared = hash_join_probe(table, s);
  // The copies at every offset from a cache line (in 8-byte steps): the streaming stores must
  // write only whole lines inside a partition's range, ordinary stores the rest.
  const auto r_bytes = std::make_unique<std::byte[]>((r.size() + 4) * sizeof(Tuple));
  const auto s_bytes = std::make_unique<std::byte[]>((s.size() + 4) * sizeof(Tuple));
  for (int workers : {1, 2}) {
    ThreadTeam team(std::vector<int>(static_cast<std::size_t>(workers), kUnpinned));
    for (int bits : {0, 4, 9}) {
      for (std::size_t words : {0, 1, 2, 4, 6}) {
        auto* r_out = reinterpret_cast<Tuple*>(r_bytes.get() + 8 * words);
        auto* s_out = reinterpret_cast<Tuple*>(s_bytes.get() + 8 * words);
        std::vector<PhaseTime> phases;
        const JoinTotals radix = radix_hash_join(team, r, s, r_out, s_out, bits, &phases);
        EXPECT_EQ(radix.matches, shared.matches) << bits << " " << words;
        EXPECT_EQ(radix.checksum, shared.checksum) << bits << " " << words;
        ASSERT_EQ(phases.size(), 2u);
        // Every tuple lands once: the copies hold R and S (as multisets of keys).
        std::vector<std::uint64_t> got;
        std::vector<std::uint64_t> want;
        for (std::size_t i = 0; i < s.size(); ++i) {
          got.push_back(s_out[i].key * 31 + s_out[i].value);
          want.push_back(s[i].key * 31 + s[i].value);
        }
        std::sort(got.begin(), got.end());
        std::sort(want.begin(), want.end());
        EXPECT_EQ(got, want) << bits << " " << words;
      }
    }
  }
  EXPECT_GT(shared.matches, 0u);
  ThreadTeam team({kUnpinned});
  std::vector<Tuple> r_out(r.size());
  std::vector<Tuple> s_out(s.size());
  EXPECT_THROW(radix_hash_join(team, r, s, r_out.data(), s_out.data(), -1, nullptr),
               std::invalid_argument);
  EXPECT_THROW(
      radix_hash_join(team, r, s, r_out.data(), s_out.data(), kMaxRadixJoinBits + 1, nullptr),
      std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
