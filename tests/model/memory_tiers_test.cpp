// Memory tiers worked by hand: a CPU-less CXL node behind a host-bridge link, a memory kind's own
// loaded-latency curve, memory-side caches, and the format's new fields (round trip, errors).
// A line is 64 B, so M lines in flight over L ns give 64 M / L GB/s.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/memory_tiers.hpp"
#include "numatwin/model/topology_check.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;
constexpr double kGB = 1e9;

// Socket s0 (8 cores, 1 thread each, 40 miss buffers, DDR 100 GB/s at 100 ns) and a CPU-less
// CXL expander x0 (64 GB/s, 250 ns local) behind a host-bridge link of 32 GB/s per direction
// adding 70 ns. No queueing, no probes, no remote overhead unless a test sets them.
Topology cxl_machine() {
  Topology t;
  t.name = "cxl";
  Node s;
  s.id = "s0";
  s.package = "p0";
  s.cores = 8;
  s.threads_per_core = 1;
  s.frequency_ghz = 2.0;
  s.memory_capacity_bytes = 1LL << 34;
  s.memory_read_bandwidth_gbps = 100.0;
  s.local_latency_ns = 100.0;
  s.memory_kind = MemoryKind::kDram;
  s.miss_buffers_per_core = 40;
  Node x;
  x.id = "x0";
  x.package = "p0";
  x.cores = 0;
  x.threads_per_core = 1;
  x.frequency_ghz = 2.0;
  x.memory_capacity_bytes = 1LL << 36;
  x.memory_read_bandwidth_gbps = 64.0;
  x.local_latency_ns = 250.0;
  x.memory_kind = MemoryKind::kCxl;
  t.nodes = {s, x};
  t.links = {Link{0, 1, 32.0, 70.0, 0}, Link{1, 0, 32.0, 70.0, 0}};
  t.performance = PerformanceParameters{64, 0.0, 0.0, 1.0};
  t.provenance.source = "test";
  check_topology(t, "cxl");
  return t;
}

struct Fixture {
  explicit Fixture(Topology topology) : t(std::move(topology)), routing(t), model(t, routing) {}
  Topology t;
  Routing routing;
  BandwidthModel model;
};

std::vector<Stream> readers(const BandwidthModel& m, int threads, NodeIndex memory) {
  std::vector<Stream> out;
  for (int c = 0; c < threads; ++c) {
    Stream s;
    s.cpu_node = 0;
    s.core = m.core_of(0, c);
    s.read_node = memory;
    out.push_back(s);
  }
  return out;
}

// A CPU-less node has no cache, so it is never probed: with source snoop at 16 + 16 B per line,
// s0 reading its own DDR sends nothing over the host-bridge link (before, a probe of 16/64 = 0.25 B
// per payload byte went to x0 and a response came back), and s0 reading the expander gets the
// whole 32 GB/s of the link for data (8 cores x 40 lines x 64 B / 320 ns = 64 GB/s would be the
// cores' bound; with the response charged the link would have given 32 / 1.25 = 25.6 GB/s).
TEST(MemoryTiersTest, CpuLessNodeIsNeverProbed) {
  Topology t = cxl_machine();
  t.coherence.protocol = CoherenceProtocol::kSourceSnoop;
  t.coherence.probe_bytes_per_line = 16.0;
  t.coherence.response_bytes_per_line = 16.0;
  Fixture f(t);
  const StreamRates& local = f.model.solve(readers(f.model, 8, 0));
  for (LinkIndex l = 0; l < static_cast<LinkIndex>(f.t.links.size()); ++l) {
    EXPECT_EQ(local.resource_load_bytes_per_s[f.model.link_resource(l)], 0.0) << "link " << l;
  }
  const StreamRates& far = f.model.solve(readers(f.model, 8, 1));
  double total = 0.0;
  for (double r : far.rate_bytes_per_s) total += r;
  EXPECT_NEAR(total / kGB, 32.0, 1e-6);
}

