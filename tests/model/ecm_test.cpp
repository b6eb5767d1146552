// The ECM composition (model/ecm.hpp) worked by hand. Data paths: "Skylake-SP-like" as
// kerncraft's SkylakeSP_Gold-6148.yml gives it (2 loads and 1 store per cycle, L2->L1 64 B/cy
// half-duplex, L3->L2 16 B/cy full-duplex, nothing overlaps) and "Zen-like" (3 loads, 2 stores,
// L1 and L2 overlap, L2->L1 32 B/cy full-duplex, L3->L2 32 B/cy half-duplex). The machine is the
// hand-worked test node: 2 GHz, 10 miss buffers, 100 ns, 20 GB/s (6.4 GB/s per core alone).
#include "numatwin/model/ecm.hpp"

#include <gtest/gtest.h>

#include "test_node.hpp"

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::model {
namespace {

CoreDataPath skylake_like() {
  CoreDataPath p;
  p.microarchitecture = "skylake-avx512";
  p.loads_per_cycle = 2.0;
  p.stores_per_cycle = 1.0;
  p.l2_to_l1_bytes_per_cycle = 64.0;
  p.l2_l1_full_duplex = false;
  p.l3_to_l2_bytes_per_cycle = 16.0;
  p.l3_l2_full_duplex = true;
  p.source = "test";
  return p;
}

CoreDataPath zen_like() {
  CoreDataPath p = skylake_like();
  p.microarchitecture = "znver2";
  p.loads_per_cycle = 3.0;
  p.stores_per_cycle = 2.0;
  p.l2_to_l1_bytes_per_cycle = 32.0;
  p.l2_l1_full_duplex = true;
  p.l3_to_l2_bytes_per_cycle = 32.0;
  p.l3_l2_full_duplex = false;
  p.l1_overlaps = true;
  p.l2_l1_overlaps = true;
  return p;
}

TEST(EcmTest, InCacheCyclesPerByteWorkedByHand) {
  // Read, per byte: L1 1 / (8 x 2) = 0.0625; L2->L1 1 / 64 = 0.015625; L3->L2 1 / 16 = 0.0625.
  EXPECT_DOUBLE_EQ(in_cache_cycles_per_byte(skylake_like(), true, false).serial, 0.140625);
  EXPECT_DOUBLE_EQ(in_cache_cycles_per_byte(skylake_like(), true, false).overlapping, 0.0);
  // Write (in for ownership, out as write-back): L1 1 / 8 = 0.125; L2->L1 half-duplex (1 + 1) / 64
  // = 0.03125; L3->L2 full-duplex max(1, 1) / 16 = 0.0625.
  EXPECT_DOUBLE_EQ(in_cache_cycles_per_byte(skylake_like(), false, true).serial, 0.21875);
  // Copy: L1 0.0625 + 0.125; L2->L1 (2 + 1) / 64 = 0.046875; L3->L2 max(2, 1) / 16 = 0.125.
  EXPECT_DOUBLE_EQ(in_cache_cycles_per_byte(skylake_like(), true, true).serial, 0.359375);
  EXPECT_EQ(in_cache_cycles_per_byte(skylake_like(), false, false), InCacheCycles{});
  // Zen-like read: L1 1 / 24 and L2->L1 1 / 32 overlap (the larger, 1 / 24, is a bound of its
  // own); only L3->L2 1 / 32 = 0.03125 is serial.
  const InCacheCycles zen = in_cache_cycles_per_byte(zen_like(), true, false);
  EXPECT_DOUBLE_EQ(zen.serial, 0.03125);
  EXPECT_DOUBLE_EQ(zen.overlapping, 1.0 / 24.0);
  // With the memory overlapping too, the serial sum is one more bound: nothing adds to memory.
  CoreDataPath overlapped = skylake_like();
  overlapped.memory_overlaps = true;
  EXPECT_EQ(in_cache_cycles_per_byte(overlapped, true, false), (InCacheCycles{0.0, 0.140625}));
  // Without an L3 (a K8-like core) the L3 term is absent: read 0.0625 + 0.015625.
  CoreDataPath no_l3 = skylake_like();
  no_l3.l3_to_l2_bytes_per_cycle.reset();
  EXPECT_DOUBLE_EQ(in_cache_cycles_per_byte(no_l3, true, false).serial, 0.078125);
}

TEST(EcmTest, ProblemsNameTheFigure) {
  CoreDataPath p = skylake_like();
  EXPECT_TRUE(core_data_path_problems(p).empty());
  p.l3_to_l2_bytes_per_cycle = 0.0;
  ASSERT_EQ(core_data_path_problems(p).size(), 1U);
  EXPECT_NE(core_data_path_problems(p)[0].find("l3_to_l2_bytes_per_cycle"), std::string::npos);
}

Topology one_node(std::optional<CoreDataPath> path) {
  Topology t;
  t.name = "one";
  t.nodes.push_back(testing_support::test_node("a"));
  t.coherence.probe_bytes_per_line = 0.0;
  t.performance = PerformanceParameters{64, 0.0, 0.0, 1.0};
  t.provenance.source = "test";
  t.core_data_path = std::move(path);
  check_topology(t, "one");
  return t;
}

struct Solved {
  explicit Solved(Topology topology) : t(std::move(topology)), routing(t), model(t, routing) {}
  Topology t;
  Routing routing;
  BandwidthModel model;
};

Stream stream(const BandwidthModel& m, int core, bool reads, bool writes, double lines_in_flight = 0.0) {
  Stream s;
  s.core = m.core_of(0, core);
  if (reads) s.read_node = 0;
  if (writes) s.write_node = 0;
  s.lines_in_flight = lines_in_flight;
  return s;
}

// The hand-worked node streams 6.4 GB/s per core by Little's law; its controller has 20 GB/s, so
// ECM's memory term t_mem = 1 / 20 GB/s = 50 ps per byte read (a write: (1 + C/W) / C = 2 / 20
// GB/s = 100 ps, the file having no write bandwidth; a copy 150 ps). Slow paths make the in-cache
// bound bite: a "narrow" core with 1 load and 1 store per cycle, L2->L1 8 B/cy half-duplex and
// L3->L2 4 B/cy half-duplex, nothing overlapping, at 2 GHz.
CoreDataPath narrow() {
  CoreDataPath p = skylake_like();
  p.loads_per_cycle = 1.0;
  p.stores_per_cycle = 1.0;
  p.l2_to_l1_bytes_per_cycle = 8.0;
  p.l3_to_l2_bytes_per_cycle = 4.0;
  p.l3_l2_full_duplex = false;
  return p;
}

TEST(EcmTest, TheCachePathBoundsAStreamWhenItIsSlowerThanLittlesLaw) {
  // Narrow read: 1/8 + 1/8 + 1/4 = 0.5 cy/B = 250 ps/B at 2 GHz; + t_mem 50 = 300 ps/B:
  // 3.3333 GB/s < 6.4: held by the cache path, whose serial 250 ps/B is reported.
  Solved f(one_node(narrow()));
  std::vector<Stream> s = {stream(f.model, 0, true, false)};
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.rate_bytes_per_s[0], 1e12 / 300.0, 1.0);
  EXPECT_EQ(r.limits[0], StreamLimit::kCachePath);
  EXPECT_NEAR(r.in_cache_s_per_byte[0], 250e-12, 1e-20);
  EXPECT_NEAR(r.memory_rate_bytes_per_s[0], 6.4e9, 1.0);  // the memory's own bound, unchanged
  // Narrow copy: L1 1/8 + 1/8; L2->L1 half (2 + 1) / 8; L3->L2 half (2 + 1) / 4: 1.375 cy/B =
  // 687.5 ps/B; + t_mem 150 = 837.5 ps/B: 1.1940 GB/s < Little's 3.2 (two misses per line).
  s = {stream(f.model, 0, true, true)};
  EXPECT_NEAR(f.model.solve(s).rate_bytes_per_s[0], 1e12 / 837.5, 1.0);
}

TEST(EcmTest, AFastPathOnlyReportsItsTime) {
  // Skylake-like read: serial 0.140625 cy/B = 70.3125 ps/B, + 50 = 120.3 ps/B: 8.31 GB/s > 6.4:
  // Little's law holds the stream (as kerncraft's measured 6148 says it should, ecm.hpp); the
  // in-cache time is still reported.
  Solved f(one_node(skylake_like()));
  const std::vector<Stream> s = {stream(f.model, 0, true, false)};
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.rate_bytes_per_s[0], 6.4e9, 1.0);
  EXPECT_EQ(r.limits[0], StreamLimit::kMissBuffers);
  EXPECT_NEAR(r.in_cache_s_per_byte[0], 70.3125e-12, 1e-20);
}

