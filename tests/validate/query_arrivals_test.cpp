// The arrival benchmark's parts: the seeded exponential arrivals, the at-most-N-in-flight rule and
// FIFO queueing, the statm parsing, the latency summary, the queries' verification.
#include "numatwin/validate/alloc/query_arrivals.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "numatwin/validate/alloc/allocating_queries.hpp"
#include "numatwin/validate/alloc/arrival_bench.hpp"
#include "numatwin/validate/host/rss_sampler.hpp"

namespace numatwin::validate {
namespace {

using Clock = std::chrono::steady_clock;

TEST(ArrivalGeneratorTest, GapsAreExponentialWithMeanOneOverTheRate) {
  // 200000 gaps at 50 per second: mean 20 ms (the standard error is 0.22 %, so 1 % is > 4
  // standard errors), standard deviation 20 ms, and P(gap > mean) = e^-1 = 0.3679 (an
  // exponential, not any distribution with that mean).
  constexpr int kDraws = 200000;
  ArrivalGenerator gen(50.0, 7);
  double sum = 0.0, sum_sq = 0.0;
  int above_mean = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double g = gen.next_gap_seconds();
    ASSERT_GE(g, 0.0);
    sum += g;
    sum_sq += g * g;
    above_mean += g > 0.02;
  }
  const double mean = sum / kDraws;
  const double sd = std::sqrt(sum_sq / kDraws - mean * mean);
  EXPECT_NEAR(mean, 0.02, 0.01 * 0.02);
  EXPECT_NEAR(sd, 0.02, 0.02 * 0.02);
  EXPECT_NEAR(static_cast<double>(above_mean) / kDraws, std::exp(-1.0), 0.005);
}

TEST(ArrivalGeneratorTest, TheSameSeedGivesTheSameArrivalsAndAnotherSeedOthers) {
  const std::vector<double> a = arrival_times_seconds(100.0, 1000, 3);
  const std::vector<double> b = arrival_times_seconds(100.0, 1000, 3);
  const std::vector<double> c = arrival_times_seconds(100.0, 1000, 4);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  // 1000 arrivals at 100 per second take about 10 s (standard deviation 0.32 s).
  EXPECT_NEAR(a.back(), 10.0, 1.5);
  // The rate scales the times, nothing else: the same draws at twice the rate, half the times.
  const std::vector<double> fast = arrival_times_seconds(200.0, 1000, 3);
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_DOUBLE_EQ(fast[i] * 2, a[i]);
}

TEST(ArrivalGeneratorTest, ARateThatIsNotAboveZeroIsRefused) {
  for (const double rate : {0.0, -1.0, std::nan("")}) {
    try {
      ArrivalGenerator gen(rate, 1);
      FAIL() << rate;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--arrivals must be a rate above 0"), std::string::npos)
          << e.what();
    }
  }
}

// A query that records how many queries run at once. The first `limit` ones wait (up to 5 s)
// until `limit` run together, so the largest concurrency does not depend on the scheduler's luck.
struct ConcurrencyProbe {
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;
  int most = 0;
  int reached_limit = 0;
  void run(int limit, std::chrono::milliseconds hold) {
    std::unique_lock lock(mutex);
    ++running;
    most = std::max(most, running);
    changed.notify_all();
    if (reached_limit == 0) {
      changed.wait_for(lock, std::chrono::seconds(5), [&] { return running >= limit; });
      if (running >= limit) reached_limit = 1;
    }
    lock.unlock();
    std::this_thread::sleep_for(hold);
    lock.lock();
    --running;
  }
};

TEST(QueryStreamTest, AtMostTheLimitRunAtOnceAndTheLimitIsReachedUnderABurst) {
  for (const int limit : {1, 3, 10}) {
    ConcurrencyProbe probe;
    const std::vector<double> arrivals(40, 0.0);  // a burst: all arrive at once
    const auto timings = run_query_stream(
        arrivals, limit, [&](std::size_t) { probe.run(limit, std::chrono::milliseconds(2)); },
        Clock::now());
    EXPECT_EQ(probe.most, limit);
    EXPECT_EQ(timings.size(), 40u);
    for (const QueryTiming& t : timings) {
      EXPECT_GE(t.start_s, t.arrival_s);
      EXPECT_GE(t.end_s, t.start_s);
    }
  }
}

TEST(QueryStreamTest, OneAtATimeQueriesQueueFirstComeFirstServedAndStartNoEarlierThanTheirArrival) {
  // With one in flight and 20 ms queries arriving every 5 ms, query i waits for the i before it:
  // start_i >= end_(i-1), and query i starts at least i x (20 - 5) ms after it arrived.
  const std::vector<double> arrivals = {0.010, 0.015, 0.020, 0.025, 0.030};
  const auto timings = run_query_stream(
      arrivals, 1, [](std::size_t) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); },
      Clock::now());
  for (std::size_t i = 0; i < timings.size(); ++i) {
    EXPECT_DOUBLE_EQ(timings[i].arrival_s, arrivals[i]);
    EXPECT_GE(timings[i].start_s, arrivals[i]);
    if (i > 0) {
      EXPECT_GE(timings[i].start_s, timings[i - 1].end_s);
    }
    EXPECT_GE(timings[i].start_s - timings[i].arrival_s, 0.015 * static_cast<double>(i) - 1e-3)
        << i;
  }
}

