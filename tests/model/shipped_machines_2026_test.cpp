// The machines of today (issue 14, ../shared/docs/machines-2026.md): one prediction per file worked
// by hand from the file's figures, and the shape of the files with CPU-less memory nodes, which the
// per-node expectations of shipped_topologies_test.cpp cannot describe. A line is 64 B, so a core
// with M lines in flight over L ns reads 64 M / L GB/s; a controller at utilisation u adds
// Q u^4 ns (queue_exponent 4 in every file here).
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/model/topology_json.hpp"

namespace numatwin::model {
namespace {

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

Topology shipped(const std::string& name) {
  return load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (name + ".json"));
}

NodeIndex node(const Topology& t, const std::string& id) {
  for (NodeIndex i = 0; i < static_cast<NodeIndex>(t.nodes.size()); ++i) {
    if (t.nodes[i].id == id) return i;
  }
  ADD_FAILURE() << "no node " << id;
  return -1;
}

// Total read bandwidth of `threads` threads of `cpu` reading `memory`, GB/s.
double read_gbps(const Topology& t, const std::string& cpu, const std::string& memory, int threads) {
  const Routing routing(t);
  BandwidthModel model(t, routing);
  Measurement m;
  m.id = "by-hand";
  m.metric = MeasurementMetric::kReadBandwidthGbps;
  m.streams = {MeasurementStream{node(t, cpu), node(t, memory), threads}};
  m.value = 1.0;
  return predict_measurement(t, routing, model, m).predicted;
}

const Measurement& measurement(const Topology& t, const std::string& id) {
  for (const Measurement& m : t.measurements) {
    if (m.id == id) return m;
  }
  throw std::runtime_error("no measurement " + id);
}

// ── 2 x Xeon Platinum 8480+ (derived from topologies/specs/xeon-platinum-8480-2s.json) ────────
// The spec-sheet rules (model/src/spec_rules.cpp): DDR5 0.76835 x 8 x 4800 x 8 B = 236.03712 GB/s;
// 4 tiles in a 2 x 2 grid, memory over all four: 1 mean step, so local = (111.05 - 10.2) + 10.2 =
// 111.05 ns; UPI 0.8595 x 4 x 16 GT/s x 2 B = 110.016 GB/s; Sapphire Rapids' 32 lines in flight,
// so the queue at saturation is 56 x 32 x 64 B / 236.03712 GB/s - 111.05 = 374.84 ns.
// All 112 threads of socket 0 on its own memory ask for 56 x 32 x 64 B / (111.05 + 374.84 u^4)
// ns, which meets the controller's 236.03712 GB/s only at u = 1: the controller holds them there.
// Over the socket link: the link's 110.016 (2 nodes: a directory has no third node to probe). One
// thread alone: 32 x 64 B / 111.05 ns = 18.442 GB/s by Little's law, but the Sapphire Rapids
// cache path (/core_data_path, model/ecm.hpp: 3 loads/cy, L2->L1 64 B/cy half-, L3->L2 16 B/cy
// full-duplex) holds it first: (1/24 + 1/64 + 1/16) cy/B = 0.119792 cy/B at 2.0 GHz = 59.896 ps/B,
// plus ECM's memory term 1 / 236.03712 GB/s = 4.237 ps/B: 64.133 ps/B, 15.593 GB/s.
TEST(ShippedMachines2026Test, Platinum8480DerivedFromItsSpecSheetByHand) {
  const Topology t = shipped("xeon-platinum-8480-2s");
  EXPECT_TRUE(t.measurements.empty()) << "datasheet inputs only: nothing measured";
  EXPECT_NEAR(t.performance.memory_queue_ns, 56 * 32 * 64 / 236.03712 - 111.05, 1e-6);
  EXPECT_NEAR(read_gbps(t, "s0n0", "s0n0", 112), 236.03712, 0.05);
  EXPECT_NEAR(read_gbps(t, "s0n0", "s1n0", 112), 110.016, 1e-3);
  EXPECT_NEAR(read_gbps(t, "s0n0", "s0n0", 1), 1.0 / ((1.0 / 24 + 1.0 / 64 + 1.0 / 16) / 2.0 + 1.0 / 236.03712), 0.01);
}

// ── 2 x Xeon CPU Max 9462, HBM in flat mode ─────────────────────────────────────────────────
// Linux's order: nodes 0, 1 DDR with the cores, 2, 3 HBM without; each HBM node in its socket's
// package; SLIT 10/21/13/23 from socket 0 means HBM2 is nearer than DDR1.
TEST(ShippedMachines2026Test, XeonMaxHasCpuLessHbmNodesInLinuxOrder) {
  const Topology t = shipped("xeon-max-9462-2s");
  ASSERT_EQ(t.nodes.size(), 4u);
  const std::vector<std::string> ids = {"s0n0", "s1n0", "s0hbm", "s1hbm"};
  const std::vector<std::string> packages = {"p0", "p1", "p0", "p1"};
  for (std::size_t i = 0; i < ids.size(); ++i) {
    SCOPED_TRACE(ids[i]);
    EXPECT_EQ(t.nodes[i].id, ids[i]);
    EXPECT_EQ(t.nodes[i].package, packages[i]);
    const bool hbm = i >= 2;
    EXPECT_EQ(t.nodes[i].cores, hbm ? 0 : 32);
    EXPECT_EQ(t.nodes[i].memory_kind, hbm ? MemoryKind::kHbm : MemoryKind::kDram);
    EXPECT_EQ(t.nodes[i].memory_capacity_bytes, (hbm ? 64 : 128) * kGiB);
  }
  EXPECT_EQ(t.total_cores(), 64);
  const Routing r(t);
  EXPECT_LT(r.access_latency_ns(0, 2), r.access_latency_ns(0, 1));
}

// Idle latency of socket 0 reading socket 1's HBM (MLC 243.2 ns): HBM3's own 114.2 + the remote
// overhead 22.0 + the UPI 106.15 + the package link 0 = 242.35 ns (-0.35 %). Local HBM ceiling
// (measurement hbm-local-ceiling, "about 430"): 64 threads on 32 cores of 40 lines each could read
// 32 x 40 x 64 B / (137.7 + 44.2 + 20 x (443/819)^4 ns) = 32 x 40 x 64 / 183.61 = 446.2 GB/s at
// the HBM's saturation, so the HBM node's 443 GB/s holds them: 443 (+3.0 %).
TEST(ShippedMachines2026Test, XeonMaxByHand) {
  const Topology t = shipped("xeon-max-9462-2s");
  const Routing r(t);
  EXPECT_NEAR(r.access_latency_ns(node(t, "s0n0"), node(t, "s1hbm")), 242.35, 1e-9);
  BandwidthModel model(t, r);
  const MeasurementPrediction p = predict_measurement(t, r, model, measurement(t, "hbm-local-ceiling"));
  EXPECT_NEAR(p.predicted, 443.0, 1e-3);
  EXPECT_NEAR(p.measured, 430.0, 1e-9);
  // Both directions of the socket link as calibrated: socket 0 reads remotely at 89, socket 1 at 81.
  EXPECT_NEAR(read_gbps(t, "s0n0", "s1n0", 62), 89.0, 1e-3);
  EXPECT_NEAR(read_gbps(t, "s1n0", "s0hbm", 64), 81.0, 1e-3);
}

// ── 1 x EPYC 9354P, NPS1 and NPS4 ──────────────────────────────────────────────────────────
// NPS1, measurement mlc-peak-read (352.6): at saturation 32 cores x 41 lines x 64 B / (113.0 +
// 125.1 ns) = 352.66 GB/s >= 352.6, so the controller holds the 64 threads at 352.6 GB/s.
TEST(ShippedMachines2026Test, EpycNps1PeakReadByHand) {
  const Topology t = shipped("epyc-9354p-nps1");
  const Routing r(t);
  BandwidthModel model(t, r);
  EXPECT_NEAR(predict_measurement(t, r, model, measurement(t, "mlc-peak-read")).predicted, 352.6, 1e-3);
}

// NPS4, measurement one-thread-per-node (100.4): each node's one thread has 41 lines in flight,
// x_k = 41 x 64 / (L_k + 121.8 (x_k / 92.325)^4) with L_k = 105.6, 105.0, 104.6, 106.5 ns; by
// fixed-point iteration by hand x = 24.702, 24.840, 24.932, 24.500 GB/s, 98.973 in all (-1.4 %).
// Idle latencies: node 0 -> node 2 = 104.6 + the 0-2 link's 12.2 = 116.8 ns (MLC 118.6); node 2
// -> node 3 = 106.5 + 8.25 = 114.75 (MLC 112.9): the quadrant pairs 0-1 and 2-3 are the near ones.
TEST(ShippedMachines2026Test, EpycNps4ByHand) {
  const Topology t = shipped("epyc-9354p-nps4");
  const Routing r(t);
  BandwidthModel model(t, r);
  EXPECT_NEAR(predict_measurement(t, r, model, measurement(t, "one-thread-per-node")).predicted, 98.973, 0.01);
  EXPECT_NEAR(r.access_latency_ns(node(t, "s0n0"), node(t, "s0n2")), 116.8, 1e-9);
  EXPECT_NEAR(r.access_latency_ns(node(t, "s0n2"), node(t, "s0n3")), 114.75, 1e-9);
  EXPECT_LT(r.access_latency_ns(node(t, "s0n0"), node(t, "s0n1")), r.access_latency_ns(node(t, "s0n0"), node(t, "s0n2")));
}

// ── 2-socket Sapphire Rapids with one CXL expander per socket ──────────────────────────────
// Expander e of socket s is s<s>cxl0: no cores, kind CXL, no package, behind a host-bridge link
// to its socket. Idle: from its own socket 111.3 + 80 = 191.3 ns (Meta's +80 ns); from the other
// socket 191.3 + 127.3 = 318.6 ns. Bandwidth: all 112 threads of socket 0 on its expander could
// ask for 56 x 16 x 64 B / (191.3 + ~39 ns of queues) >= 249 GB/s, so the expander's 115.75245
// GB/s (half the socket's DRAM) holds them; its home agent is socket 0 itself, whose probes to
// socket 1 do not cross the host-bridge link.
TEST(ShippedMachines2026Test, SprCxlByHand) {
  const Topology t = shipped("spr-cxl-2s");
  const NodeIndex s0 = node(t, "s0n0");
  const NodeIndex s1 = node(t, "s1n0");
  const NodeIndex x0 = node(t, "s0cxl0");
  EXPECT_EQ(t.nodes[x0].cores, 0);
  EXPECT_EQ(t.nodes[x0].memory_kind, MemoryKind::kCxl);
  EXPECT_TRUE(t.nodes[x0].package.empty());
  EXPECT_TRUE(t.measurements.empty()) << "published ranges, not one measured machine";
  const Routing r(t);
  EXPECT_NEAR(r.access_latency_ns(s0, x0), 191.3, 1e-9);
  EXPECT_NEAR(r.access_latency_ns(s1, x0), 318.6, 1e-9);
  EXPECT_NEAR(read_gbps(t, "s0n0", "s0cxl0", 112), 115.75245, 1e-3);
}

}  // namespace
}  // namespace numatwin::model