TEST(EcmTest, SmtSiblingsShareTheCachePath) {
  // Two narrow reads on core 0: each 2 x (250 + 50) = 600 ps/B: 1.6667 GB/s (Little: 3.2 each);
  // together what one stream gets alone.
  Solved f(one_node(narrow()));
  const std::vector<Stream> s = {stream(f.model, 0, true, false), stream(f.model, 0, true, false)};
  const StreamRates& r = f.model.solve(s);
  EXPECT_NEAR(r.rate_bytes_per_s[0], 1e12 / 600.0, 1.0);
  EXPECT_NEAR(r.rate_bytes_per_s[0] + r.rate_bytes_per_s[1], 1e12 / 300.0, 2.0);
  EXPECT_NEAR(r.in_cache_s_per_byte[0], 500e-12, 1e-20);
}

TEST(EcmTest, RandomAccessesAndMissingPathsAreUnchanged) {
  // 4 lines in flight: latency-bound, 4 x 64 / 100 ns = 2.56 GB/s with or without a data path.
  Solved f(one_node(narrow()));
  std::vector<Stream> s = {stream(f.model, 0, true, false, 4.0)};
  EXPECT_NEAR(f.model.solve(s).rate_bytes_per_s[0], 2.56e9, 1.0);
  EXPECT_EQ(f.model.solve(s).in_cache_s_per_byte[0], 0.0);
  // No data path: 6.4 GB/s, nothing reported.
  Solved none(one_node(std::nullopt));
  s = {stream(none.model, 0, true, false)};
  EXPECT_NEAR(none.model.solve(s).rate_bytes_per_s[0], 6.4e9, 1.0);
  EXPECT_EQ(none.model.solve(s).in_cache_s_per_byte[0], 0.0);
}

