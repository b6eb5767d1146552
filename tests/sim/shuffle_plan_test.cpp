// What a shuffle's plan reads and what it holds (sim/plan/shuffle_plan.hpp): no operator cost enters it,
// so its prediction depends on none (prediction_interval.hpp skips the probes for it), and each
// thread's ops take the room of their count, not of a vector grown by doubling.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "numatwin/model/operator_costs.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"

namespace numatwin::sim {
namespace {

model::Topology machine(const std::string& name) {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

// Every shuffle-family kind, tight and loose, on 2 threads per socket of an 8-socket machine.
std::vector<WorkloadSpec> shuffle_specs() {
  std::vector<WorkloadSpec> specs;
  for (const WorkloadKind kind : {WorkloadKind::kShuffle, WorkloadKind::kMigration, WorkloadKind::kMigrationAndCopy}) {
    for (const SyncMode sync : {SyncMode::kTight, SyncMode::kLoose}) {
      WorkloadSpec s;
      s.kind = kind;
      s.algorithm = ShuffleAlgorithm::kRing;
      s.sync = sync;
      s.threads = 16;
      s.total_bytes = 3.2e9;
      specs.push_back(s);
    }
  }
  return specs;
}

TEST(ShufflePlanTest, NoOperatorCostChangesTheShufflesPlan) {
  // The probes of costs_depended_on, made by hand: each cost moved as it moves them. Every plan
  // must equal the spec's own, which is why the probes can be skipped for a shuffle.
  const model::Topology t = machine("xeon-e7-8880v2-8s");
  for (const WorkloadSpec& spec : shuffle_specs()) {
    const Plan base = build_plan(t, spec);
    for (const model::OperatorCostInfo& info : model::operator_cost_table()) {
      WorkloadSpec probe = spec;
      double& field = cost_field(probe.costs, info.name);
      field = std::isfinite(info.largest) ? field * 0.5 : field * 2.0 + 1.0;
      EXPECT_TRUE(build_plan(t, probe) == base) << workload_kind_name(spec.kind) << " moved by " << info.name;
    }
    EXPECT_TRUE(costs_depended_on(t, spec).empty()) << workload_kind_name(spec.kind);
  }
}

TEST(ShufflePlanTest, ShuffleUncertaintyRestsOnNoCostAndDrawsNothing) {
  const model::Topology t = machine("xeon-e7-8880v2-8s");
  const CostBasis basis = machine_cost_basis(t);
  for (const WorkloadSpec& spec : shuffle_specs()) {
    const PredictionUncertainty u =
        prediction_uncertainty(t, spec, basis, 64, [](const WorkloadSpec&, const SimulationResult& r) { return r.time_s; });
    EXPECT_TRUE(u.depends_on.empty());
    EXPECT_TRUE(u.uncertain.empty());
    EXPECT_EQ(u.samples, 0);
    EXPECT_EQ(u.basis, cost_basis_summary(basis, {}));
  }
  WorkloadSpec bad = shuffle_specs().front();
  bad.total_bytes = -1.0;  // still rejected, as building its plan would
  EXPECT_THROW(costs_depended_on(t, bad), std::invalid_argument);
}

TEST(ShufflePlanTest, EachThreadsOpsTakeTheRoomOfTheirCount) {
  const model::Topology t = machine("xeon-e7-8880v2-8s");
  for (const WorkloadSpec& spec : shuffle_specs()) {
    const Plan plan = build_shuffle_plan(t, spec);
    for (const ThreadPlan& tp : plan.threads) {
      EXPECT_GE(tp.ops.size(), static_cast<std::size_t>(spec.threads));
      EXPECT_EQ(tp.ops.capacity(), tp.ops.size()) << workload_kind_name(spec.kind);
    }
  }
}

}  // namespace
}  // namespace numatwin::sim
