// The published-figures check's judgement (worked by hand from the rules in published_check.hpp)
// and its evaluation of products (of runs, of the best of runs, of adaptive engine runs),
// crossovers and statements it cannot speak to.
#include "numatwin/sim/published/published_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "numatwin/model/topology_json.hpp"

namespace numatwin::sim {
namespace {

PublishedFigure figure(PublishedRelation relation, double value) {
  PublishedFigure f;
  f.relation = relation;
  f.value = value;
  f.unit = "x";
  return f;
}

TEST(PublishedJudgeTest, AboutIsWithinTheRelativeTolerance) {
  const PublishedFigure about = figure(PublishedRelation::kAbout, 1.0);
  EXPECT_TRUE(judge_product(0.851, about, 0.15));   // |0.851 - 1| = 0.149
  EXPECT_FALSE(judge_product(0.849, about, 0.15));  // 0.151
  EXPECT_TRUE(judge_product(1.149, about, 0.15));
  EXPECT_FALSE(judge_product(1.151, about, 0.15));
  EXPECT_FALSE(judge_product(0.421, about, 0.15));
}

TEST(PublishedJudgeTest, UpperBoundsAllowTheSlackAbove) {
  // <= 24.7 with 5 %: the bound is 24.7 x 1.05 = 25.935.
  EXPECT_TRUE(judge_product(25.9, figure(PublishedRelation::kAtMost, 24.7), 0.05));
  EXPECT_FALSE(judge_product(25.95, figure(PublishedRelation::kAtMost, 24.7), 0.05));
  // < 1 without slack: 1 itself misses.
  EXPECT_TRUE(judge_product(0.999, figure(PublishedRelation::kBelow, 1.0), 0.0));
  EXPECT_FALSE(judge_product(1.0, figure(PublishedRelation::kBelow, 1.0), 0.0));
  EXPECT_TRUE(judge_product(1.0, figure(PublishedRelation::kAtMost, 1.0), 0.0));
}

TEST(PublishedJudgeTest, LowerBoundsAllowTheSlackBelow) {
  // >= 1 with 3 %: the bound is 0.97.
  EXPECT_TRUE(judge_product(0.971, figure(PublishedRelation::kAtLeast, 1.0), 0.03));
  EXPECT_FALSE(judge_product(0.969, figure(PublishedRelation::kAtLeast, 1.0), 0.03));
  // > 1 without slack: a tie misses (memarzia-interleave-w2's 1.00 is a miss).
  EXPECT_FALSE(judge_product(1.0, figure(PublishedRelation::kAbove, 1.0), 0.0));
  EXPECT_TRUE(judge_product(1.001, figure(PublishedRelation::kAbove, 1.0), 0.0));
  EXPECT_TRUE(judge_product(1.0, figure(PublishedRelation::kAtLeast, 1.0), 0.0));
}

model::Topology nehalem() {
  return model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "nehalem-ex-4s.json");
}

WorkloadSpec small_shuffle(ShuffleAlgorithm algorithm) {
  WorkloadSpec s;
  s.kind = WorkloadKind::kShuffle;
  s.algorithm = algorithm;
  s.threads = 8;
  s.total_bytes = 1e8;
  return s;
}

TEST(PublishedEvaluateTest, AProductOfARunAndItsInverseIsOneAndTheRatioDividesByTheFigure) {
  const std::vector<model::Topology> topologies{nehalem()};
  PublishedEntry e;
  e.question.kind = QuestionKind::kProduct;
  e.question.figure = figure(PublishedRelation::kAbout, 2.0);
  e.question.tolerance_relative = 0.6;  // about 2 within 60 %: [0.8, 3.2] holds 1
  for (double power : {1.0, -1.0}) {
    PublishedTerm term;
    term.run.spec = small_shuffle(ShuffleAlgorithm::kRing);
    term.power = power;
    e.question.terms.push_back(term);
  }
  const PublishedOutcome out = evaluate_published(topologies, e);
  ASSERT_TRUE(out.predicted.has_value());
  EXPECT_NEAR(*out.predicted, 1.0, 1e-12);
  EXPECT_NEAR(*out.ratio, 0.5, 1e-12);  // 1 / 2
  EXPECT_EQ(out.verdict, PublishedVerdict::kPass);
}

TEST(PublishedEvaluateTest, ACrossoverTieGoesToTheSecondVariant) {
  const std::vector<model::Topology> topologies{nehalem()};
  PublishedEntry e;
  e.question.kind = QuestionKind::kCrossover;
  e.question.metric = PublishedMetric::kMtuplesPerS;
  e.question.groups_per_partition = {10.0, 1000.0};
  WorkloadSpec s;
  s.kind = WorkloadKind::kPartitionedAggregation;
  s.threads = 4;
  s.data.records = 1e6;
  e.question.variants = {{"a", {0, s, {}, {}}}, {"b", {0, s, {}, {}}}};  // the same run twice: a tie at every point
  e.question.first_winner = "b";
  e.question.last_winner = "b";
  const PublishedOutcome out = evaluate_published(topologies, e);
  EXPECT_EQ(out.predicted_text, "b first, b last");
  EXPECT_EQ(out.verdict, PublishedVerdict::kPass);
  EXPECT_FALSE(out.ratio.has_value());
}

TEST(PublishedEvaluateTest, CannotSpeakCarriesTheReasonAndRunsNothing) {
  PublishedEntry e;
  e.question.kind = QuestionKind::kCannotSpeak;
  e.question.reason = "energy: not modelled";
  const PublishedOutcome out = evaluate_published({}, e);
  EXPECT_EQ(out.verdict, PublishedVerdict::kCannotSpeak);
  EXPECT_EQ(out.detail, "energy: not modelled");
  EXPECT_FALSE(out.predicted.has_value());
}

// "Best of" is the larger metric of the runs (the smaller for time): checked against the two
// runs' metrics taken one by one.
// (Every core of nehalem-ex-4s: the naive shuffle reads one socket at a time, the ring all four,
// so their metrics differ.)
TEST(PublishedEvaluateTest, ABestOfTermIsTheBetterRunsMetric) {
  const std::vector<model::Topology> topologies{nehalem()};
  WorkloadSpec ring = small_shuffle(ShuffleAlgorithm::kRing);
  WorkloadSpec naive = small_shuffle(ShuffleAlgorithm::kNaive);
  ring.threads = naive.threads = 32;
  const double ring_gbps = run_metric(topologies[0], ring, PublishedMetric::kGbps);
  const double naive_gbps = run_metric(topologies[0], naive, PublishedMetric::kGbps);
  ASSERT_NE(ring_gbps, naive_gbps);
  PublishedTerm term;
  term.best_of = {PublishedRun{0, naive, {}, {}}, PublishedRun{0, ring, {}, {}}};
  term.metric = PublishedMetric::kGbps;
  EXPECT_DOUBLE_EQ(term_value(topologies, term), std::max(ring_gbps, naive_gbps));
  term.metric = PublishedMetric::kTimeS;
  const double ring_s = run_metric(topologies[0], ring, PublishedMetric::kTimeS);
  const double naive_s = run_metric(topologies[0], naive, PublishedMetric::kTimeS);
  EXPECT_DOUBLE_EQ(term_value(topologies, term), std::min(ring_s, naive_s));
}

// One client, one 64 MiB table on s0 of skylake-4114-2s, a CPU-bound class (8 cycles/B at
// 2.2 GHz): each query is one task of 64 MiB x 8 / 2.2e9 = 0.244 s, so 10 s hold
// floor(10 / 0.244) = 40 queries: 4.0 queries/s.
AdaptiveScenario one_cpu_bound_client() {
  AdaptiveScenario sc;
  sc.duration_s = 10.0;
  sc.task_bytes = 64.0 * 1048576.0;
  sc.placer_enabled = false;
  sc.stealing = StealingMode::kDeny;
  sc.costs = PageCosts{1e-5, 2e-5, "test"};
  sc.classes = {AdaptiveTaskClass{"heavy", 8.0, 0.0}};
  sc.tables = {AdaptiveTable{"T", 64.0 * 1048576.0, 0, 1}};
  AdaptiveClientGroup g;
  g.tables = {WeightedChoice{0, 1.0}};
  g.classes = {WeightedChoice{0, 1.0}};
  sc.clients = {g};
  return sc;
}

TEST(PublishedEvaluateTest, AnAdaptiveRunGivesItsQueriesPerSecondAndOnlyThat) {
  const std::vector<model::Topology> topologies{
      model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "skylake-4114-2s.json")};
  PublishedTerm term;
  term.run.adaptive = one_cpu_bound_client();
  term.metric = PublishedMetric::kQueriesPerS;
  const double task_s = 64.0 * 1048576.0 * 8.0 / 2.2e9;
  EXPECT_NEAR(term_value(topologies, term), std::floor(10.0 / task_s) / 10.0, 1e-9);
  term.metric = PublishedMetric::kGbps;
  EXPECT_THROW((void)term_value(topologies, term), std::invalid_argument);
  EXPECT_THROW((void)run_metric(topologies[0], small_shuffle(ShuffleAlgorithm::kRing), PublishedMetric::kQueriesPerS),
               std::invalid_argument);
}

// A run with a key is simulated once per cache: a value already in the cache is what the term
// gives (here a value no run could give), and a fresh cache is filled with the run's metric.
TEST(PublishedEvaluateTest, RunsWithTheSameKeyRunOncePerCache) {
  const std::vector<model::Topology> topologies{
      model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "skylake-4114-2s.json")};
  PublishedTerm term;
  term.run.adaptive = one_cpu_bound_client();
  term.run.key = "the run";
  term.metric = PublishedMetric::kQueriesPerS;
  PublishedRunCache cache{{{"the run", PublishedMetric::kQueriesPerS}, -7.0}};
  EXPECT_EQ(term_value(topologies, term, &cache), -7.0);
  PublishedRunCache fresh;
  const double value = term_value(topologies, term, &fresh);
  EXPECT_NEAR(value, 4.0, 1e-9);
  ASSERT_EQ(fresh.size(), 1U);
  EXPECT_EQ(fresh.begin()->second, value);
}

}  // namespace
}  // namespace numatwin::sim