// The home agent of a CPU-less node's memory is in the socket it hangs off. Add a second socket s1
// (8 cores, its own DDR) behind s0 with a 50 GB/s link, home snoop at 16 B of probe per line and
// no response: s0's 8 threads reading the expander x0 are probed for by s0, so the probe to s1
// (16 / 64 = 0.25 B per payload byte) crosses only s0 -> s1, and the host-bridge link x0 -> s0
// carries data alone: 32 GB/s (x0 as prober would have sent the probe over x0 -> s0 too:
// 32 / 1.25 = 25.6 GB/s), and s0 -> s1 carries 0.25 x 32 = 8 GB/s.
TEST(MemoryTiersTest, ACpuLessHomeIsProbedForByItsSocket) {
  Topology t = cxl_machine();
  Node s1 = t.nodes[0];
  s1.id = "s1";
  s1.package = "p1";
  t.nodes.push_back(s1);
  t.links.push_back(Link{0, 2, 50.0, 0.0, 1});
  t.links.push_back(Link{2, 0, 50.0, 0.0, 1});
  t.coherence.protocol = CoherenceProtocol::kHomeSnoop;
  t.coherence.probe_bytes_per_line = 16.0;
  check_topology(t, "cxl-2s");
  Fixture f(t);
  const StreamRates& r = f.model.solve(readers(f.model, 8, 1));
  double total = 0.0;
  for (double x : r.rate_bytes_per_s) total += x;
  EXPECT_NEAR(total / kGB, 32.0, 1e-6);
  EXPECT_NEAR(r.resource_load_bytes_per_s[f.model.link_resource(1)] / kGB, 32.0, 1e-6);  // x0 -> s0
  EXPECT_NEAR(r.resource_load_bytes_per_s[f.model.link_resource(2)] / kGB, 8.0, 1e-6);   // s0 -> s1
  EXPECT_NEAR(r.resource_load_bytes_per_s[f.model.link_resource(0)] / kGB, 0.0, 1e-9);   // s0 -> x0
}

TEST(MemoryTiersTest, CpuLessNodeIsRoutedAndHasNoCores) {
  Fixture f(cxl_machine());
  EXPECT_FALSE(f.t.nodes[1].has_cores());
  EXPECT_TRUE(f.t.nodes[1].has_memory());
  EXPECT_EQ(f.routing.hops(0, 1), 1);
  EXPECT_EQ(f.routing.hops(1, 0), 1);
  EXPECT_EQ(f.model.core_count(), 8);
  EXPECT_THROW((void)f.model.core_of(1, 0), std::invalid_argument);  // no core on the expander
  EXPECT_EQ(f.t.total_cores(), 8);
}

TEST(MemoryTiersTest, HostBridgeLinkAddsItsLatencyToTheCxlNodesLocalLatency) {
  Fixture f(cxl_machine());
  // 250 ns (x0 local) + 70 ns (host-bridge link) + 0 remote overhead.
  EXPECT_DOUBLE_EQ(f.model.idle_latency_ns(0, 1), 320.0);
  f.t.coherence.remote_access_overhead_ns = 15.0;  // a remote access also pays the handshake
  EXPECT_DOUBLE_EQ(f.routing.access_latency_ns(0, 1), 335.0);
}

