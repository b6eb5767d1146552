// The bandwidth model worked by hand on two-node machines. Units in the derivations: a line is
// 64 B, so M lines in flight over L ns give 64 M / L GB/s.
#include <gtest/gtest.h>

#include "test_node.hpp"

#include <cmath>
#include <limits>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::model {
namespace {

constexpr double kGB = 1e9;

// Two sockets a, b of 4 cores, 10 miss buffers each, memory 20 GB/s and 100 ns local, one link
// of `link_gbps` each way adding 50 ns. No queueing, no probes unless a test sets them.
Topology pair(double link_gbps = 10.0) {
  Topology t;
  t.name = "pair";
  for (const char* id : {"a", "b"}) {
    t.nodes.push_back(testing_support::test_node(id));
  }
  t.links = {Link{0, 1, link_gbps, 50.0, 0}, Link{1, 0, link_gbps, 50.0, 0}};
  t.coherence.probe_bytes_per_line = 0.0;
  t.performance = PerformanceParameters{64, 0.0, 0.0, 1.0};
  t.provenance.source = "test";
  check_topology(t, "pair");
  return t;
}

struct Fixture {
  explicit Fixture(Topology topology) : t(std::move(topology)), routing(t), model(t, routing) {}
  Topology t;
  Routing routing;
  BandwidthModel model;
};

Stream read(const BandwidthModel& m, NodeIndex node, int core, NodeIndex memory) {
  Stream s;
  s.cpu_node = node;
  s.core = m.core_of(node, core);
  s.read_node = memory;
  return s;
}

double total(const StreamRates& r) {
  double sum = 0.0;
  for (double x : r.rate_bytes_per_s) sum += x;
  return sum;
}

TEST(BandwidthModelTest, OneThreadIsLimitedByItsMissBuffers) {
  // 10 lines x 64 B / 100 ns = 6.4 GB/s < 20 GB/s of the controller.
  Fixture f(pair());
  const std::vector<Stream> s = {read(f.model, 0, 0, 0)};
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.rate_bytes_per_s[0] / kGB, 6.4, 1e-9);
  EXPECT_EQ(r.limits[0], StreamLimit::kMissBuffers);
  EXPECT_NEAR(r.utilisation[f.model.memory_resource(0)], 6.4 / 20.0, 1e-9);
}

TEST(BandwidthModelTest, SmtSiblingsSplitTheCoresMissBuffers) {
  // Two threads on core 0 share 10 buffers: 5 x 64 / 100 = 3.2 GB/s each, 6.4 together.
  Fixture f(pair());
  const std::vector<Stream> s = {read(f.model, 0, 0, 0), read(f.model, 0, 0, 0)};
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.rate_bytes_per_s[0] / kGB, 3.2, 1e-9);
  EXPECT_NEAR(total(r) / kGB, 6.4, 1e-9);
}

TEST(BandwidthModelTest, FourCoresSaturateTheMemoryController) {
  // 4 x 6.4 = 25.6 GB/s wanted > 20 GB/s: the controller shares 5 GB/s each.
  Fixture f(pair());
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(read(f.model, 0, c, 0));
  const StreamRates& r = f.model.solve(s);
  for (double x : r.rate_bytes_per_s) EXPECT_NEAR(x / kGB, 5.0, 1e-9);
  EXPECT_EQ(r.limits[0], StreamLimit::kResource);
  EXPECT_EQ(r.bottleneck[0], f.model.memory_resource(0));
}

