// The shuffle family and partitioned aggregation run for real on this machine (one node, two
// CPUs): every variant, 1 and 2 workers, pinned and unpinned; results against simple references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/run/migration_cores.hpp"
#include "numatwin/validate/kernels/shuffle_kernels.hpp"
#include "numatwin/validate/run/shuffle_run.hpp"
#include "numatwin/validate/host/thread_team.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"
#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

using test_support::ThisMachine;
using test_support::this_machine;

int usable_cpus() {
  int cpus = 0;
  for (const auto& node : this_machine().host.node_cpus) cpus += static_cast<int>(node.size());
  return cpus;
}

RunOptions quick() {
  RunOptions options;
  options.repetitions = 2;
  return options;
}

sim::WorkloadSpec shuffle_spec(sim::WorkloadKind kind, sim::ShuffleAlgorithm algorithm, sim::SyncMode sync, int threads,
                               const char* placement) {
  sim::WorkloadSpec spec;
  spec.kind = kind;
  spec.algorithm = algorithm;
  spec.sync = sync;
  spec.threads = threads;
  spec.placement = sim::parse_placement(placement);
  spec.total_bytes = 3.0 * 1024 * 1024 + 40;  // pieces not a multiple of a line or a page
  spec.seed = 7;
  return spec;
}

// The independent reference: every element the producers write, summed.
std::uint64_t all_elements(const sim::WorkloadSpec& spec) {
  const auto pieces = static_cast<std::uint64_t>(spec.threads) * static_cast<std::uint64_t>(spec.threads);
  const auto per_piece = static_cast<std::uint64_t>(spec.total_bytes / (8.0 * static_cast<double>(pieces)));
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < pieces * per_piece; ++i) sum += shuffle_element(spec.seed, i);
  return sum;
}

TEST(ShuffleKernelTest, SumMatchesASimpleLoopForEveryLengthAndOffset) {
  std::vector<std::uint64_t> data(300);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = shuffle_element(3, i);
  for (std::size_t offset = 0; offset < 5; ++offset)
    for (std::size_t count = 0; offset + count <= data.size(); count += 7) {
      const std::uint64_t expected = std::accumulate(data.begin() + static_cast<long>(offset),
                                                     data.begin() + static_cast<long>(offset + count), std::uint64_t{0});
      EXPECT_EQ(sum_elements(data.data() + offset, count), expected) << offset << " " << count;
    }
}

TEST(ShuffleKernelTest, PartitionInPlaceGroupsKeysAndKeepsTheTuples) {
  std::vector<Tuple> tuples;
  for (std::uint64_t i = 0; i < 1000; ++i) tuples.push_back(Tuple{key_hash(i) % 97, i});
  std::multiset<std::pair<std::uint64_t, std::uint64_t>> before;
  for (const Tuple& t : tuples) before.insert({t.key, t.value});
  for (int parts : {1, 2, 3, 8}) {
    std::vector<Tuple> copy = tuples;
    const std::vector<std::size_t> offsets = partition_in_place(copy.data(), copy.size(), parts);
    ASSERT_EQ(offsets.size(), static_cast<std::size_t>(parts) + 1);
    EXPECT_EQ(offsets.front(), 0u);
    EXPECT_EQ(offsets.back(), copy.size());
    for (int p = 0; p < parts; ++p)
      for (std::size_t i = offsets[static_cast<std::size_t>(p)]; i < offsets[static_cast<std::size_t>(p) + 1]; ++i)
        EXPECT_EQ(partition_of(copy[i].key, parts), p);
    std::multiset<std::pair<std::uint64_t, std::uint64_t>> after;
    for (const Tuple& t : copy) after.insert({t.key, t.value});
    EXPECT_EQ(after, before);
  }
}

