// Probe trees worked by hand: which links a broadcast snoop crosses, and how the probers' trees
// pile up on a link when many sockets stream at once (see "Coherence at 8 and more sockets" in
// bandwidth_model.hpp). Units: a line is 64 B; p bytes of probe per line put x p / 64 on a link.
#include <gtest/gtest.h>

#include "test_node.hpp"

#include <filesystem>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/topology_check.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

constexpr double kGB = 1e9;

// Four sockets a(0) b(1) c(2) d(3) in a ring a-b-c-d-a, 4 cores of 10 miss buffers each, memory
// 20 GB/s at 100 ns, links 2 GB/s each way adding 50 ns; source snoop with p = 16, no responses.
Topology ring() {
  Topology t;
  t.name = "ring";
  for (const char* id : {"a", "b", "c", "d"}) {
    t.nodes.push_back(testing_support::test_node(id, 1));
  }
  int spec = 0;
  for (auto [i, j] : {std::pair{0, 1}, {1, 2}, {2, 3}, {3, 0}}) {
    t.links.push_back(Link{i, j, 2.0, 50.0, spec});
    t.links.push_back(Link{j, i, 2.0, 50.0, spec});
    ++spec;
  }
  t.coherence.protocol = CoherenceProtocol::kSourceSnoop;
  t.coherence.probe_bytes_per_line = 16.0;
  t.coherence.response_bytes_per_line = 0.0;
  t.performance = PerformanceParameters{64, 0.0, 0.0, 1.0};
  t.provenance.source = "test";
  check_topology(t, "ring");
  return t;
}

Stream local_read(const BandwidthModel& m, NodeIndex node, int core) {
  Stream s;
  s.cpu_node = node;
  s.core = m.core_of(node, core);
  s.read_node = node;
  return s;
}

TEST(CoherenceScalingTest, OneProberSendsOneProbePerTreeLink) {
  // Only a streams (4 cores). The opposite socket c is 2 hops away by a->b->c or a->d->c; the
  // tie goes to the predecessor with the lower index, b. a's tree: a->b, a->d, b->c, each
  // crossed once per line (b forwards to c; a->b does not carry a second copy for c). Per link
  // x 16/64 = x/4 <= 2 GB/s: x <= 8 GB/s, below the controller's 20 and the miss bound
  // 4 x 10 x 64 B / 100 ns = 25.6 GB/s.
  const Topology t = ring();
  const Routing routing(t);
  BandwidthModel model(t, routing);
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(local_read(model, 0, c));
  const StreamRates& r = model.solve(s);
  double total = 0.0;
  for (double x : r.rate_bytes_per_s) total += x;
  EXPECT_NEAR(total / kGB, 8.0, 1e-6);
  for (auto [i, j] : {std::pair{0, 1}, {0, 3}, {1, 2}}) {
    EXPECT_NEAR(r.utilisation[model.link_resource(*t.find_link(i, j))], 1.0, 1e-6) << i << "->" << j;
  }
  for (auto [i, j] : {std::pair{1, 0}, {2, 1}, {2, 3}, {3, 2}, {3, 0}}) {
    EXPECT_NEAR(r.utilisation[model.link_resource(*t.find_link(i, j))], 0.0, 1e-12) << i << "->" << j;
  }
}

TEST(CoherenceScalingTest, TreesOfAllProbersPileUpWhereTheTieBreaksSendThem) {
  // Every socket streams its own memory with its 4 cores at x. Trees (ties to the lower index):
  //   a: a->b a->d b->c    b: b->a b->c a->d (d via a)    c: c->b c->d b->a (a via b)
  //   d: d->a d->c a->b (b via a)
  // so a->b (a, d), a->d (a, b), b->c (a, b) and b->a (b, c) carry two trees, the other four
  // links one. 2 x x/4 <= 2 GB/s: x = 4 GB/s on every socket (each has a doubly used link in its
  // tree), 16 GB/s in all; c->d, d->c, d->a and c->b stay at half load.
  const Topology t = ring();
  const Routing routing(t);
  BandwidthModel model(t, routing);
  std::vector<Stream> s;
  for (NodeIndex n = 0; n < 4; ++n) {
    for (int c = 0; c < 4; ++c) s.push_back(local_read(model, n, c));
  }
  const StreamRates& r = model.solve(s);
  for (int k = 0; k < 16; ++k) EXPECT_NEAR(r.rate_bytes_per_s[k] / kGB, 1.0, 1e-6) << k;
  for (auto [i, j] : {std::pair{0, 1}, {0, 3}, {1, 2}, {1, 0}}) {
    EXPECT_NEAR(r.utilisation[model.link_resource(*t.find_link(i, j))], 1.0, 1e-6) << i << "->" << j;
  }
  for (auto [i, j] : {std::pair{2, 3}, {3, 2}, {3, 0}, {2, 1}}) {
    EXPECT_NEAR(r.utilisation[model.link_resource(*t.find_link(i, j))], 0.5, 1e-6) << i << "->" << j;
  }
}

TEST(CoherenceScalingTest, EightSocketNehalemExLocalStreamingIsBoundByProbesOnTheCrossChassisLinks) {
  // nehalem-ex-8s: chassis rings s0-s1-s2-s3 and s4-s5-s6-s7 (10.9 GB/s), cross links si-s(i+4)
  // (7.8 GB/s), p = 24 (24/64 = 0.375 of a line), r = 0. Ties between shortest routes go to the
  // lower-index predecessor, which for a socket of chassis 1 is in chassis 0:
  //   - chassis 0 reaches chassis 1 along its ring and crosses last (s0 -> s5 via s1, s2 -> s4
  //     via s1, s0), so every cross link si->s(i+4) carries the trees of s0, s1, s2 and s3:
  //     0.375 x 4 T0 = 7.8, T0 = 5.2 GB/s per chassis-0 socket;
  //   - chassis 1 crosses first and spreads over chassis 0's ring: s0->s1 carries the trees of
  //     s0 (its neighbour), s3 (s3-s0-s1), s4 (s4-s0-s1) and s7 (s7-s3-s0-s1 ... s1's
  //     predecessor at 2 hops from s7 is s0): 0.375 (2 x 5.2 + 2 T1) = 10.9, T1 = 9.333.
  // With 12 threads on every socket reading its own memory (memory 24.7 GB/s, not binding) the
  // max-min rates are 4 x 5.2 + 4 x 9.333 = 58.13 GB/s. In lock step (tight migration) every
  // socket runs at T0: 8 x 5.2 = 41.6 GB/s, the figure `compare` reports; see the header for why
  // this is kept.
  const Topology t = load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / "nehalem-ex-8s.json");
  const Routing routing(t);
  BandwidthModel model(t, routing);
  Measurement m;
  m.id = "all-local";
  m.metric = MeasurementMetric::kReadBandwidthGbps;
  for (NodeIndex n = 0; n < 8; ++n) m.streams.push_back(MeasurementStream{n, n, 12});
  m.value = 1.0;
  EXPECT_NEAR(predict_measurement(t, routing, model, m).predicted, 4 * 5.2 + 4 * 28.0 / 3.0, 1e-3);
  const StreamRates& r = model.solve(measurement_streams(t, model, m));
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(r.utilisation[model.link_resource(*t.find_link(i, i + 4))], 1.0, 1e-6) << "s" << i << "->s" << i + 4;
  }
  EXPECT_NEAR(r.utilisation[model.link_resource(*t.find_link(0, 1))], 1.0, 1e-6);
}

}  // namespace
}  // namespace numatwin::model