TEST(BandwidthModelTest, RemoteStreamsAreSlowerPerThreadAndShareTheLink) {
  // Remote latency 100 + 50 = 150 ns: one thread gets 640 / 150 = 4.267 GB/s; four want 17.07
  // GB/s but the link b->a carries 10 GB/s: 2.5 each.
  Fixture f(pair());
  const std::vector<Stream> one = {read(f.model, 0, 0, 1)};
  EXPECT_NEAR(f.model.solve(one).rate_bytes_per_s[0] / kGB, 640.0 / 150.0, 1e-9);
  std::vector<Stream> four;
  for (int c = 0; c < 4; ++c) four.push_back(read(f.model, 0, c, 1));
  const StreamRates& r = f.model.solve(four);
  EXPECT_NEAR(total(r) / kGB, 10.0, 1e-9);
  const auto b_to_a = f.t.find_link(1, 0);
  EXPECT_EQ(r.bottleneck[0], f.model.link_resource(*b_to_a));
  EXPECT_NEAR(r.utilisation[f.model.link_resource(*f.t.find_link(0, 1))], 0.0, 1e-12);
}

TEST(BandwidthModelTest, SourceSnoopProbesLoadLinksEvenForLocalReads) {
  // p = 16 B per 64 B line: a local read at x puts x/4 on a->b (probe) and x/4 on b->a
  // (response). With 2 GB/s links the probes cap the local readers at 2 / 0.25 = 8 GB/s,
  // below the controller's 20.
  Topology t = pair(2.0);
  t.coherence.protocol = CoherenceProtocol::kSourceSnoop;
  t.coherence.probe_bytes_per_line = 16.0;
  t.coherence.response_bytes_per_line = 16.0;
  Fixture f(t);
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(read(f.model, 0, c, 0));
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(total(r) / kGB, 8.0, 1e-9);
  EXPECT_NEAR(r.utilisation[f.model.link_resource(0)], 1.0, 1e-9);
  EXPECT_NEAR(r.utilisation[f.model.link_resource(1)], 1.0, 1e-9);
}

TEST(BandwidthModelTest, DirectoryProbesOnlyItsFractionOfLines) {
  // Directory, fraction 0.5, p = 16: a local read on a still makes the home (a) probe b for half
  // of the lines: x * 0.5 * 16/64 = x/8 on a->b and on b->a. 2 GB/s links cap the local readers
  // at 2 * 8 = 16 GB/s, below the controller's 20.
  Topology t = pair(2.0);
  t.coherence.protocol = CoherenceProtocol::kDirectory;
  t.coherence.probe_bytes_per_line = 16.0;
  t.coherence.response_bytes_per_line = 16.0;
  t.coherence.directory_probe_fraction = 0.5;
  Fixture f(t);
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(read(f.model, 0, c, 0));
  EXPECT_NEAR(total(f.model.solve(s)) / kGB, 16.0, 1e-9);
}

TEST(BandwidthModelTest, WritesReadForOwnershipAndWriteBack) {
  // A write costs the controller 1 (ownership read) + 20/20 (write-back) per payload byte:
  // four writers on a get 20 / 2 = 10 GB/s. Remote writes from a to b put 1 on b->a and 1 on
  // a->b: four remote writers want 4 x 4.267 but each link carries 10: 10 GB/s in all.
  Fixture f(pair());
  std::vector<Stream> local;
  std::vector<Stream> remote;
  for (int c = 0; c < 4; ++c) {
    Stream s;
    s.core = f.model.core_of(0, c);
    s.write_node = 0;
    local.push_back(s);
    s.write_node = 1;
    remote.push_back(s);
  }
  EXPECT_NEAR(total(f.model.solve(local)) / kGB, 10.0, 1e-9);
  const StreamRates& r = f.model.solve(remote);
  EXPECT_NEAR(total(r) / kGB, 10.0, 1e-9);
  EXPECT_NEAR(r.utilisation[f.model.link_resource(0)], 1.0, 1e-9);
  EXPECT_NEAR(r.utilisation[f.model.link_resource(1)], 1.0, 1e-9);
}