TEST(ShuffleKernelTest, AggregationMatchesAMapAndReportsAFullTable) {
  std::vector<Tuple> tuples;
  for (std::uint64_t i = 0; i < 5000; ++i) tuples.push_back(Tuple{key_hash(i) % 300, i % 11});
  std::map<std::uint64_t, std::pair<std::uint64_t, std::uint64_t>> reference;
  for (const Tuple& t : tuples) {
    ++reference[t.key].first;
    reference[t.key].second += t.value;
  }
  const std::size_t slots = table_slots(300);
  EXPECT_EQ(slots, 1024u);
  std::vector<GroupEntry> table(slots, GroupEntry{0, 0, 0});
  std::size_t used = 0;
  bool overflow = false;
  // Two pieces into one table, as a consumer does over its steps.
  aggregate_piece(tuples.data(), 2000, AggregationTable{table.data(), slots - 1, &used, &overflow});
  aggregate_piece(tuples.data() + 2000, 3000, AggregationTable{table.data(), slots - 1, &used, &overflow});
  EXPECT_FALSE(overflow);
  EXPECT_EQ(used, reference.size());
  std::size_t seen = 0;
  for (const GroupEntry& e : table) {
    if (e.key_plus_one == 0) continue;
    ++seen;
    const auto& [count, sum] = reference.at(e.key_plus_one - 1ULL);
    EXPECT_EQ(e.count, count);
    EXPECT_EQ(e.sum, sum);
  }
  EXPECT_EQ(seen, reference.size());
  // A table of 16 slots takes 15 groups, then reports overflow instead of looping.
  std::vector<GroupEntry> small(16, GroupEntry{0, 0, 0});
  used = 0;
  aggregate_piece(tuples.data(), tuples.size(), AggregationTable{small.data(), 15, &used, &overflow});
  EXPECT_TRUE(overflow);
  EXPECT_EQ(used, 15u);
}

TEST(MigrationCoresTest, StaysOnItsNodeAndTakesTheLeastBusyCoreElsewhere) {
  // A hand-made map of two nodes with two cores each: CPUs 10, 11 and 20, 21.
  HostMap host;
  host.node_os_index = {0, 1};
  host.node_cpus = {{10, 11}, {20, 21}};
  host.first_core = {0, 2};
  host.cores = {2, 2};
  std::vector<sim::PlacedThread> threads(3);
  threads[0] = sim::PlacedThread{0, 0, 0, 0};
  threads[1] = sim::PlacedThread{1, 1, 0, 0};
  threads[2] = sim::PlacedThread{2, 2, 0, 1};
  MigrationCores cores(host, threads);
  EXPECT_EQ(cores.move(0, 0), kStay);
  EXPECT_EQ(cores.move(0, 1), 21);  // core 0 of node 1 holds thread 2
  EXPECT_EQ(cores.move(1, 1), 20);  // both busy once: lowest index
  EXPECT_EQ(cores.node_of(1), 1);
  EXPECT_EQ(cores.move(2, 0), 10);  // node 0 emptied by threads 0 and 1
  cores.reset();
  EXPECT_EQ(cores.node_of(0), 0);
  EXPECT_EQ(cores.move(0, 1), 21);
}

struct Variant {
  sim::WorkloadKind kind;
  sim::ShuffleAlgorithm algorithm;
  sim::SyncMode sync;
};

std::vector<Variant> shuffle_variants() {
  std::vector<Variant> out;
  for (auto kind : {sim::WorkloadKind::kShuffle, sim::WorkloadKind::kMigration, sim::WorkloadKind::kMigrationAndCopy})
    for (auto algorithm : {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing, sim::ShuffleAlgorithm::kCoordinatedRandom})
      for (auto sync : {sim::SyncMode::kTight, sim::SyncMode::kLoose}) out.push_back(Variant{kind, algorithm, sync});
  return out;
}

