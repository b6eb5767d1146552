// Golden files for whole operator simulations: time, bytes, local access ratio and per-resource
// mean utilisation of every operator (and every partitioned-aggregation strategy) on a shipped
// 4-socket machine, under placements and memory policies that exercise the builder's paths
// ("shared" thread placement, unpinned threads the OS moves, interleave, first touch by a
// loader). They were generated before the operators were split into one file each
// (sim/src/operators/), and catch unintended changes of the operators' plans; when a change is
// intended, regenerate them on purpose with
//   NUMATWIN_UPDATE_GOLDEN=1 ./build/debug/tests/sim_tests --gtest_filter='*OperatorGoldenTest*'
// and review the diff.
#include <gtest/gtest.h>

#include "golden_json.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

using Json = nlohmann::ordered_json;

struct OperatorCase {
  std::string name;
  WorkloadKind kind;
  int threads;
  PlacementKind placement = PlacementKind::kDense;
  MemoryPolicyKind memory = MemoryPolicyKind::kFirstTouch;
  PartitionStrategy strategy = PartitionStrategy::kShuffle;
  JoinAlgorithm join = JoinAlgorithm::kNonPartitioned;
  KeyDistribution keys = KeyDistribution::kUniform;
  double groups = 1e6;
  InitThreads init = InitThreads::kWorkers;
};

Json summarise(const OperatorCase& c) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "xeon-e7-4880v2-4s.json");
  WorkloadSpec spec;
  spec.kind = c.kind;
  spec.threads = c.threads;
  spec.algorithm = ShuffleAlgorithm::kRing;
  spec.placement.kind = c.placement;
  spec.memory.kind = c.memory;
  spec.memory.init = c.init;
  spec.strategy = c.strategy;
  spec.join_algorithm = c.join;
  spec.data.records = 4e7;
  spec.data.build_records = 4e6;
  spec.data.keys.distribution = c.keys;
  spec.data.keys.groups = c.groups;
  PlanReport report;
  Simulation simulation(t);
  const SimulationResult r = simulation.run(build_operator_plan(t, spec, &report));
  Json utilisation = Json::object();
  for (std::size_t i = 0; i < r.resources.size(); ++i) utilisation[r.resources[i].name] = r.mean_utilisation[i];
  Json notes = Json::array();
  for (const std::string& n : report.notes) notes.push_back(n);
  Json nodes = Json::array();
  for (const PlacedThread& p : report.threads) nodes.push_back(p.node);
  return Json{{"time_s", r.time_s},   {"bytes", r.bytes}, {"local_access_ratio", r.local_access_ratio()},
              {"thread_nodes", nodes}, {"notes", notes},  {"mean_utilisation", utilisation}};
}


void expect_close(const Json& expected, const Json& actual, const std::string& path) {
  testing_support::expect_close(expected, actual, path, 1e-9);
}

class OperatorGoldenTest : public ::testing::TestWithParam<OperatorCase> {};

TEST_P(OperatorGoldenTest, MatchesGoldenFile) {
  const OperatorCase& c = GetParam();
  const auto path = std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/golden/operators" / (c.name + ".json");
  const Json actual = summarise(c);
  if (const char* update = std::getenv("NUMATWIN_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << actual.dump(2) << "\n";
    GTEST_SKIP() << "regenerated " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path << " (generate it with NUMATWIN_UPDATE_GOLDEN=1)";
  expect_close(Json::parse(in), actual, c.name);
}

using K = WorkloadKind;
using P = PlacementKind;
using M = MemoryPolicyKind;
using S = PartitionStrategy;

INSTANTIATE_TEST_SUITE_P(
    Operators, OperatorGoldenTest,
    ::testing::Values(
        OperatorCase{"count_uniform_1e6_dense_30", K::kCountAggregation, 30},
        OperatorCase{"count_zipf_1e3_sparse_interleave_8", K::kCountAggregation, 8, P::kSparse, M::kInterleave, S::kShuffle,
                     JoinAlgorithm::kNonPartitioned, KeyDistribution::kZipf, 1e3},
        OperatorCase{"median_1e5_loader_first_touch_16", K::kMedianAggregation, 16, P::kDense, M::kFirstTouch, S::kShuffle,
                     JoinAlgorithm::kNonPartitioned, KeyDistribution::kUniform, 1e5, InitThreads::kLoader},
        OperatorCase{"hash_join_sparse_interleave_60", K::kHashJoin, 60, P::kSparse, M::kInterleave},
        OperatorCase{"hash_join_shared_placement_loader_12", K::kHashJoin, 12, P::kShared, M::kInterleave, S::kShuffle,
                     JoinAlgorithm::kNonPartitioned, KeyDistribution::kUniform, 1e6, InitThreads::kLoader},
        OperatorCase{"radix_join_dense_16", K::kHashJoin, 16, P::kDense, M::kFirstTouch, S::kShuffle, JoinAlgorithm::kRadix},
        OperatorCase{"index_join_unpinned_8", K::kIndexJoin, 8, P::kNone},
        OperatorCase{"partitioned_shuffle_sparse_16", K::kPartitionedAggregation, 16, P::kSparse, M::kFirstTouch, S::kShuffle},
        OperatorCase{"partitioned_migration_sparse_16", K::kPartitionedAggregation, 16, P::kSparse, M::kFirstTouch, S::kMigration},
        OperatorCase{"partitioned_migration_copy_sparse_16", K::kPartitionedAggregation, 16, P::kSparse, M::kFirstTouch,
                     S::kMigrationAndCopy},
        OperatorCase{"sort_merge_join_sparse_16", K::kSortMergeJoin, 16, P::kSparse}),
    [](const ::testing::TestParamInfo<OperatorCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace numatwin::sim