TEST(BandwidthModelTest, LoadedLatencyFixedPoint) {
  // Queue 100 ns at full load, exponent 1, controller 10 GB/s: one thread at x GB/s sees
  // L = 100 + 100 x / 10 and x = 640 / L, so 10 x^2 + 100 x - 640 = 0, x = (-100 + sqrt(35600)) / 20.
  Topology t = pair();
  t.nodes[0].memory_read_bandwidth_gbps = 10.0;
  t.performance.memory_queue_ns = 100.0;
  Fixture f(t);
  const std::vector<Stream> s = {read(f.model, 0, 0, 0)};
  const StreamRates& r = f.model.solve(s);
  const double expected = (-100.0 + std::sqrt(35600.0)) / 20.0;
  EXPECT_TRUE(r.converged);
  EXPECT_NEAR(r.rate_bytes_per_s[0] / kGB, expected, 1e-4);
  EXPECT_NEAR(r.latency_ns[0], 640.0 / expected, 1e-2);
}

TEST(BandwidthModelTest, SteepQueueStillConvergesAndStaysFeasible) {
  // Exponent 8 and a 400 ns queue: strongly non-linear; the iteration must still settle and
  // never exceed the controller.
  Topology t = pair();
  t.performance.memory_queue_ns = 400.0;
  t.performance.queue_exponent = 8.0;
  Fixture f(t);
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(read(f.model, 0, c, 0));
  const StreamRates& r = f.model.solve(s);
  EXPECT_TRUE(r.converged) << r.rounds << " rounds";
  EXPECT_LE(total(r) / kGB, 20.0 * (1 + 1e-9));
  // Self-consistency: each rate equals 640 / L at the reported latency, or the controller binds.
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_LE(r.rate_bytes_per_s[i] / kGB, 640.0 / r.latency_ns[i] * (1 + 1e-4));
  }
}

TEST(BandwidthModelTest, ExplicitRateLimitBinds) {
  Fixture f(pair());
  std::vector<Stream> s = {read(f.model, 0, 0, 0)};
  s[0].rate_limit_bytes_per_s = 1e9;
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.rate_bytes_per_s[0], 1e9, 1e-3);
  EXPECT_EQ(r.limits[0], StreamLimit::kRateLimit);
}

TEST(BandwidthModelTest, MemoryRateIsWhatTheMissBuffersAllowBeneathALimit) {
  // The stream of ExplicitRateLimitBinds runs at 1 GB/s, but its memory alone would allow
  // 10 x 64 B / 100 ns = 6.4 GB/s (no queueing in `pair`): the 1 GB it moves in 1 s would take
  // 1 / 6.4 s of memory time, hidden under its limit.
  Fixture f(pair());
  std::vector<Stream> s = {read(f.model, 0, 0, 0)};
  s[0].rate_limit_bytes_per_s = 1e9;
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.memory_rate_bytes_per_s[0] / kGB, 6.4, 1e-9);
  // Without the limit, one stream is held by its miss buffers: the memory rate is its rate.
  s[0].rate_limit_bytes_per_s = std::numeric_limits<double>::infinity();
  const StreamRates& free = f.model.solve(s);
  EXPECT_EQ(free.limits[0], StreamLimit::kMissBuffers);
  EXPECT_NEAR(free.memory_rate_bytes_per_s[0], free.rate_bytes_per_s[0], 1e-3);
}

TEST(BandwidthModelTest, MemoryRateOfAResourceBoundStreamIsItsRate) {
  // Four threads of a read b's memory over a 10 GB/s link: 2.5 GB/s each (the link), below the
  // 640 / 150 = 4.27 GB/s their miss buffers would allow: the memory rate is the link's share.
  Fixture f(pair());
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(read(f.model, 0, c, 1));
  const StreamRates& r = f.model.solve(s);
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_EQ(r.limits[i], StreamLimit::kResource);
    EXPECT_NEAR(r.rate_bytes_per_s[i] / kGB, 2.5, 1e-9);
    EXPECT_DOUBLE_EQ(r.memory_rate_bytes_per_s[i], r.rate_bytes_per_s[i]);
  }
}