TEST(ShuffleRunTest, EveryVariantSumsEveryElementOnceAtOneAndTwoWorkers) {
  const ThisMachine& m = this_machine();
  for (int threads = 1; threads <= std::min(2, usable_cpus()); ++threads) {
    for (const char* placement : {"dense", "none"}) {
      for (const Variant& v : shuffle_variants()) {
        sim::WorkloadSpec spec = shuffle_spec(v.kind, v.algorithm, v.sync, threads, placement);
        spec.state_bytes = 100.0;  // not a multiple of a word
        const std::string what = sim::workload_kind_name(v.kind) + " " + sim::algorithm_name(v.algorithm) + " " +
                                 sim::sync_name(v.sync) + " " + placement + " x" + std::to_string(threads);
        const RealRun run = run_shuffle_workload(m.topology, m.host, spec, quick());
        EXPECT_TRUE(run.verified) << what;
        EXPECT_EQ(run.checksum, all_elements(spec)) << what;
        EXPECT_EQ(run.work_unit, "bytes");
        const double pieces = threads * threads;
        EXPECT_DOUBLE_EQ(run.work, pieces * 8.0 * std::floor(spec.total_bytes / (8.0 * pieces))) << what;
        EXPECT_EQ(run.repetition_seconds.size(), 2u);
        EXPECT_GT(run.seconds, 0.0);
        EXPECT_EQ(run.phases.size(), v.sync == sim::SyncMode::kTight ? static_cast<std::size_t>(threads) : 0u) << what;
        ASSERT_EQ(run.threads.size(), static_cast<std::size_t>(threads));
        for (const ThreadObservation& t : run.threads) {
          if (std::string(placement) == "dense") {
            EXPECT_EQ(t.cpu_at_end, t.intended_cpu) << what;  // migrating workers went home
          } else {
            EXPECT_EQ(t.intended_cpu, kUnpinned);
          }
        }
        ASSERT_FALSE(run.datasets.empty());
        EXPECT_EQ(run.datasets.front().name, "buffers");
        EXPECT_EQ(run.datasets.front().pages.pages_not_present, 0u) << what;
        const bool has_state = v.kind != sim::WorkloadKind::kShuffle;
        EXPECT_EQ(run.datasets.size(), has_state ? 2u : 1u) << what;  // one node: one state dataset
      }
    }
  }
}

TEST(ShuffleRunTest, MigrationWithoutStateAndCoordinatedRandomSeedsAgree) {
  const ThisMachine& m = this_machine();
  const int threads = std::min(2, usable_cpus());
  sim::WorkloadSpec spec =
      shuffle_spec(sim::WorkloadKind::kMigrationAndCopy, sim::ShuffleAlgorithm::kCoordinatedRandom, sim::SyncMode::kLoose, threads, "sparse");
  spec.state_bytes = 0.0;
  RunOptions options = quick();
  options.huge_pages = true;
  const RealRun run = run_shuffle_workload(m.topology, m.host, spec, options);
  EXPECT_EQ(run.checksum, all_elements(spec));
  EXPECT_TRUE(run.huge_pages);
  EXPECT_EQ(run.datasets.size(), 1u);  // no state to place
}