TEST(QueryStreamTest, AFailingQueryStopsTheStreamAndItsErrorComesOut) {
  std::atomic<int> ran{0};
  const std::vector<double> arrivals = {0.0, 0.001, 0.002, 0.500, 0.600, 0.700};
  const auto begin = Clock::now();
  try {
    (void)run_query_stream(
        arrivals, 2,
        [&](std::size_t i) {
          ++ran;
          if (i == 1) throw std::runtime_error("query 1 wrong");
        },
        Clock::now());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "query 1 wrong");
  }
  EXPECT_LT(ran.load(), 6);  // the later arrivals (500 ms on) never start
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - begin).count(),
            0.45);  // nor are they waited for
  EXPECT_THROW((void)run_query_stream(
                   arrivals, 0, [](std::size_t) {}, Clock::now()),
               std::invalid_argument);
}

TEST(RssSamplerTest, ParsesTheResidentPagesOfStatmAndRefusesOtherText) {
  EXPECT_EQ(statm_resident_pages("2617 403 351 176 0 235 0\n"), 403u);
  EXPECT_EQ(statm_resident_pages("123456789 98765432 1 2 0 3 0"), 98765432u);
  for (const char* bad : {"", "2617", "2617 x 351", "2617 -4 1", "2617 40a 1"}) {
    EXPECT_THROW((void)statm_resident_pages(bad), std::runtime_error) << bad;
  }
}

TEST(RssSamplerTest, SamplesTheResidentSetOverTimeAndSeesMemoryBeingTouched) {
  const auto origin = Clock::now();
  RssSampler sampler(origin, 2.0);
  const double before = current_rss_bytes();
  std::vector<char> touched(64 << 20, 1);  // 64 MiB written: resident
  std::this_thread::sleep_for(std::chrono::milliseconds(40));
  const std::vector<RssSample> samples = sampler.stop();
  ASSERT_GE(samples.size(), 3u);
  for (std::size_t i = 1; i < samples.size(); ++i)
    EXPECT_GE(samples[i].seconds, samples[i - 1].seconds);
  EXPECT_GT(samples.back().rss_bytes - before, 60.0 * (1 << 20)) << int(touched[12345]);
}

TEST(ArrivalBenchTest, LatencyPercentilesAreNearestRankOverEndMinusArrival) {
  // Latencies 1..100 ms (query i arrives at i s, waits i/2 ms, ends i ms later):
  // p50 = 50th smallest = 50 ms, p90 = 90, p99 = 99, max 100; mean queueing 25.25 ms;
  // 100 queries over 100.1 - 1 s.
  std::vector<QueryTiming> timings;
  for (int i = 100; i >= 1; --i) timings.push_back({double(i), i + i * 0.5e-3, i + i * 1e-3});
  const LatencySummary s = summarise_latencies(timings);
  EXPECT_NEAR(s.p50_s, 50e-3, 1e-12);
  EXPECT_NEAR(s.p90_s, 90e-3, 1e-12);
  EXPECT_NEAR(s.p99_s, 99e-3, 1e-12);
  EXPECT_NEAR(s.max_s, 100e-3, 1e-12);
  EXPECT_NEAR(s.mean_queueing_s, 25.25e-3, 1e-12);
  EXPECT_NEAR(s.queries_per_second, 100 / 99.1, 1e-9);
  // Three queries: p50 is the 2nd, p90 and p99 the 3rd.
  const LatencySummary three = summarise_latencies({{0, 0, 0.3}, {0, 0, 0.1}, {0, 0, 0.2}});
  EXPECT_DOUBLE_EQ(three.p50_s, 0.2);
  EXPECT_DOUBLE_EQ(three.p90_s, 0.3);
  EXPECT_THROW((void)summarise_latencies({}), std::invalid_argument);
}

