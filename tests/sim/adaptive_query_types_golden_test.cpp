// Golden file for one run with query types: the non-co-partitioned join of
// scenarios/partitioning-overhead-join.json rebuilt in code, 4 parts per table on
// xeon-e7-4880v2-4s, 10 s, placer off, stealing denied; per type the queries and per phase the
// task-seconds, bytes and remote bytes. A regression guard, not a proof: the costs are worked by
// hand in adaptive_query_plan_test.cpp and adaptive_partitioning_test.cpp. Regenerate on purpose
// with
//   NUMATWIN_UPDATE_GOLDEN=1 ./build/release/tests/sim_tests
//   --gtest_filter='AdaptiveQueryTypesGoldenTest*'
// and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "golden_json.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/adaptive/adaptive_engine.hpp"

namespace numatwin::sim {
namespace {

using Json = nlohmann::ordered_json;

Json summarise() {
  const model::Topology t =
      model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "xeon-e7-4880v2-4s.json");
  AdaptiveScenario sc;
  sc.duration_s = 10.0;
  sc.seed = 1;
  sc.placer_enabled = false;
  sc.stealing = StealingMode::kDeny;
  sc.costs = PageCosts{59e-6, 109e-6, "Psaroudakis et al., 4 x E7-4880 v2"};
  sc.classes = default_adaptive_task_classes();
  for (const AdaptiveTaskClass& c : default_adaptive_phase_classes()) sc.classes.push_back(c);
  for (int i = 0; i < 4; ++i) {
    sc.tables.emplace_back("R" + std::to_string(i + 1), 536870912.0, i, 4);
    sc.tables.emplace_back("S" + std::to_string(i + 1), 134217728.0, i, 4);
    AdaptiveQueryType q;
    q.name = "c" + std::to_string(i + 1);
    q.kind = AdaptiveQueryKind::kJoin;
    q.selectivity = 0.01;
    q.join_table = 2 * i + 1;
    const int classes[] = {2, 3, 4, 5, 6};  // join, materialise, dictionary, merge, mapping
    for (int ph = 0; ph < kAdaptivePhaseCount; ++ph) q.class_of_phase[ph] = classes[ph];
    sc.query_types.push_back(q);
    AdaptiveClientGroup g;
    g.count = 16;
    g.tables = {WeightedChoice{2 * i, 1.0}};
    g.query_types = {WeightedChoice{i, 1.0}};
    sc.clients.push_back(g);
  }
  const AdaptiveResult r = run_adaptive(t, sc);
  Json types = Json::array();
  for (const AdaptiveQueryTypeStats& q : r.query_types) {
    Json phases = Json::object();
    for (int ph = 0; ph < kAdaptivePhaseCount; ++ph) {
      const AdaptivePhaseStats& p = q.phases[ph];
      phases[adaptive_phase_name(static_cast<AdaptivePhase>(ph))] =
          Json{{"task_seconds", p.task_seconds},
               {"tasks", p.tasks},
               {"bytes", p.bytes},
               {"remote_bytes", p.remote_bytes}};
    }
    types.push_back(Json{
        {"name", q.name}, {"queries", q.queries}, {"latency_s", q.latency_s}, {"phases", phases}});
  }
  return Json{{"queries", r.queries},
              {"gbps", r.bytes / r.duration_s / 1e9},
              {"socket_cpu", r.socket_cpu_share},
              {"query_types", types}};
}

TEST(AdaptiveQueryTypesGoldenTest, NonCoPartitionedJoinInFourPartsMatchesGoldenFile) {
  const auto path = std::filesystem::path(NUMATWIN_SOURCE_DIR) /
                    "tests/data/golden/adaptive_join_4_parts_xeon-e7-4880v2-4s.json";
  const Json actual = summarise();
  if (const char* update = std::getenv("NUMATWIN_UPDATE_GOLDEN");
      update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << actual.dump(2) << "\n";
    GTEST_SKIP() << "regenerated " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path
                  << " (generate it with NUMATWIN_UPDATE_GOLDEN=1)";
  testing_support::expect_close(Json::parse(in), actual, "", 1e-6);
}

}  // namespace
}  // namespace numatwin::sim