TEST(ShuffleRunTest, ConsumersVisitProducersInTheSimulatorsOrder) {
  // On a 4-socket model with 8 threads (2 per socket), the node each consumer reads at step k is
  // the node the simulator's plan reads at step k, for every algorithm; each visits every
  // producer once; ring reads every producer exactly once per step.
  const model::Topology topology = model::load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/nehalem-ex-4s.json");
  for (auto algorithm : {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing, sim::ShuffleAlgorithm::kCoordinatedRandom}) {
    sim::WorkloadSpec spec;
    spec.kind = sim::WorkloadKind::kShuffle;
    spec.algorithm = algorithm;
    spec.sync = sim::SyncMode::kLoose;
    spec.threads = 8;
    spec.placement = sim::parse_placement("sparse");
    spec.total_bytes = 1e6;
    spec.seed = 9;
    const std::vector<sim::PlacedThread> placed = sim::place_threads(topology, spec.threads, spec.placement);
    const std::vector<std::vector<int>> visit = consumer_visits(placed, algorithm, spec.seed);
    const sim::Plan plan = sim::build_shuffle_plan(topology, spec);
    ASSERT_EQ(visit.size(), 8u);
    for (std::size_t t = 0; t < 8; ++t) {
      std::vector<int> sorted = visit[t];
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
      std::size_t k = 0;
      for (const sim::Op& op : plan.threads[t].ops) {
        const auto* transfer = std::get_if<sim::Transfer>(&op);
        if (transfer == nullptr) continue;
        ASSERT_LT(k, 8u);
        EXPECT_EQ(transfer->read_node, placed[static_cast<std::size_t>(visit[t][k])].node) << "thread " << t << " step " << k;
        ++k;
      }
      EXPECT_EQ(k, 8u);
    }
    if (algorithm == sim::ShuffleAlgorithm::kRing) {
      for (std::size_t k = 0; k < 8; ++k) {
        std::set<int> producers;
        for (std::size_t t = 0; t < 8; ++t) producers.insert(visit[t][k]);
        EXPECT_EQ(producers.size(), 8u) << "step " << k;
      }
    }
  }
}

TEST(ShuffleRunTest, ScheduledOrdersAreVisitedAsGivenAndVerify) {
  // kScheduled (a schedule file's order, `validate run --schedule`): thread t visits
  // producer_orders[t] step by step, in the simulator's plan and in the real run, which runs
  // through libnumatwin-shuffle and verifies as the other orders do.
  const model::Topology topology = model::load_topology(std::string(NUMATWIN_TOPOLOGY_DIR) + "/nehalem-ex-4s.json");
  const std::vector<std::vector<int>> orders{{2, 0, 1, 3}, {3, 2, 0, 1}, {0, 1, 3, 2}, {1, 3, 2, 0}};  // a Latin square
  sim::WorkloadSpec spec = shuffle_spec(sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kScheduled, sim::SyncMode::kTight, 4,
                                        "sparse");
  spec.producer_orders = orders;
  const std::vector<sim::PlacedThread> placed = sim::place_threads(topology, 4, spec.placement);
  EXPECT_EQ(consumer_visits(placed, spec.algorithm, spec.seed, orders), orders);
  const sim::Plan plan = sim::build_shuffle_plan(topology, spec);
  for (std::size_t t = 0; t < 4; ++t) {
    std::size_t k = 0;
    for (const sim::Op& op : plan.threads[t].ops) {
      if (const auto* transfer = std::get_if<sim::Transfer>(&op)) {
        EXPECT_EQ(transfer->read_node, placed[static_cast<std::size_t>(orders[t][k++])].node) << "thread " << t;
      }
    }
    EXPECT_EQ(k, 4u);
  }

  const ThisMachine& m = this_machine();
  const int threads = std::min(2, usable_cpus());
  for (auto sync : {sim::SyncMode::kTight, sim::SyncMode::kLoose}) {
    sim::WorkloadSpec real = shuffle_spec(sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kScheduled, sync, threads, "dense");
    real.producer_orders = threads == 2 ? std::vector<std::vector<int>>{{1, 0}, {0, 1}} : std::vector<std::vector<int>>{{0}};
    const RealRun run = run_shuffle_workload(m.topology, m.host, real, quick());
    EXPECT_TRUE(run.verified);
    EXPECT_EQ(run.checksum, all_elements(real));
    for (const ThreadObservation& t : run.threads) EXPECT_EQ(t.cpu_at_start, t.intended_cpu);
  }
}