TEST(MemoryTiersTest, ReadingTheCxlNodeIsCappedByTheHostBridgeLink) {
  Fixture f(cxl_machine());
  // One thread alone: 40 lines x 64 B / 320 ns = 8 GB/s (under 32 and 64).
  const std::vector<Stream> one = readers(f.model, 1, 1);
  EXPECT_NEAR(f.model.solve(one).rate_bytes_per_s[0] / kGB, 8.0, 1e-9);
  // Eight threads want 8 x 8 = 64 GB/s; the link x0 -> s0 carries 32 GB/s (the expander could
  // give 64): 4 GB/s each, held by the link (link 1 = x0 -> s0, the data's direction).
  const std::vector<Stream> eight = readers(f.model, 8, 1);
  const StreamRates& r = f.model.solve(eight);
  double sum = 0.0;
  for (double x : r.rate_bytes_per_s) sum += x;
  EXPECT_NEAR(sum / kGB, 32.0, 1e-6);
  EXPECT_NEAR(r.rate_bytes_per_s[0] / kGB, 4.0, 1e-6);
  EXPECT_EQ(r.limits[0], StreamLimit::kResource);
  EXPECT_EQ(r.bottleneck[0], f.model.link_resource(1));
}

TEST(MemoryTiersTest, MemoryKindCurveOverridesTheMachineCurveAtThatKindsNodes) {
  Topology t = cxl_machine();
  t.memory_kind_curves[MemoryKind::kCxl] = MemoryCurve{100.0, 1.0};
  EXPECT_EQ(memory_curve(t, 1), (MemoryCurve{100.0, 1.0}));
  EXPECT_EQ(memory_curve(t, 0), (MemoryCurve{0.0, 1.0}));  // DRAM: not listed, machine-wide
  Fixture f(t);
  // One thread reading x0 at x GB/s: u = x / 64, L = 320 + 100 u ns, and x = 40 x 64 / L:
  //   x (320 + 100 x / 64) = 2560  ->  1.5625 x^2 + 320 x - 2560 = 0
  //   x = (-320 + sqrt(320^2 + 4 x 1.5625 x 2560)) / (2 x 1.5625) = (-320 + sqrt(118400)) / 3.125
  //     = (-320 + 344.0930) / 3.125 = 7.7098 GB/s  (8 GB/s without the curve).
  const std::vector<Stream> one = readers(f.model, 1, 1);
  EXPECT_NEAR(f.model.solve(one).rate_bytes_per_s[0] / kGB, (-320.0 + std::sqrt(118400.0)) / 3.125, 1e-3);
  // The DRAM node keeps the machine's flat curve: 2560 / 100 = 25.6 GB/s.
  const std::vector<Stream> local = readers(f.model, 1, 0);
  EXPECT_NEAR(f.model.solve(local).rate_bytes_per_s[0] / kGB, 25.6, 1e-6);
}

TEST(MemoryTiersTest, MemorySideCacheHitRatioFromFootprintAndCapacity) {
  EXPECT_DOUBLE_EQ(memory_side_cache_hit_ratio(16, 8), 1.0);
  EXPECT_DOUBLE_EQ(memory_side_cache_hit_ratio(16, 16), 1.0);
  EXPECT_DOUBLE_EQ(memory_side_cache_hit_ratio(16, 64), 0.25);
  EXPECT_THROW((void)memory_side_cache_hit_ratio(16, 0), std::invalid_argument);
}

TEST(MemoryTiersTest, EffectiveMemoryBehindADramCacheInFrontOfNvm) {
  // NVM backing 10 GB/s at 300 ns; a 16 GiB DRAM cache at 90 ns, 100 GB/s.
  Node n;
  n.id = "nvm";
  n.memory_capacity_bytes = 1LL << 40;
  n.memory_read_bandwidth_gbps = 10.0;
  n.local_latency_ns = 300.0;
  n.memory_kind = MemoryKind::kNvm;
  n.memory_side_cache = MemorySideCache{16LL << 30, 90.0, 100.0};
  // 8 GiB fits: h = 1, latency 90 ns, bandwidth min(100 / 1, 10 / 0 = inf) = 100 GB/s.
  EffectiveMemory fits = effective_memory(n, 8LL << 30);
  EXPECT_DOUBLE_EQ(fits.hit_ratio, 1.0);
  EXPECT_DOUBLE_EQ(fits.local_latency_ns, 90.0);
  EXPECT_DOUBLE_EQ(fits.read_bandwidth_gbps, 100.0);
  // 64 GiB: h = 16 / 64 = 0.25; latency 0.25 x 90 + 0.75 x 300 = 247.5 ns;
  // bandwidth min(100 / 0.25 = 400, 10 / 0.75 = 13.333) = 13.333 GB/s (the NVM misses bind).
  EffectiveMemory spills = effective_memory(n, 64LL << 30);
  EXPECT_DOUBLE_EQ(spills.hit_ratio, 0.25);
  EXPECT_DOUBLE_EQ(spills.local_latency_ns, 247.5);
  EXPECT_NEAR(spills.read_bandwidth_gbps, 10.0 / 0.75, 1e-12);
  // Without a cache: the node's own figures.
  n.memory_side_cache.reset();
  EffectiveMemory plain = effective_memory(n, 64LL << 30);
  EXPECT_DOUBLE_EQ(plain.hit_ratio, 0.0);
  EXPECT_DOUBLE_EQ(plain.local_latency_ns, 300.0);
  EXPECT_DOUBLE_EQ(plain.read_bandwidth_gbps, 10.0);
}

