// The allocating kernels (validate/allocating_kernels.hpp) against std::map references on small
// generated inputs, for five key distributions and 1 and 2 workers; the chained table's overflow
// count against its buckets' occupancy; bad specs; the allocator cost benchmark's shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/allocating_kernels.hpp"
#include "numatwin/validate/alloc/allocator_cost_bench.hpp"
#include "numatwin/validate/run/operator_run.hpp"
#include "this_machine.hpp"

namespace numatwin::validate {
namespace {

using test_support::this_machine;

sim::WorkloadSpec spec_of(sim::WorkloadKind kind, const std::string& keys, int threads) {
  sim::WorkloadSpec spec;
  spec.kind = kind;
  spec.allocation = kind == sim::WorkloadKind::kHashJoin ? sim::Allocation::kPerBucket : sim::Allocation::kPerGroup;
  spec.threads = threads;
  if (threads > this_machine().topology.total_cores()) spec.placement.kind = sim::PlacementKind::kNone;
  spec.data.records = 20000;
  spec.data.build_records = 3000;
  spec.data.keys = sim::parse_key_distribution(keys, 500);
  spec.memory = sim::parse_memory_policy("first-touch", this_machine().topology);
  spec.seed = 11;
  return spec;
}

std::vector<Tuple> rows_of(const sim::WorkloadSpec& spec, bool build) {
  std::vector<Tuple> t(build ? build_rows(spec) : input_rows(spec));
  if (build)
    BuildData(spec).fill(0, t);
  else
    ProbeData(spec).fill(0, t);
  return t;
}

// MEDIAN: sum of mix(key) x (2 x median + 1), the medians from std::sort per key (std::map).
std::uint64_t median_reference(const sim::WorkloadSpec& spec) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> values;
  for (const Tuple& t : rows_of(spec, false)) values[t.key].push_back(t.value);
  std::uint64_t digest = 0;
  for (auto& [key, v] : values) {
    std::sort(v.begin(), v.end());
    digest += group_digest_term(key, v[(v.size() - 1) / 2] + v[v.size() / 2]);
  }
  return digest;
}

// Join: sum of r.value + s.value over S's tuples whose key is in R (std::map).
std::uint64_t join_reference(const sim::WorkloadSpec& spec) {
  std::map<std::uint64_t, std::uint64_t> r;
  for (const Tuple& t : rows_of(spec, true)) r[t.key] = t.value;
  std::uint64_t sum = 0;
  for (const Tuple& t : rows_of(spec, false)) {
    if (auto it = r.find(t.key); it != r.end()) sum += it->second + t.value;
  }
  return sum;
}

struct Case {
  sim::WorkloadKind kind;
  const char* keys;
  int threads;
};

class AllocatingRunTest : public ::testing::TestWithParam<Case> {};

TEST_P(AllocatingRunTest, MatchesTheReference) {
  const Case c = GetParam();
  const sim::WorkloadSpec spec = spec_of(c.kind, c.keys, c.threads);
  RunOptions options;
  options.repetitions = 2;
  const RealRun run = run_operator_workload(this_machine().topology, this_machine().host, spec, options);
  EXPECT_TRUE(run.verified) << run.verification;
  EXPECT_EQ(run.checksum, c.kind == sim::WorkloadKind::kHashJoin ? join_reference(spec) : median_reference(spec));
  ASSERT_FALSE(run.phases.empty());
  EXPECT_EQ(run.phases.back().name, c.kind == sim::WorkloadKind::kHashJoin ? "free" : "median and free");
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (sim::WorkloadKind kind : {sim::WorkloadKind::kMedianAggregation, sim::WorkloadKind::kHashJoin})
    for (const char* keys : {"uniform", "zipf", "heavy-hitter", "moving-cluster:50", "sequential"})
      for (int threads : {1, 2}) out.push_back({kind, keys, threads});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Allocating, AllocatingRunTest, ::testing::ValuesIn(cases()), [](const auto& param_info) {
  std::string name = sim::workload_kind_name(param_info.param.kind) + "_" + param_info.param.keys + "_" + std::to_string(param_info.param.threads);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

TEST(ChainedTableTest, OverflowNodesAreTheTuplesBeyondOnePerBucket) {
  // 3000 distinct keys into 2048 buckets (the power of two >= 1500 is 2048): every non-empty
  // bucket keeps one tuple inline, so the nodes malloc'd are 3000 - (non-empty buckets).
  std::vector<Tuple> r;
  for (std::uint64_t k = 0; k < 3000; ++k) r.push_back({k * 7 + 1, k});
  const std::uint64_t count = chained_bucket_count(r.size());
  ASSERT_EQ(count, 2048u);
  std::vector<ChainBucket> storage(count);
  for (ChainBucket& b : storage) {
    b.state = 0;
    b.next = nullptr;
  }
  ChainedTable table{storage.data(), count, 11};
  std::set<std::uint64_t> used;
  for (const Tuple& t : r) used.insert(table.bucket_of(t.key));
  std::uint64_t split = 99;
  const std::uint64_t nodes = chained_build(table, r, false, &split);
  EXPECT_EQ(nodes, r.size() - used.size());
  // The nodes across two 64-byte lines, counted here from the chains' addresses: a 24-byte node
  // at offset o within its line spans two when o + 24 > 64.
  std::uint64_t across = 0;
  for (const ChainBucket& b : storage)
    for (const OverflowNode* n = b.next; n != nullptr; n = n->next) across += reinterpret_cast<std::uintptr_t>(n) % 64 + 24 > 64 ? 1 : 0;
  EXPECT_EQ(split, across);
  const JoinTotals found = chained_probe(table, r);
  EXPECT_EQ(found.matches, r.size());
  EXPECT_EQ(chained_free(table, 0, count), nodes);
  for (const ChainBucket& b : storage) EXPECT_EQ(b.next, nullptr);
}

TEST(AllocatingSpecTest, AllocationThatDoesNotFitIsRefusedBeforeWork) {
  sim::WorkloadSpec spec = spec_of(sim::WorkloadKind::kCountAggregation, "uniform", 1);
  spec.allocation = sim::Allocation::kPerGroup;
  try {
    (void)run_operator_workload(this_machine().topology, this_machine().host, spec, RunOptions{});
    ADD_FAILURE() << "per-group COUNT ran";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--allocation"), std::string::npos) << e.what();
  }
  spec = spec_of(sim::WorkloadKind::kMedianAggregation, "uniform", 1);
  spec.allocation = sim::Allocation::kPerBucket;
  EXPECT_THROW((void)run_operator_workload(this_machine().topology, this_machine().host, spec, RunOptions{}),
               std::invalid_argument);
}

TEST(AllocatorCostBenchTest, OnePointPerThreadCountAndSize) {
  AllocatorCostBenchOptions o;
  o.max_threads = 2;
  o.sizes = {16, 256};
  o.repetitions = 1;
  o.min_objects = 100;
  o.max_objects = 100;
  const std::vector<model::AllocatorCostPoint> points = run_allocator_cost_bench(o);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].threads, 1);
  EXPECT_EQ(points[0].size_bytes, 16);
  EXPECT_EQ(points[3].threads, 2);
  EXPECT_EQ(points[3].size_bytes, 256);
  for (const model::AllocatorCostPoint& p : points) {
    EXPECT_GT(p.malloc_ns, 0.0);
    EXPECT_GT(p.free_ns, 0.0);
    EXPECT_GT(p.realloc_ns, 0.0);
    EXPECT_GT(p.remote_free_ns, 0.0);
  }
  o.sizes = {24};
  EXPECT_THROW((void)run_allocator_cost_bench(o), std::invalid_argument);
  o.sizes = {16};
  o.max_threads = 0;
  EXPECT_THROW((void)run_allocator_cost_bench(o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::validate
