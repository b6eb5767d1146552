// Placement policies on a machine with a CPU-less memory node (HBM in flat mode next to a DDR
// node with cores in one package), worked by hand.
#include <gtest/gtest.h>

#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology_check.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"

namespace numatwin::sim {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// ddr (2 cores, 4 GiB, 50 GB/s, 100 ns) and hbm (no cores, 2 GiB, 400 GB/s, 130 ns), package p0,
// one link of 100 GB/s per direction adding 10 ns.
model::Topology ddr_hbm() {
  model::Topology t;
  t.name = "ddr-hbm";
  model::Node ddr;
  ddr.id = "ddr";
  ddr.cores = 2;
  ddr.threads_per_core = 1;
  ddr.frequency_ghz = 2.0;
  ddr.memory_capacity_bytes = 4LL << 30;
  ddr.memory_read_bandwidth_gbps = 50.0;
  ddr.local_latency_ns = 100.0;
  ddr.memory_kind = model::MemoryKind::kDram;
  ddr.miss_buffers_per_core = 10;
  model::Node hbm = ddr;
  hbm.id = "hbm";
  hbm.cores = 0;
  hbm.miss_buffers_per_core = 0;
  hbm.memory_capacity_bytes = 2LL << 30;
  hbm.memory_read_bandwidth_gbps = 400.0;
  hbm.local_latency_ns = 130.0;
  hbm.memory_kind = model::MemoryKind::kHbm;
  t.nodes = {ddr, hbm};
  for (model::Node& n : t.nodes) n.package = "p0";
  t.links = {model::Link{0, 1, 100.0, 10.0, 0}, model::Link{1, 0, 100.0, 10.0, 0}};
  t.provenance.source = "test";
  model::check_topology(t, "ddr-hbm");
  return t;
}

double fraction_on(const std::vector<model::NodeShare>& spread, model::NodeIndex node) {
  for (const model::NodeShare& s : spread) {
    if (s.node == node) return s.fraction;
  }
  return 0.0;
}

TEST(MemoryTiersPlacementTest, InterleaveAndBindReachTheCpuLessNode) {
  const model::Topology t = ddr_hbm();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0, 0}, 0);
  // Interleave over every node with memory: ddr and hbm, 1/2 each (2 GiB: 1 GiB on each, fits).
  const DataPlacement all = placer.place("a", 2 * kGiB, DatasetKind::kShared, parse_memory_policy("interleave", t));
  EXPECT_DOUBLE_EQ(fraction_on(all.spread(), 0), 0.5);
  EXPECT_DOUBLE_EQ(fraction_on(all.spread(), 1), 0.5);
  // Bind to hbm: all of it there (1 GiB left on hbm after the 1 GiB above).
  const DataPlacement bound = placer.place("b", 1 * kGiB, DatasetKind::kShared, parse_memory_policy("bind:hbm", t));
  EXPECT_DOUBLE_EQ(fraction_on(bound.spread(), 1), 1.0);
  // hbm is full now (2 GiB used of 2): binding more to it is an error.
  EXPECT_THROW((void)placer.place("c", 0.5 * kGiB, DatasetKind::kShared, parse_memory_policy("bind:hbm", t)),
               std::invalid_argument);
}

TEST(MemoryTiersPlacementTest, FirstTouchOnTheCoreNodeSpillsToTheCpuLessNode) {
  const model::Topology t = ddr_hbm();
  const model::Routing r(t);
  MemoryPlacer placer(t, r, {0, 0}, 0);
  // 5 GiB touched by workers on ddr (4 GiB): 4 GiB stay on ddr, 1 GiB spills to hbm (the only
  // other node): 4/5 and 1/5.
  const DataPlacement d = placer.place("d", 5 * kGiB, DatasetKind::kPartitioned, parse_memory_policy("first-touch", t));
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 0), 0.8);
  EXPECT_DOUBLE_EQ(fraction_on(d.spread(), 1), 0.2);
  // preferred:hbm on a fresh placer puts 1 GiB on hbm, although ddr seen from hbm (100 + 10 ns)
  // is nearer than hbm's own memory (130 ns): a node comes first in its own fill order.
  MemoryPlacer fresh(t, r, {0, 0}, 0);
  const DataPlacement p = fresh.place("p", 1 * kGiB, DatasetKind::kShared, parse_memory_policy("preferred:hbm", t));
  EXPECT_DOUBLE_EQ(fraction_on(p.spread(), 1), 1.0);
}

}  // namespace
}  // namespace numatwin::sim
