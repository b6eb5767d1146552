// advise_system (sim/search/advise_system.hpp): the allocator x huge pages x balancing x policy x
// placement ranking on a small machine, with the figures worked by hand.
#include <gtest/gtest.h>

#include <algorithm>

#include "numatwin/model/generators.hpp"
#include "numatwin/sim/search/advise_system.hpp"
#include "sim_test_machines.hpp"

namespace numatwin::sim {
namespace {

using test_machines::one_node_two_cores;

// An allocator's costs at threads 1 and 2 for 32, 64 and 128 B, scaled by k.
model::AllocatorCosts costs(const std::string& name, double k) {
  model::AllocatorCosts c;
  c.allocator = name;
  c.host = "h";
  c.measured_at = "t";
  c.source = "s";
  for (int threads : {1, 2}) {
    //                      size malloc       free        realloc      remote free
    c.points.push_back({threads, 32, 100.0 * k, 8.0 * k, 150.0 * k, 20.0 * k});
    c.points.push_back({threads, 64, 110.0 * k, 9.0 * k, 200.0 * k, 30.0 * k});
    c.points.push_back({threads, 128, 120.0 * k, 50.0 * k, 400.0 * k, 70.0 * k});
  }
  return c;
}

// glibc at the costs above, jemalloc at half of them.
model::Topology calibrated_machine() {
  model::Topology t = one_node_two_cores();
  t.allocator_costs = {costs("glibc", 1.0), costs("jemalloc", 0.5)};
  return t;
}

WorkloadSpec median(Allocation allocation) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kMedianAggregation;
  s.allocation = allocation;
  s.threads = 2;
  s.data.records = 1000;
  s.data.keys.distribution = KeyDistribution::kSequential;  // every group holds N / G = 10 values
  s.data.keys.groups = 100;
  return s;
}

SystemAdviceOptions options(std::vector<std::string> allocators) {
  SystemAdviceOptions o;
  o.allocators = std::move(allocators);
  o.os_default.huge_pages = model::HugePages::kMadvise;
  return o;
}

const FactorTrial* trial(const SystemAdvice& a, const std::string& factor, const std::string& value) {
  for (const FactorTrial& f : a.trials)
    if (f.factor == factor && f.value == value) return &f;
  return nullptr;
}

TEST(AdviseSystemTest, TheCheaperAllocatorRanksFirstForAnAllocatingSpecByItsCallsAlone) {
  const model::Topology t = calibrated_machine();
  const SystemAdvice a = advise_system(t, median(Allocation::kPerGroup), options({"jemalloc"}));
  ASSERT_FALSE(a.ranked.empty());
  EXPECT_EQ(a.ranked.front().placement.spec.allocator, "jemalloc");
  const FactorTrial* glibc = trial(a, "allocator", "glibc");
  const FactorTrial* jemalloc = trial(a, "allocator", "jemalloc");
  ASSERT_NE(glibc, nullptr);
  ASSERT_NE(jemalloc, nullptr);
  // 10 values per group: malloc(32), realloc to 64 and to 128, a free of 128 B that is remote with
  // probability 1/2: glibc 100 + 200 + 400 + (50 + 70) / 2 = 760 ns per group, jemalloc half,
  // 380 ns; two threads take 50 groups each at the same time: 50 x 380 ns = 19 us less.
  EXPECT_NEAR(glibc->time_s - jemalloc->time_s, 50 * 380e-9, 1e-9);
  EXPECT_DOUBLE_EQ(glibc->time_s, a.default_candidate.time_s);
  // The reason names the allocator, its malloc against glibc's and the calls.
  const std::string& why = a.ranked.front().reasons.front();
  EXPECT_NE(why.find("jemalloc: malloc 50 ns vs 100 ns (glibc) at 2 threads"), std::string::npos) << why;
  EXPECT_NE(why.find("300 allocations and 100 frees"), std::string::npos) << why;
  EXPECT_TRUE(a.rests_on_defaults.empty() ||
              std::none_of(a.rests_on_defaults.begin(), a.rests_on_defaults.end(),
                           [](const std::string& s) { return s.find("allocator costs") != std::string::npos; }));
}

TEST(AdviseSystemTest, TheAllocatorDoesNotMatterForAPreallocatedSpec) {
  const model::Topology t = calibrated_machine();
  const SystemAdvice a = advise_system(t, median(Allocation::kPreallocated), options({"jemalloc"}));
  EXPECT_EQ(trial(a, "allocator", "jemalloc"), nullptr);
  for (const SystemCandidate& c : a.ranked) {
    EXPECT_EQ(c.placement.spec.allocator, "glibc");
    for (const std::string& r : c.reasons) EXPECT_EQ(r.find("jemalloc"), std::string::npos) << r;
  }
  // The model agrees: the same preallocated spec under either allocator's costs predicts the same.
  WorkloadSpec with = median(Allocation::kPreallocated);
  with.allocator = "jemalloc";
  with.allocator_costs = costs("jemalloc", 0.5);
  EXPECT_DOUBLE_EQ(evaluate_candidate(t, with).time_s, evaluate_candidate(t, median(Allocation::kPreallocated)).time_s);
}

TEST(AdviseSystemTest, AnUncalibratedAllocatorIsSaidToRestOnDefaults) {
  const model::Topology t = calibrated_machine();
  const SystemAdvice a = advise_system(t, median(Allocation::kPerGroup), options({"tcmalloc"}));
  EXPECT_TRUE(std::any_of(a.rests_on_defaults.begin(), a.rests_on_defaults.end(),
                          [](const std::string& s) { return s.find("tcmalloc's allocator costs") != std::string::npos; }));
}

TEST(AdviseSystemTest, HugePagesOffIsNeverFasterForRandomAccessesBeyondTheTlbReach) {
  // A hash join whose table (2^20 buckets of 16 B = 16 MiB, plus the tuples) is far beyond the
  // 4 KiB pages' reach (1536 STLB entries x 4 KiB = 6 MiB): every probe pays a share of page walks
  // that 2 MiB pages (3 GiB of reach) do not.
  const model::Topology t = one_node_two_cores();
  WorkloadSpec s;
  s.kind = WorkloadKind::kHashJoin;
  s.threads = 2;
  s.data.records = 4e6;
  s.data.build_records = 1e6;
  s.data.keys.groups = 1e6;
  const SystemAdvice a = advise_system(t, s, options({}));
  const FactorTrial* off = trial(a, "huge pages", "off");
  const FactorTrial* on = trial(a, "huge pages", "on");
  ASSERT_NE(off, nullptr);
  ASSERT_NE(on, nullptr);
  EXPECT_GT(off->time_s, on->time_s);
  EXPECT_NE(a.ranked.front().placement.spec.huge_pages, model::HugePages::kOff);
  for (const SystemCandidate& c : a.ranked) {
    if (c.placement.spec.huge_pages != model::HugePages::kOff) continue;
    for (const SystemCandidate& d : a.ranked) {
      const WorkloadSpec& x = c.placement.spec;
      const WorkloadSpec& y = d.placement.spec;
      if (y.huge_pages == model::HugePages::kOn && y.threads == x.threads && y.placement.kind == x.placement.kind &&
          y.memory.kind == x.memory.kind && y.memory.init == x.memory.init && y.join_algorithm == x.join_algorithm) {
        EXPECT_GE(c.time_s, d.time_s) << system_configuration_text(t, c);
      }
    }
  }
}

TEST(AdviseSystemTest, TheDefaultIsRankedAndEveryGainIsAgainstIt) {
  const model::Topology t = calibrated_machine();
  const SystemAdvice a = advise_system(t, median(Allocation::kPerGroup), options({"jemalloc", "tbbmalloc"}));
  bool default_ranked = false;
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    const SystemCandidate& c = a.ranked[i];
    if (i > 0) {
      EXPECT_LE(a.ranked[i - 1].time_s, c.time_s);
    }
    EXPECT_DOUBLE_EQ(c.speedup, a.default_candidate.time_s / c.time_s);
    EXPECT_FALSE(c.reasons.empty());
    default_ranked = default_ranked || (c.reasons.front() == "the system default");
  }
  EXPECT_TRUE(default_ranked);
  EXPECT_LE(a.ranked.front().time_s, a.default_candidate.time_s);
  EXPECT_EQ(a.os_default.allocator, "glibc");
  // Fewer simulations than the full product (placements x 3 allocators x 3 page settings).
  EXPECT_LT(a.simulated, a.full_product);
}