TEST(EcmTest, OverlappingLevelsAreABoundOfTheirOwn) {
  // Narrow with L1 and L2 overlapping: serial = L3->L2 0.25 cy/B = 125 ps/B, + 50 = 175 ps/B
  // (5.714 GB/s); the overlapping L1 and L2 (0.125 cy/B each, 62.5 ps/B: 16 GB/s) do not bind.
  CoreDataPath p = narrow();
  p.l1_overlaps = true;
  p.l2_l1_overlaps = true;
  Solved f(one_node(p));
  std::vector<Stream> s = {stream(f.model, 0, true, false)};
  EXPECT_NEAR(f.model.solve(s).rate_bytes_per_s[0], 1e12 / 175.0, 1.0);
  // Memory overlapping too: the sum 250 ps/B (4 GB/s) is a bound of its own, nothing added.
  p = narrow();
  p.memory_overlaps = true;
  Solved g(one_node(p));
  s = {stream(g.model, 0, true, false)};
  EXPECT_NEAR(g.model.solve(s).rate_bytes_per_s[0], 4e9, 1.0);
  EXPECT_EQ(g.model.solve(s).in_cache_s_per_byte[0], 0.0);
}

TEST(EcmTest, ManyCoresStillSaturateTheController) {
  // Four narrow cores at 3.33 GB/s want 13.3 GB/s < 20: each keeps its 3.33. With the
  // controller at 10 GB/s (t_mem 100 ps: 350 ps/B, 2.857 GB/s each, 11.4 wanted) they share it:
  // 2.5 GB/s each.
  Solved f(one_node(narrow()));
  std::vector<Stream> s;
  for (int c = 0; c < 4; ++c) s.push_back(stream(f.model, c, true, false));
  const StreamRates& r = f.model.solve(s);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(r.rate_bytes_per_s[c], 1e12 / 300.0, 1.0);
  Topology slow = one_node(narrow());
  slow.nodes[0].memory_read_bandwidth_gbps = 10.0;
  Solved g(slow);
  std::vector<Stream> t;
  for (int c = 0; c < 4; ++c) t.push_back(stream(g.model, c, true, false));
  const StreamRates& q = g.model.solve(t);
  for (int c = 0; c < 4; ++c) EXPECT_NEAR(q.rate_bytes_per_s[c], 2.5e9, 1e3);
}

}  // namespace
}  // namespace numatwin::model
