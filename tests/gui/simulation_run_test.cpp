// The run model the views read: resource map, per-step frames, the timeline at an instant, the
// throughput series, and the table models built on them.
#include <gtest/gtest.h>

#include <cmath>

#include "gui_test_support.hpp"
#include "numatwin/gui/simulation_run.hpp"
#include "numatwin/gui/table_models.hpp"

namespace numatwin::gui {
namespace {

SimulationRun run_on_nehalem(sim::ShuffleAlgorithm algorithm) {
  sim::WorkloadSpec spec;
  spec.algorithm = algorithm;
  spec.threads = 32;
  spec.total_bytes = 12.8e9;
  return run_simulation(testing::load_bundled("nehalem-ex-4s"), spec);
}

TEST(SimulationRunTest, MapsEveryLinkAndControllerToItsResource) {
  const SimulationRun run = run_on_nehalem(sim::ShuffleAlgorithm::kNaive);
  const model::Topology& t = *run.topology;
  ASSERT_EQ(run.resources.link_resource.size(), t.links.size());
  for (std::size_t l = 0; l < t.links.size(); ++l) {
    EXPECT_EQ(run.result.resources[run.resources.link_resource[l]].name, t.link_name(static_cast<int>(l)));
  }
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    EXPECT_EQ(run.result.resources[run.resources.memory_resource[n]].name, "mc:" + t.nodes[n].id);
    EXPECT_EQ(run.resources.forwarding_resource[n], -1);
  }
}

TEST(SimulationRunTest, NaiveVisitsOneSocketAtATime) {
  const SimulationRun run = run_on_nehalem(sim::ShuffleAlgorithm::kNaive);
  ASSERT_EQ(run.step_count(), 32);
  // Steps 0-7 read s0, 8-15 s1, ...: the saturated controller moves every 8 steps.
  for (int step = 0; step < 32; ++step) {
    const UtilisationFrame f = frame_for_step(run, step);
    EXPECT_EQ(f.step, step);
    EXPECT_EQ(hottest_resource(f), run.resources.memory_resource[step / 8]) << "step " << step;
    EXPECT_LT(f.begin_s, f.end_s);
  }
  const UtilisationFrame whole = frame_for_step(run, -1);
  EXPECT_EQ(whole.step, -1);
  EXPECT_DOUBLE_EQ(whole.end_s, run.result.time_s);
  EXPECT_NEAR(whole.utilisation[run.resources.memory_resource[2]], 0.25, 0.01);
  EXPECT_TRUE(frame_for_step(run, 0).caption.startsWith(QStringLiteral("step 0")));
  EXPECT_TRUE(frame_summary(run, frame_for_step(run, 0)).contains(QStringLiteral("mc:s0")));
}

TEST(SimulationRunTest, RingLightsEveryLinkInEveryStep) {
  const SimulationRun run = run_on_nehalem(sim::ShuffleAlgorithm::kRing);
  const UtilisationFrame f = frame_for_step(run, 5);
  for (int r : run.resources.link_resource) EXPECT_GT(f.utilisation[r], 0.9);
  EXPECT_GT(run.shuffle_gbps(), 2.0 * run_on_nehalem(sim::ShuffleAlgorithm::kNaive).shuffle_gbps());
}

TEST(SimulationRunTest, FrameAtTimeFindsTheSegmentAndThroughputIsAStepFunction) {
  const SimulationRun run = run_on_nehalem(sim::ShuffleAlgorithm::kNaive);
  const auto& seg = run.result.timeline[3];
  const UtilisationFrame f = frame_at_time(run, 0.5 * (seg.begin_s + seg.end_s));
  EXPECT_DOUBLE_EQ(f.begin_s, seg.begin_s);
  EXPECT_DOUBLE_EQ(frame_at_time(run, 1e9).end_s, run.result.timeline.back().end_s);
  const auto series = memory_throughput_series(run);
  ASSERT_EQ(series.size(), 2 * run.result.timeline.size());
  // Naive on this machine: one controller at a time, saturated, 24.7 GB/s throughout.
  for (const ThroughputPoint& p : series) EXPECT_NEAR(p.gbps, 24.7, 0.3);
}

TEST(SimulationRunTest, BadWorkloadThrowsWithTheFieldNamed) {
  sim::WorkloadSpec spec;
  spec.threads = 100000;
  spec.total_bytes = 1e9;
  EXPECT_THROW(run_simulation(testing::load_bundled("nehalem-ex-4s"), spec), std::invalid_argument);
}

TEST(SimulationRunTest, FormatsUnits) {
  EXPECT_EQ(format_bytes(12.8e9), QStringLiteral("12.8 GB"));
  EXPECT_EQ(format_seconds(0.0162), QStringLiteral("16.2 ms"));
  EXPECT_EQ(format_seconds(2.5), QStringLiteral("2.5 s"));
  EXPECT_EQ(format_seconds(0.0), QStringLiteral("0 s"));
}

TEST(TableModelsTest, ResourceTableShowsTheFrameOnScreen) {
  const auto run = std::make_shared<const SimulationRun>(run_on_nehalem(sim::ShuffleAlgorithm::kNaive));
  ResourceTableModel model;
  EXPECT_EQ(model.rowCount(), 0);
  model.set_run(run, frame_for_step(*run, 0));
  ASSERT_EQ(model.rowCount(), static_cast<int>(run->result.resources.size()));
  EXPECT_EQ(model.columnCount(), ResourceTableModel::kColumnCount);
  const int mc0 = run->resources.memory_resource[0];
  EXPECT_EQ(model.data(model.index(mc0, ResourceTableModel::kResource), Qt::DisplayRole).toString(), QStringLiteral("mc:s0"));
  EXPECT_EQ(model.data(model.index(mc0, ResourceTableModel::kFrameUtilisation), Qt::DisplayRole).toString(), QStringLiteral("100.0"));
  EXPECT_NEAR(model.data(model.index(mc0, ResourceTableModel::kFrameLoad), Qt::UserRole).toDouble(), 24.7, 0.01);
  EXPECT_TRUE(model.data(model.index(mc0, ResourceTableModel::kFrameUtilisation), Qt::BackgroundRole).canConvert<QColor>());
  model.set_frame(frame_for_step(*run, 8));  // s1's turn
  EXPECT_EQ(model.data(model.index(mc0, ResourceTableModel::kFrameUtilisation), Qt::DisplayRole).toString(), QStringLiteral("0.0"));
  EXPECT_FALSE(model.headerData(ResourceTableModel::kCapacity, Qt::Horizontal, Qt::DisplayRole).toString().isEmpty());
  model.clear();
  EXPECT_EQ(model.rowCount(), 0);
}

TEST(TableModelsTest, RunSummaryPutsRunsSideBySide) {
  const auto naive = std::make_shared<const SimulationRun>(run_on_nehalem(sim::ShuffleAlgorithm::kNaive));
  const auto ring = std::make_shared<const SimulationRun>(run_on_nehalem(sim::ShuffleAlgorithm::kRing));
  RunSummaryModel model;
  model.set_runs({naive, ring}, {QStringLiteral("A"), QStringLiteral("B")});
  EXPECT_EQ(model.columnCount(), 2);
  EXPECT_EQ(model.rowCount(), RunSummaryModel::kRowCount);
  EXPECT_EQ(model.headerData(1, Qt::Horizontal, Qt::DisplayRole).toString(), QStringLiteral("B"));
  EXPECT_TRUE(model.data(model.index(RunSummaryModel::kWorkload, 0), Qt::DisplayRole).toString().contains(QStringLiteral("naive")));
  EXPECT_GT(model.data(model.index(RunSummaryModel::kBandwidth, 1), Qt::UserRole).toDouble(),
            model.data(model.index(RunSummaryModel::kBandwidth, 0), Qt::UserRole).toDouble());
  model.set_runs({naive, nullptr}, {QStringLiteral("A"), QStringLiteral("B")});
  EXPECT_EQ(model.data(model.index(RunSummaryModel::kTime, 1), Qt::DisplayRole).toString(), QStringLiteral("-"));
}

}  // namespace
}  // namespace numatwin::gui
