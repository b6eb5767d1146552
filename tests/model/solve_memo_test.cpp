// The memo of the bandwidth model's solves (model/solve_memo.hpp): a repeat is every bit of the
// streams and of the warm start, and nothing less.
#include "numatwin/model/solve_memo.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"

namespace numatwin::model {
namespace {

Stream spread_read(int core, const std::vector<NodeShare>& spread) {
  Stream s;
  s.cpu_node = 0;
  s.core = core;
  s.read_spread = spread;
  return s;
}

TEST(SolveMemoTest, ARepeatIsEveryBitOfStreamsAndWarmStart) {
  const std::vector<NodeShare> halves{{0, 0.5}, {1, 0.5}};
  const std::vector<Stream> streams{spread_read(0, halves), spread_read(1, halves)};
  const std::vector<double> warm{0.0, 0.25, 0.75};
  SolveMemo memo;
  ASSERT_EQ(memo.find(streams, warm), -1);
  StreamRates rates;
  rates.rate_bytes_per_s = {1.5e9, 2.5e9};
  rates.rounds = 7;
  memo.store(rates, {0.125, 0.5, 0.875});
  // The same inputs (other vectors with the same bits): the stored answer.
  const std::vector<NodeShare> halves_again{{0, 0.5}, {1, 0.5}};
  const std::vector<Stream> same{spread_read(0, halves_again), spread_read(1, halves_again)};
  const int hit = memo.find(same, std::vector<double>{0.0, 0.25, 0.75});
  ASSERT_EQ(hit, 0);
  EXPECT_EQ(memo.rates(hit).rate_bytes_per_s, rates.rate_bytes_per_s);
  EXPECT_EQ(memo.rates(hit).rounds, 7);
  EXPECT_EQ(memo.next_warm_start(hit), (std::vector<double>{0.125, 0.5, 0.875}));
  EXPECT_EQ(memo.hits(), 1);
  // -0.0 == 0.0 as numbers, but not as bits: not a repeat.
  EXPECT_EQ(memo.find(streams, std::vector<double>{-0.0, 0.25, 0.75}), -1);
  // A fraction one ulp away.
  const std::vector<NodeShare> nudged{{0, std::nextafter(0.5, 1.0)}, {1, std::nextafter(0.5, 0.0)}};
  EXPECT_EQ(memo.find(std::vector<Stream>{spread_read(0, halves), spread_read(1, nudged)}, warm), -1);
  // Another core, a rate limit, the streams in another order of spreads, one stream fewer.
  EXPECT_EQ(memo.find(std::vector<Stream>{spread_read(0, halves), spread_read(2, halves)}, warm), -1);
  std::vector<Stream> limited = streams;
  limited[1].rate_limit_bytes_per_s = 1e9;
  EXPECT_EQ(memo.find(limited, warm), -1);
  EXPECT_EQ(memo.find(std::vector<Stream>{spread_read(0, halves)}, warm), -1);
  // A longer warm start.
  EXPECT_EQ(memo.find(streams, std::vector<double>{0.0, 0.25, 0.75, 0.0}), -1);
  EXPECT_EQ(memo.hits(), 1);
}

TEST(SolveMemoTest, KeepsTheLastEntriesOnly) {
  const std::vector<NodeShare> local{{0, 1.0}};
  const std::vector<Stream> streams{spread_read(0, local)};
  SolveMemo memo;
  StreamRates rates;
  // kEntries + 1 warm starts: the first is replaced by the last.
  // (Each found twice more, so that two thirds of the look-ups are repeats and the memo stays on.)
  for (std::size_t i = 0; i <= SolveMemo::kEntries; ++i) {
    const std::vector<double> warm{static_cast<double>(i)};
    ASSERT_EQ(memo.find(streams, warm), -1);
    rates.rounds = static_cast<int>(i);
    memo.store(rates, warm);
    ASSERT_GE(memo.find(streams, warm), 0);
    ASSERT_GE(memo.find(streams, warm), 0);
  }
  EXPECT_FALSE(memo.switched_off());
  EXPECT_EQ(memo.find(streams, std::vector<double>{0.0}), -1);
  const int last = memo.find(streams, std::vector<double>{static_cast<double>(SolveMemo::kEntries)});
  ASSERT_GE(last, 0);
  EXPECT_EQ(memo.rates(last).rounds, static_cast<int>(SolveMemo::kEntries));
  const int second = memo.find(streams, std::vector<double>{1.0});
  ASSERT_GE(second, 0);
  EXPECT_EQ(memo.rates(second).rounds, 1);
}

TEST(SolveMemoTest, SwitchesItselfOffWhenFewerThanHalfTheLookUpsRepeat) {
  const std::vector<NodeShare> local{{0, 1.0}};
  const std::vector<Stream> streams{spread_read(0, local)};
  SolveMemo memo;
  StreamRates rates;
  // 10 new keys, each looked up twice more (30 look-ups, 20 repeats: on), then new keys: after
  // k of them 30 + k look-ups, 20 repeats; fewer than half from k = 11 (41 look-ups >= 32): off.
  for (int i = 0; i < 10; ++i) {
    const std::vector<double> warm{static_cast<double>(i)};
    ASSERT_EQ(memo.find(streams, warm), -1);
    memo.store(rates, warm);
    ASSERT_EQ(memo.find(streams, warm), i);
    ASSERT_EQ(memo.find(streams, warm), i);
  }
  for (int i = 10; i < 20; ++i) {
    ASSERT_EQ(memo.find(streams, std::vector<double>{static_cast<double>(i)}), -1);
    memo.store(rates, std::vector<double>{static_cast<double>(i)});
    EXPECT_FALSE(memo.switched_off()) << i;
  }
  EXPECT_EQ(memo.find(streams, std::vector<double>{20.0}), -1);
  EXPECT_TRUE(memo.switched_off());
  // Off: a key stored before is not found any more, and nothing is stored.
  EXPECT_EQ(memo.find(streams, std::vector<double>{0.0}), -1);
  memo.store(rates, std::vector<double>{0.0});
  EXPECT_EQ(memo.find(streams, std::vector<double>{0.0}), -1);
  EXPECT_EQ(memo.hits(), 20);
}

}  // namespace
}  // namespace numatwin::model
