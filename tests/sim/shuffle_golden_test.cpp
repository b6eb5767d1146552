// Golden files for whole simulations: totals and per-resource mean utilisation of a few
// shuffles on shipped machines, in tests/data/golden/. They catch unintended changes of the
// model or the engine; when a change is intended, regenerate them on purpose with
//   NUMATWIN_UPDATE_GOLDEN=1 ./build/debug/tests/sim_tests --gtest_filter='*GoldenTest*'
// and review the diff.
#include <gtest/gtest.h>

#include "golden_json.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

using Json = nlohmann::ordered_json;

struct GoldenCase {
  std::string name;
  std::string machine;
  WorkloadKind kind;
  ShuffleAlgorithm algorithm;
  SyncMode sync;
  int threads;
};

Json summarise(const GoldenCase& c) {
  const model::Topology t =
      model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (c.machine + ".json"));
  WorkloadSpec spec;
  spec.kind = c.kind;
  spec.algorithm = c.algorithm;
  spec.sync = c.sync;
  spec.threads = c.threads;
  spec.total_bytes = 1.28e9;
  Simulation simulation(t);
  const SimulationResult r = simulation.run(build_shuffle_plan(t, spec));
  Json utilisation = Json::object();
  for (std::size_t i = 0; i < r.resources.size(); ++i) utilisation[r.resources[i].name] = r.mean_utilisation[i];
  return Json{{"machine", c.machine},
              {"time_s", r.time_s},
              {"bytes", r.bytes},
              {"local_access_ratio", r.local_access_ratio()},
              {"mean_utilisation", utilisation}};
}


void expect_close(const Json& expected, const Json& actual, const std::string& path) {
  testing_support::expect_close(expected, actual, path, 1e-6);
}

class ShuffleGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ShuffleGoldenTest, MatchesGoldenFile) {
  const GoldenCase& c = GetParam();
  const auto path = std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/golden" / (c.name + ".json");
  const Json actual = summarise(c);
  if (const char* update = std::getenv("NUMATWIN_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << actual.dump(2) << "\n";
    GTEST_SKIP() << "regenerated " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path << " (generate it with NUMATWIN_UPDATE_GOLDEN=1)";
  expect_close(Json::parse(in), actual, c.name);
}

INSTANTIATE_TEST_SUITE_P(
    Shuffles, ShuffleGoldenTest,
    ::testing::Values(
        GoldenCase{"nehalem-ex-4s_shuffle_ring_tight_32", "nehalem-ex-4s", WorkloadKind::kShuffle, ShuffleAlgorithm::kRing, SyncMode::kTight, 32},
        GoldenCase{"nehalem-ex-4s_shuffle_naive_loose_32", "nehalem-ex-4s", WorkloadKind::kShuffle, ShuffleAlgorithm::kNaive, SyncMode::kLoose, 32},
        GoldenCase{"nehalem-ex-4s-4link_migration-copy_ring_tight_16", "nehalem-ex-4s-4link", WorkloadKind::kMigrationAndCopy, ShuffleAlgorithm::kRing, SyncMode::kTight, 16},
        GoldenCase{"twisted-ladder_shuffle_random_loose_16", "opteron-8220-8s-twisted-ladder", WorkloadKind::kShuffle, ShuffleAlgorithm::kCoordinatedRandom, SyncMode::kLoose, 16},
        GoldenCase{"sgi-uv300h-32s_shuffle_ring_tight_64", "sgi-uv300h-32s", WorkloadKind::kShuffle, ShuffleAlgorithm::kRing, SyncMode::kTight, 64}),
    [](const ::testing::TestParamInfo<GoldenCase>& param_info) {
      std::string name = param_info.param.name;
      for (char& ch : name) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace numatwin::sim