TEST(AdviseSystemTest, BalancingIsVariedOnlyWithSeveralNodesAndExecutions) {
  const model::Topology one = calibrated_machine();
  SystemAdviceOptions o = options({});
  o.executions = 3;
  o.os_default.numa_balancing = true;
  const SystemAdvice a = advise_system(one, median(Allocation::kPreallocated), o);
  EXPECT_EQ(trial(a, "balancing", "on"), nullptr);
  EXPECT_FALSE(a.os_default.numa_balancing);  // nothing can move on one node
  EXPECT_TRUE(std::any_of(a.search.begin(), a.search.end(),
                          [](const std::string& s) { return s.find("one NUMA node") != std::string::npos; }));
  // Three executions: every time is three of one.
  EXPECT_DOUBLE_EQ(a.default_candidate.time_s, 3 * a.default_candidate.placement.time_s);

  model::GeneratorParams p;
  p.nodes = 2;
  p.cores_per_node = 2;
  p.threads_per_core = 1;
  const model::Topology two = model::generate_topology(p);
  WorkloadSpec s = median(Allocation::kPreallocated);
  s.threads = 4;
  const SystemAdvice b = advise_system(two, s, o);
  ASSERT_NE(trial(b, "balancing", "on"), nullptr);
  ASSERT_NE(trial(b, "balancing", "off"), nullptr);
  EXPECT_TRUE(b.os_default.numa_balancing);
  EXPECT_TRUE(std::any_of(b.ranked.begin(), b.ranked.end(), [](const SystemCandidate& c) { return !c.numa_balancing; }));
}

TEST(AdviseSystemTest, BadOptionsAreRefused) {
  const model::Topology t = calibrated_machine();
  SystemAdviceOptions o = options({});
  o.executions = 0;
  EXPECT_THROW(advise_system(t, median(Allocation::kPerGroup), o), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