TEST(ShuffleRunTest, BadSpecsAreRejectedBeforeAnyWork) {
  const ThisMachine& m = this_machine();
  sim::WorkloadSpec spec = shuffle_spec(sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight, 1, "dense");
  auto message = [&](const sim::WorkloadSpec& s) -> std::string {
    try {
      run_shuffle_workload(m.topology, m.host, s, quick());
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "no error";
  };
  sim::WorkloadSpec join = spec;
  join.kind = sim::WorkloadKind::kHashJoin;
  EXPECT_NE(message(join).find("not a shuffle"), std::string::npos) << message(join);
  sim::WorkloadSpec narrow = spec;
  narrow.element_bytes = 4;
  EXPECT_NE(message(narrow).find("--element-bytes"), std::string::npos) << message(narrow);
  sim::WorkloadSpec tiny = spec;
  tiny.total_bytes = 4.0;
  EXPECT_NE(message(tiny).find("--bytes"), std::string::npos) << message(tiny);
  sim::WorkloadSpec huge = spec;
  huge.total_bytes = 4e9;  // fits the node, not 1 % of the free memory
  RunOptions frugal = quick();
  frugal.memory_fraction = 0.01;
  try {
    run_shuffle_workload(m.topology, m.host, huge, frugal);
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("free"), std::string::npos) << e.what();
  }
  sim::WorkloadSpec aggregation = spec;
  aggregation.kind = sim::WorkloadKind::kPartitionedAggregation;
  aggregation.data.records = 1000;
  aggregation.data.tuple_bytes = 8;
  EXPECT_NE(message(aggregation).find("--tuple-bytes"), std::string::npos) << message(aggregation);
  aggregation.data.tuple_bytes = 16;
  aggregation.data.keys.groups = 1e10;
  EXPECT_NE(message(aggregation).find("--groups"), std::string::npos) << message(aggregation);
  RunOptions none = quick();
  none.repetitions = 0;
  EXPECT_THROW(run_shuffle_workload(m.topology, m.host, spec, none), std::invalid_argument);
}

TEST(ShuffleRunTest, MemoryBytesCoverTheData) {
  sim::WorkloadSpec spec = shuffle_spec(sim::WorkloadKind::kMigration, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight, 2, "dense");
  spec.total_bytes = 1e8;
  EXPECT_GE(shuffle_memory_bytes(spec), 1e8);
  EXPECT_LE(shuffle_memory_bytes(spec), 1e8 + 1e6);
  spec.kind = sim::WorkloadKind::kPartitionedAggregation;
  spec.data.records = 1e7;
  spec.data.keys.groups = 1000;
  EXPECT_GE(shuffle_memory_bytes(spec), 16e7);
  spec.kind = sim::WorkloadKind::kCountAggregation;
  EXPECT_THROW(shuffle_memory_bytes(spec), std::invalid_argument);
}

sim::WorkloadSpec aggregation_spec(sim::PartitionStrategy strategy, sim::ShuffleAlgorithm algorithm, sim::SyncMode sync, int threads,
                                   double records, double groups) {
  sim::WorkloadSpec spec;
  spec.kind = sim::WorkloadKind::kPartitionedAggregation;
  spec.strategy = strategy;
  spec.algorithm = algorithm;
  spec.sync = sync;
  spec.threads = threads;
  spec.placement = sim::parse_placement("dense");
  spec.data.records = records;
  spec.data.keys.groups = groups;
  spec.seed = 11;
  return spec;
}

