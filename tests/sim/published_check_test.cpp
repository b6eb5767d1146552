// The published-figures check's judgement (worked by hand from the rules in published_check.hpp)
// and its evaluation of products, crossovers and statements it cannot speak to.
#include "numatwin/sim/published_check.hpp"

#include <gtest/gtest.h>

#include <filesystem>

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
  e.question.variants = {{"a", {0, s}}, {"b", {0, s}}};  // the same run twice: a tie at every point
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

}  // namespace
}  // namespace numatwin::sim
