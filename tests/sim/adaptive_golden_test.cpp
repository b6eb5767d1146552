// Golden file for one adaptive run: the introductory case (four 256 MiB tables on four
// sockets of xeon-e7-4880v2-4s, 16 clients scanning the first two, placer on, stealing
// adaptive with a fixed threshold, 60 s). A regression guard, not a proof: the properties are
// in adaptive_engine_test.cpp and adaptive_placer_test.cpp. Regenerate on purpose with
//   NUMATWIN_UPDATE_GOLDEN=1 ./build/debug/tests/sim_tests --gtest_filter='AdaptiveGoldenTest*'
// and review the diff.
#include <gtest/gtest.h>

#include "golden_json.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/adaptive/adaptive_engine.hpp"

namespace numatwin::sim {
namespace {

using Json = nlohmann::ordered_json;

Json summarise() {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "xeon-e7-4880v2-4s.json");
  AdaptiveScenario sc;
  sc.duration_s = 60.0;
  sc.seed = 1;
  sc.stealing = StealingMode::kAdaptive;
  sc.stealing_threshold_bytes_per_s = 2.5e9;
  sc.costs = PageCosts{59e-6, 109e-6, "Psaroudakis et al., 4 x E7-4880 v2"};
  sc.classes = default_adaptive_task_classes();
  for (int k = 0; k < 4; ++k) sc.tables.push_back(AdaptiveTable{"T" + std::to_string(k + 1), 268435456.0, k, 1});
  for (int k = 0; k < 2; ++k) {
    AdaptiveClientGroup g;
    g.count = 8;
    g.tables = {WeightedChoice{k, 1.0}};
    g.classes = {WeightedChoice{0, 1.0}};  // scans only: above the threshold, never stolen
    sc.clients.push_back(g);
  }
  AdaptiveRunOptions options;
  options.timeline_bin_s = 10.0;
  const AdaptiveResult r = run_adaptive(t, sc, options);
  Json events = Json::array();
  for (const AdaptivePlacerEvent& e : r.placer_events) {
    events.push_back(Json{{"decided_s", e.decided_s}, {"done_s", e.done_s}, {"action", placer_action_name(e.decision.action)},
                          {"table", e.table}, {"from", e.decision.from_socket}, {"to", e.decision.to_socket},
                          {"imbalance_after", e.decision.imbalance_after}});
  }
  Json placement = Json::array();
  for (const AdaptivePart& p : r.final_placement) placement.push_back(Json{{"table", p.table}, {"socket", p.socket}, {"bytes", p.bytes}});
  Json classes = Json::object();
  for (const AdaptiveClassStats& c : r.classes) {
    classes[c.name] = Json{{"queries", c.queries}, {"stolen_tasks", c.stolen_tasks}, {"task_gbps", c.task_bytes_per_s / 1e9}};
  }
  Json timeline = Json::array();
  for (const AdaptiveTimelinePoint& p : r.timeline) timeline.push_back(Json{{"queries_per_s", p.queries_per_s}, {"cpu", p.socket_cpu_share}});
  return Json{{"queries", r.queries}, {"gbps", r.bytes / r.duration_s / 1e9}, {"socket_cpu", r.socket_cpu_share},
              {"classes", classes}, {"placer", events}, {"final_placement", placement}, {"timeline", timeline}};
}

void expect_close(const Json& expected, const Json& actual, const std::string& path) {
  testing_support::expect_close(expected, actual, path, 1e-6);
}

TEST(AdaptiveGoldenTest, IntroductoryCaseMatchesGoldenFile) {
  const auto path = std::filesystem::path(NUMATWIN_SOURCE_DIR) / "tests/data/golden/adaptive_intro_xeon-e7-4880v2-4s.json";
  const Json actual = summarise();
  if (const char* update = std::getenv("NUMATWIN_UPDATE_GOLDEN"); update != nullptr && std::string(update) == "1") {
    std::ofstream(path) << actual.dump(2) << "\n";
    GTEST_SKIP() << "regenerated " << path;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden file " << path << " (generate it with NUMATWIN_UPDATE_GOLDEN=1)";
  expect_close(Json::parse(in), actual, "");
}

}  // namespace
}  // namespace numatwin::sim