TEST(PartitionedAggregationRunTest, EveryStrategyMatchesTheReferenceAndAgreesWithTheOthers) {
  const ThisMachine& m = this_machine();
  for (int threads = 1; threads <= std::min(2, usable_cpus()); ++threads) {
    for (double groups : {1.0, 37.0, 5000.0}) {
      std::set<std::uint64_t> digests;
      for (auto strategy : {sim::PartitionStrategy::kShuffle, sim::PartitionStrategy::kMigration, sim::PartitionStrategy::kMigrationAndCopy})
        for (auto algorithm : {sim::ShuffleAlgorithm::kNaive, sim::ShuffleAlgorithm::kRing})
          for (auto sync : {sim::SyncMode::kTight, sim::SyncMode::kLoose}) {
            const sim::WorkloadSpec spec = aggregation_spec(strategy, algorithm, sync, threads, 20011, groups);
            const std::string what = sim::strategy_name(strategy) + " " + sim::algorithm_name(algorithm) + " " +
                                     sim::sync_name(sync) + " x" + std::to_string(threads) + " G=" + std::to_string(groups);
            const RealRun run = run_shuffle_workload(m.topology, m.host, spec, quick());
            EXPECT_TRUE(run.verified) << what;
            EXPECT_NE(run.verification.find("reference"), std::string::npos) << run.verification;
            EXPECT_EQ(run.work_unit, "tuples");
            EXPECT_DOUBLE_EQ(run.work, 20011.0);
            EXPECT_EQ(run.phases.size(), sync == sim::SyncMode::kTight ? static_cast<std::size_t>(threads) : 0u) << what;
            ASSERT_GE(run.datasets.size(), 2u);
            EXPECT_EQ(run.datasets[0].name, "input");
            EXPECT_EQ(run.datasets[1].name, "tables");
            EXPECT_EQ(run.datasets.size(), strategy == sim::PartitionStrategy::kMigrationAndCopy ? 3u : 2u) << what;
            digests.insert(run.checksum);
          }
      EXPECT_EQ(digests.size(), 1u) << "threads " << threads << " groups " << groups;  // same data, same groups
    }
  }
}

TEST(PartitionedAggregationRunTest, EveryKeyDistributionMatchesTheReference) {
  const ThisMachine& m = this_machine();
  const int threads = std::min(2, usable_cpus());
  for (const char* keys : {"uniform", "zipf:0.5", "heavy-hitter:0.3", "moving-cluster:50", "sequential"}) {
    for (auto strategy : {sim::PartitionStrategy::kShuffle, sim::PartitionStrategy::kMigrationAndCopy}) {
      sim::WorkloadSpec spec = aggregation_spec(strategy, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight, threads, 30000, 2000);
      spec.data.keys = sim::parse_key_distribution(keys, 2000);
      const RealRun run = run_shuffle_workload(m.topology, m.host, spec, quick());
      EXPECT_TRUE(run.verified) << keys;
      EXPECT_NE(run.verification.find("reference"), std::string::npos) << keys;
    }
  }
}

TEST(PartitionedAggregationRunTest, MemoryPoliciesPlaceTheInputAndLargeInputsUseInvariants) {
  const ThisMachine& m = this_machine();
  const int threads = std::min(2, usable_cpus());
  sim::WorkloadSpec spec = aggregation_spec(sim::PartitionStrategy::kMigration, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kLoose,
                                            threads, kReferenceRecords + 1000, 3000);
  spec.memory = sim::parse_memory_policy("interleave", m.topology);
  RunOptions options = quick();
  options.repetitions = 1;
  const RealRun run = run_shuffle_workload(m.topology, m.host, spec, options);
  EXPECT_TRUE(run.verified);
  EXPECT_NE(run.verification.find("COUNT total"), std::string::npos) << run.verification;
  const int node = m.host.node_os_index.front();
  EXPECT_DOUBLE_EQ(run.datasets[0].pages.fraction_on(node), m.host.memory_os_nodes.size() == 1 ? 1.0 : run.datasets[0].pages.fraction_on(node));
  EXPECT_EQ(run.datasets[0].pages.pages_not_present, 0u);
  // Fewer records than pieces is the simulator's error too.
  sim::WorkloadSpec few = aggregation_spec(sim::PartitionStrategy::kShuffle, sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight, threads, 3, 10);
  if (threads == 2) {
    EXPECT_THROW(run_shuffle_workload(m.topology, m.host, few, quick()), std::invalid_argument);
  }
}

}  // namespace
}  // namespace numatwin::validate