// A Xeon-Max-like package: DDR node with cores, HBM node without, one package; a CXL expander.
Json tiers_document() {
  const auto node = [](const std::string& id, int cores, const std::string& kind) {
    Json n{{"id", id},         {"kind", "node"},         {"package", "p0"},
           {"cores", cores},   {"threads_per_core", 1},  {"frequency_ghz", 2.0},
           {"caches", Json::array()}, {"memory_capacity_bytes", 1LL << 34}, {"memory_read_bandwidth_gbps", 100.0},
           {"local_latency_ns", 110.0}, {"memory_kind", kind}};
    if (cores > 0) n["miss_buffers_per_core"] = 16;
    return n;
  };
  Json ddr = node("ddr0", 4, "DRAM");
  ddr["memory_side_cache"] = Json{{"capacity_bytes", 1LL << 30}, {"latency_ns", 90.0}, {"read_bandwidth_gbps", 300.0}};
  Json cxl = node("cxl0", 0, "CXL");
  cxl.erase("package");
  return Json{{"format_version", 1},
              {"name", "tiers"},
              {"nodes", Json::array({ddr, node("hbm0", 0, "HBM"), cxl})},
              {"links", Json::array({Json{{"between", {"ddr0", "hbm0"}}, {"bandwidth_per_direction_gbps", 400.0}, {"latency_ns", 20.0}},
                                     Json{{"from", "ddr0"}, {"to", "cxl0"}, {"bandwidth_gbps", 28.0}, {"latency_ns", 80.0}},
                                     Json{{"from", "cxl0"}, {"to", "ddr0"}, {"bandwidth_gbps", 32.0}, {"latency_ns", 80.0}}})},
              {"coherence", Json{{"protocol", "source_snoop"}, {"probe_bytes_per_line", 0.0}, {"response_bytes_per_line", 0.0},
                                 {"remote_access_overhead_ns", 0.0}}},
              {"performance", Json{{"cache_line_bytes", 64}, {"memory_queue_ns", 40.0}, {"link_queue_ns", 20.0}, {"queue_exponent", 4.0},
                                   {"memory_kind_curves", Json{{"CXL", Json{{"memory_queue_ns", 150.0}, {"queue_exponent", 2.0}}}}}}},
              {"provenance", Json{{"source", "hand-written test"}, {"measured", Json::array()}, {"theoretical", Json::array()},
                                  {"reconstructed", Json::array()}, {"firmware", Json::array({"/nodes/1/memory_read_bandwidth_gbps"})},
                                  {"notes", ""}}}};
}