TEST(ArrivalBenchTest, BothQueryKindsMatchTheirReferencesAndAWrongResultIsAnError) {
  for (const QueryKind kind : {QueryKind::kAggregation, QueryKind::kJoin}) {
    const QuerySpec spec{kind, 20000, 5};
    QueryResult got = run_allocating_query(spec);
    EXPECT_GT(got.allocations, 0u);
    EXPECT_NO_THROW(verify_query_result(spec, got, "q"));
    if (kind == QueryKind::kAggregation) {
      EXPECT_EQ(got.aggregation.groups, 200u);
      got.aggregation.digest += 1;
    } else {
      EXPECT_EQ(got.join.matches, 20000u);  // every S key is in R (uniform over R's keys)
      got.join.checksum += 1;
    }
    try {
      verify_query_result(spec, got, "query 7 (x)");
      FAIL() << query_kind_name(kind);
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("query 7 (x) differs from the reference"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(ArrivalBenchTest, TheMixAlternatesAndBadOptionsAreRefusedBeforeAnyWork) {
  ArrivalBenchOptions o;
  o.rate_per_second = 10;
  o.mix = QueryMix::kBoth;
  EXPECT_EQ(arrival_query_spec(o, 0).kind, QueryKind::kAggregation);
  EXPECT_EQ(arrival_query_spec(o, 1).kind, QueryKind::kJoin);
  EXPECT_NE(arrival_query_spec(o, 0).seed, arrival_query_spec(o, 1).seed);
  o.mix = QueryMix::kJoin;
  EXPECT_EQ(arrival_query_spec(o, 0).kind, QueryKind::kJoin);
  EXPECT_THROW((void)query_mix_by_name("sort"), std::invalid_argument);
  EXPECT_NO_THROW(check_arrival_options(o));
  ArrivalBenchOptions bad = o;
  bad.queries = 0;
  EXPECT_THROW(check_arrival_options(bad), std::invalid_argument);
  bad = o;
  bad.query_records = 10;
  EXPECT_THROW(check_arrival_options(bad), std::invalid_argument);
  bad = o;
  bad.rate_per_second = 0;
  EXPECT_THROW((void)run_arrival_bench(bad), std::invalid_argument);
}

TEST(ArrivalBenchTest, ASmallStreamRunsVerifiesAndRoundTripsThroughJson) {
  ArrivalBenchOptions o;
  o.rate_per_second = 200;
  o.queries = 12;
  o.query_records = 5000;
  o.idle_seconds = 0.05;
  const ArrivalBenchResult r = run_arrival_bench(o);
  EXPECT_TRUE(r.verified);
  ASSERT_EQ(r.queries.size(), 12u);
  EXPECT_GE(r.rss_peak_bytes, r.rss_before_bytes);
  EXPECT_GE(r.rss_peak_bytes, r.rss_after_idle_bytes);
  EXPECT_GE(r.samples.size(), 2u);
  EXPECT_GT(r.rss_end_of_queries_bytes, 0.0);  // taken as the last query ended
  EXPECT_GT(r.rss_after_workers_exit_bytes, 0.0);
  EXPECT_GE(r.samples.back().seconds, r.last_query_end_s + o.idle_seconds);
  // The idle period: after the last query's end, as long as asked, its end no later than the
  // last sample (the sampler stops after it).
  EXPECT_GE(r.idle_begin_s, r.last_query_end_s);
  EXPECT_GE(r.idle_end_s - r.idle_begin_s, o.idle_seconds);
  EXPECT_LE(r.idle_end_s, r.samples.back().seconds);
  EXPECT_GE(r.latency.p99_s, r.latency.p50_s);
  const ArrivalBenchResult back = arrival_bench_from_json(to_json(r));
  EXPECT_EQ(to_json(back).dump(), to_json(r).dump());
}

}  // namespace
}  // namespace numatwin::validate
