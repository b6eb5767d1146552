// Advice: deterministic, never predicted slower than the OS default it is compared with, and
// its plan names the policy it recommends.
#include <gtest/gtest.h>

#include <filesystem>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/search/advise.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

WorkloadSpec hash_join(const model::Topology& t) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kHashJoin;
  s.threads = t.total_cores();
  s.data.records = 1e7;
  s.data.build_records = 1e6;
  s.data.keys.groups = 1e8;
  return s;
}

TEST(AdviseTest, NeverSlowerThanTheDefaultAndDeterministic) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  const Advice a = advise(t, hash_join(t));
  const Advice b = advise(t, hash_join(t));
  ASSERT_FALSE(a.ranked.empty());
  // The default is one of the ranked candidates (so the best can never be slower than it),
  // the ranking is sorted, and every speedup is measured against the same default.
  bool default_ranked = false;
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    const AdviceCandidate& c = a.ranked[i];
    default_ranked = default_ranked || (c.spec.placement.kind == PlacementKind::kNone && c.time_s == a.os_default.time_s);
    if (i > 0) {
      EXPECT_LE(a.ranked[i - 1].time_s, c.time_s);
    }
    EXPECT_DOUBLE_EQ(c.speedup, a.os_default.time_s / c.time_s);
  }
  EXPECT_TRUE(default_ranked);
  EXPECT_LE(a.ranked.front().time_s, a.os_default.time_s);
  ASSERT_EQ(a.ranked.size(), b.ranked.size());
  for (std::size_t i = 0; i < a.ranked.size(); ++i) {
    EXPECT_EQ(a.ranked[i].time_s, b.ranked[i].time_s);
    EXPECT_EQ(configuration_text(t, a.ranked[i].spec), configuration_text(t, b.ranked[i].spec));
  }
  // The default loads one node's memory: the model must find something faster on 4 sockets.
  EXPECT_GT(a.ranked.front().speedup, 1.2);
  EXPECT_EQ(a.evaluated, a.candidates);
}

TEST(AdviseTest, ForShufflesRecommendsARingOrder) {
  // Four fully connected sockets of two cores: naive order reads one socket at a time.
  model::GeneratorParams p;
  p.nodes = 4;
  p.cores_per_node = 2;
  p.threads_per_core = 1;
  const model::Topology t = model::generate_topology(p);
  WorkloadSpec s;
  s.threads = 8;
  s.total_bytes = 1.28e8;
  const Advice a = advise(t, s);
  EXPECT_EQ(a.ranked.front().spec.algorithm, ShuffleAlgorithm::kRing);
}

TEST(AdviseTest, PlanNamesTheRecommendedPolicy) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec s = hash_join(t);
  s.memory = parse_memory_policy("interleave", t);
  s.placement = parse_placement("sparse");
  const std::vector<std::string> plan = apply_plan(t, s);
  ASSERT_GE(plan.size(), 2u);
  EXPECT_EQ(plan[0].rfind("numactl --interleave=all taskset -c 0,15,30,45,", 0), 0u) << plan[0];
  EXPECT_NE(plan[1].find("OMP_NUM_THREADS=60"), std::string::npos);
}

TEST(AdviseTest, BudgetStopsTheSearch) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  AdviceOptions options;
  options.stop = [](int evaluated) { return evaluated >= 3; };
  const Advice a = advise(t, hash_join(t), options);
  EXPECT_EQ(a.evaluated, 3);
  EXPECT_LT(a.evaluated, a.candidates);
}

TEST(AdviseTest, RejectsImpossibleSpecs) {
  const model::Topology t = machine("xeon-e7-4880v2-4s");
  WorkloadSpec s = hash_join(t);
  s.threads = 500;
  EXPECT_THROW(advise(t, s), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