TEST(MemoryTiersTest, NewFieldsLoadAndRoundTripExactly) {
  const Topology t = parse_topology(tiers_document().dump(), "tiers.json");
  ASSERT_EQ(t.nodes.size(), 3u);
  EXPECT_EQ(t.nodes[0].package, "p0");
  EXPECT_EQ(t.nodes[1].package, "p0");
  EXPECT_EQ(t.nodes[2].package, "");
  EXPECT_EQ(t.nodes[1].memory_kind, MemoryKind::kHbm);
  EXPECT_EQ(t.nodes[2].memory_kind, MemoryKind::kCxl);
  EXPECT_FALSE(t.nodes[1].has_cores());
  ASSERT_TRUE(t.nodes[0].memory_side_cache.has_value());
  EXPECT_EQ(t.nodes[0].memory_side_cache->capacity_bytes, 1LL << 30);
  EXPECT_EQ(t.memory_kind_curves.at(MemoryKind::kCxl), (MemoryCurve{150.0, 2.0}));
  EXPECT_EQ(t.provenance.firmware, std::vector<std::string>{"/nodes/1/memory_read_bandwidth_gbps"});
  // The host-bridge link keeps its two directions' bandwidths: ddr0 -> cxl0 28, cxl0 -> ddr0 32.
  EXPECT_EQ(t.links[t.find_link(0, 2).value()].bandwidth_gbps, 28.0);
  EXPECT_EQ(t.links[t.find_link(2, 0).value()].bandwidth_gbps, 32.0);
  const std::string saved = topology_to_json_text(t);
  const Topology again = parse_topology(saved, "saved.json");
  EXPECT_EQ(again, t);
  EXPECT_EQ(topology_to_json_text(again), saved);
}

void expect_error(const Json& doc, const std::string& pointer, const std::string& expectation_part) {
  try {
    parse_topology(doc.dump(), "bad.json");
    ADD_FAILURE() << "accepted: " << doc.dump();
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_pointer(), pointer) << e.what();
    EXPECT_NE(e.expectation().find(expectation_part), std::string::npos) << e.what();
  }
}

TEST(MemoryTiersTest, BadMemoryTierFieldsNameTheirPointer) {
  Json d = tiers_document();
  d["nodes"][1]["memory_kind"] = "SRAM";
  expect_error(d, "/nodes/1/memory_kind", "expected \"DRAM\", \"HBM\", \"CXL\" or \"NVM\", found \"SRAM\"");
  d = tiers_document();
  d["nodes"][0]["memory_side_cache"]["latency_ns"] = 0.0;
  expect_error(d, "/nodes/0/memory_side_cache/latency_ns", "expected a number > 0");
  d = tiers_document();
  d["nodes"][0]["memory_side_cache"]["capacity_bytes"] = 0;
  expect_error(d, "/nodes/0/memory_side_cache/capacity_bytes", "expected an integer");
  d = tiers_document();
  d["nodes"][0]["memory_side_cache"]["ways"] = 4;
  expect_error(d, "/nodes/0/memory_side_cache/ways", "");
  d = tiers_document();
  d["nodes"][0]["memory_capacity_bytes"] = 0;  // cores but no memory: no kind, no cache
  d["nodes"][0].erase("memory_side_cache");
  expect_error(d, "/nodes/0/memory_kind", "allowed only for nodes with memory_capacity_bytes > 0");
  d = tiers_document();
  d["nodes"][0]["package"] = "";
  expect_error(d, "/nodes/0/package", "");
  d = tiers_document();
  d["performance"]["memory_kind_curves"]["FOO"] = Json{{"memory_queue_ns", 1.0}, {"queue_exponent", 1.0}};
  expect_error(d, "/performance/memory_kind_curves/FOO", "unknown memory kind \"FOO\"");
  d = tiers_document();
  d["performance"]["memory_kind_curves"]["CXL"]["queue_exponent"] = 0.0;
  expect_error(d, "/performance/memory_kind_curves/CXL/queue_exponent", "expected a number > 0");
  d = tiers_document();
  d["provenance"]["firmware"] = "x";
  expect_error(d, "/provenance/firmware", "");
}

}  // namespace
}  // namespace numatwin::model