TEST(BandwidthModelTest, InterleavedReadsSplitOverBothControllers) {
  // Four threads of a read pages interleaved over a and b (1/2 each): latency 0.5 x 100 + 0.5 x
  // 150 = 125 ns, so each may stream 640 / 125 = 5.12 GB/s (20.48 in all); but half of every
  // byte crosses b->a (10 GB/s): at most 20 GB/s in all, 5 each.
  Fixture f(pair());
  const std::vector<NodeShare> halves = {{0, 0.5}, {1, 0.5}};
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) {
    Stream st;
    st.core = f.model.core_of(0, c);
    st.read_spread = halves;
    s.push_back(st);
  }
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(total(r) / kGB, 20.0, 1e-9);
  EXPECT_NEAR(r.latency_ns[0], 125.0, 1e-9);
  EXPECT_NEAR(r.utilisation[f.model.memory_resource(0)], 0.5, 1e-9);
  EXPECT_NEAR(r.utilisation[f.model.memory_resource(1)], 0.5, 1e-9);
}

TEST(BandwidthModelTest, AOneNodeSpreadIsThatNodeWhicheverComesFirst) {
  // A reads b's memory: 10 lines x 64 B / (100 + 50) ns = 4.267 GB/s per thread; four threads
  // would take 17.07 GB/s, the link b->a gives 10. The spread {b: 1} shares read_node b's cached
  // terms, so the answers must not depend on which form the model saw first.
  const std::vector<NodeShare> all_b = {{1, 1.0}};
  const auto spread_stream = [&](const BandwidthModel& m, int core) {
    Stream st;
    st.core = m.core_of(0, core);
    st.read_spread = all_b;
    return st;
  };
  for (const bool spread_first : {false, true}) {
    Fixture f(pair());
    const std::vector<Stream> one_node = {read(f.model, 0, 0, 1)};
    const std::vector<Stream> one_spread = {spread_stream(f.model, 0)};
    std::vector<Stream> four;
    for (int c = 0; c < 4; ++c) four.push_back(c % 2 == 0 ? spread_stream(f.model, c) : read(f.model, 0, c, 1));
    const double first = f.model.solve(spread_first ? one_spread : one_node).rate_bytes_per_s[0];
    const double second = f.model.solve(spread_first ? one_node : one_spread).rate_bytes_per_s[0];
    EXPECT_NEAR(first / kGB, 640.0 / 150.0, 1e-9);
    EXPECT_EQ(first, second);
    const StreamRates& r = f.model.solve(four);
    EXPECT_NEAR(total(r) / kGB, 10.0, 1e-9);
    EXPECT_EQ(r.rate_bytes_per_s[0], r.rate_bytes_per_s[1]);
  }
}

TEST(BandwidthModelTest, RandomAccessKeepsFewerLinesInFlight) {
  // A hash probe stream with 2 independent misses in flight: 2 x 64 B / 100 ns = 1.28 GB/s.
  Fixture f(pair());
  std::vector<Stream> s = {read(f.model, 0, 0, 0)};
  s[0].lines_in_flight = 2.0;
  EXPECT_NEAR(f.model.solve(s).rate_bytes_per_s[0] / kGB, 1.28, 1e-9);
}

TEST(BandwidthModelTest, RejectsSpreadsThatDoNotAddUp) {
  Fixture f(pair());
  const std::vector<NodeShare> bad = {{0, 0.5}, {1, 0.4}};
  Stream st;
  st.core = 0;
  st.read_spread = bad;
  EXPECT_THROW(f.model.solve(std::vector<Stream>{st}), std::invalid_argument);
}

TEST(BandwidthModelTest, RejectsBadStreams) {
  Fixture f(pair());
  Stream s;
  s.core = 99;
  s.read_node = 0;
  EXPECT_THROW(f.model.solve(std::vector<Stream>{s}), std::invalid_argument);
  s.core = 0;
  s.read_node = -1;
  EXPECT_THROW(f.model.solve(std::vector<Stream>{s}), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::model
