// Flows worked by hand on a three-node line a - b - c. Every node: 4 cores x 2 hardware threads,
// 10 miss buffers per core, memory 20 GB/s with 100 ns local latency; links 10 GB/s per direction,
// 50 ns each; no probes, no queueing. So a thread alone reaches
//   local:       10 lines x 64 B / 100 ns = 6.4 GB/s
//   one hop:     640 B / 150 ns = 4.267 GB/s
//   two hops:    640 B / 200 ns = 3.2 GB/s
// and the data of a read of c's memory by a thread on a crosses c->b, then b->a.
#include <gtest/gtest.h>

#include "test_node.hpp"

#include <cmath>

#include "numatwin/model/topology_check.hpp"
#include "numatwin/sim/engine/flows.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

constexpr double kGB = 1e9;

model::Topology line() {
  model::Topology t;
  t.name = "line";
  for (const char* id : {"a", "b", "c"}) {
    t.nodes.push_back(testing_support::test_node(id));
  }
  t.links = {model::Link{0, 1, 10.0, 50.0, 0}, model::Link{1, 0, 10.0, 50.0, 0}, model::Link{1, 2, 10.0, 50.0, 1},
             model::Link{2, 1, 10.0, 50.0, 1}};
  t.coherence.probe_bytes_per_line = 0.0;
  t.performance = model::PerformanceParameters{64, 0.0, 0.0, 1.0};
  t.provenance.source = "test";
  model::check_topology(t, "line");
  return t;
}

// `threads` threads on the first cores of `node` (4 cores per node: global core = 4 node + i).
Flow reading(int node, int threads, int memory) {
  Flow f;
  for (int i = 0; i < threads; ++i) f.cores.push_back(4 * node + i);
  f.read = {model::NodeShare{memory, 1.0}};
  return f;
}

int resource(const FlowsResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.resources.size(); ++i) {
    if (r.resources[i].name == name) return static_cast<int>(i);
  }
  ADD_FAILURE() << "no resource " << name;
  return 0;
}

TEST(FlowsTest, OneThreadAloneIsHeldByItsMissBuffers) {
  // Two hops: 640 B / 200 ns = 3.2 GB/s; loaded latency = idle latency without queueing.
  const model::Topology t = line();
  const FlowsResult r = run_flows(t, {reading(0, 1, 2)});
  EXPECT_NEAR(r.start.flows[0].rate_bytes_per_s / kGB, 3.2, 1e-9);
  EXPECT_NEAR(r.start.flows[0].latency_ns, 200.0, 1e-9);
  EXPECT_EQ(flow_limit(r.start.flows[0]), model::StreamLimit::kMissBuffers);
  EXPECT_EQ(flow_bottleneck(r.start.flows[0]), -1);
  EXPECT_TRUE(r.phases.empty());  // no bytes: steady state only
  EXPECT_EQ(r.time_s, 0.0);
}

TEST(FlowsTest, TwoResourceBoundFlowsSplitTheirSharedLink) {
  // Flow 0: 4 threads on a read c (c->b, b->a; bound 4 x 3.2 = 12.8 GB/s). Flow 1: 4 threads on b
  // read c (c->b; bound 4 x 4.267 = 17.1 GB/s). Both need more than c->b's 10 GB/s: max-min gives
  // the 8 threads 1.25 GB/s each, 5 GB/s per flow. c's controller carries 10 of 20 GB/s, b->a 5 of 10.
  const model::Topology t = line();
  const FlowsResult r = run_flows(t, {reading(0, 4, 2), reading(1, 4, 2)});
  const int link_cb = resource(r, "c->b");
  for (int f : {0, 1}) {
    EXPECT_NEAR(r.start.flows[f].rate_bytes_per_s / kGB, 5.0, 1e-6) << f;
    EXPECT_NEAR(r.start.flows[f].thread_rate_bytes_per_s[0] / kGB, 1.25, 1e-6) << f;
    EXPECT_EQ(flow_limit(r.start.flows[f]), model::StreamLimit::kResource) << f;
    EXPECT_EQ(flow_bottleneck(r.start.flows[f]), link_cb) << f;
  }
  EXPECT_NEAR(r.start.utilisation[link_cb], 1.0, 1e-6);
  EXPECT_NEAR(r.start.resource_load_bytes_per_s[resource(r, "mc:c")] / kGB, 10.0, 1e-6);
  EXPECT_NEAR(r.start.utilisation[resource(r, "b->a")], 0.5, 1e-6);
  EXPECT_NEAR(r.start.utilisation[resource(r, "a->b")], 0.0, 1e-12);
}

TEST(FlowsTest, ARateCappedFlowLeavesTheRestToTheOther) {
  // Flow 0 capped at 2 GB/s (0.5 per thread): it takes 2, and max-min gives flow 1 the remaining
  // 10 - 2 = 8 GB/s of c->b (2 per thread, under its miss-buffer bound of 4.267).
  const model::Topology t = line();
  Flow capped = reading(0, 4, 2);
  capped.rate_limit_bytes_per_s = 2.0 * kGB;
  const FlowsResult r = run_flows(t, {capped, reading(1, 4, 2)});
  EXPECT_NEAR(r.start.flows[0].rate_bytes_per_s / kGB, 2.0, 1e-6);
  EXPECT_NEAR(r.start.flows[0].thread_rate_bytes_per_s[3] / kGB, 0.5, 1e-6);
  EXPECT_EQ(flow_limit(r.start.flows[0]), model::StreamLimit::kRateLimit);
  EXPECT_NEAR(r.start.flows[1].rate_bytes_per_s / kGB, 8.0, 1e-6);
  EXPECT_EQ(flow_limit(r.start.flows[1]), model::StreamLimit::kResource);
}

TEST(FlowsTest, FlowsWithBytesRunUntilTheLastFinishes) {
  // Phase 1: 5 GB/s each (as above). Flow 0 (1 GB) is done at 1e9 / 5e9 = 0.2 s; flow 1 (3 GB)
  // has 2 GB left and, alone, gets min(c->b 10, 4 x 4.267) = 10 GB/s: done at 0.2 + 0.2 = 0.4 s.
  // Mean rates: 1 GB / 0.2 s = 5 GB/s and 3 GB / 0.4 s = 7.5 GB/s.
  const model::Topology t = line();
  std::vector<Flow> flows = {reading(0, 4, 2), reading(1, 4, 2)};
  flows[0].bytes = 1e9;
  flows[1].bytes = 3e9;
  const FlowsResult r = run_flows(t, flows);
  ASSERT_EQ(r.phases.size(), 2u);
  EXPECT_NEAR(r.finish_s[0], 0.2, 1e-9);
  EXPECT_NEAR(r.finish_s[1], 0.4, 1e-9);
  EXPECT_NEAR(r.time_s, 0.4, 1e-9);
  EXPECT_NEAR(r.phases[1].begin_s, 0.2, 1e-9);
  EXPECT_FALSE(r.phases[1].snapshot.flows[0].running);
  EXPECT_NEAR(r.phases[1].snapshot.flows[1].rate_bytes_per_s / kGB, 10.0, 1e-6);
  EXPECT_NEAR(r.mean_rate_bytes_per_s(flows, 0) / kGB, 5.0, 1e-6);
  EXPECT_NEAR(r.mean_rate_bytes_per_s(flows, 1) / kGB, 7.5, 1e-6);
}

TEST(FlowsTest, AFlowWithoutBytesIsBackgroundLoadUntilTheOthersFinish) {
  // Flow 1 (2 GB) shares c->b with the endless flow 0 at 5 GB/s: done at 0.4 s; one phase.
  const model::Topology t = line();
  std::vector<Flow> flows = {reading(0, 4, 2), reading(1, 4, 2)};
  flows[1].bytes = 2e9;
  const FlowsResult r = run_flows(t, flows);
  ASSERT_EQ(r.phases.size(), 1u);
  EXPECT_NEAR(r.time_s, 0.4, 1e-9);
  EXPECT_EQ(r.finish_s[0], 0.0);
  EXPECT_NEAR(r.mean_rate_bytes_per_s(flows, 0) / kGB, 5.0, 1e-6);
}

TEST(FlowsTest, TheFluidRunAgreesWithTheSimulator) {
  // The same two flows as a plan of transfers (one per thread, bytes / threads each) for the
  // simulator: both finish the last byte at the same time (0.4 s, derived above).
  const model::Topology t = line();
  std::vector<Flow> flows = {reading(0, 4, 2), reading(1, 4, 2)};
  flows[0].bytes = 1e9;
  flows[1].bytes = 3e9;
  Plan plan;
  for (const Flow& f : flows) {
    for (int core : f.cores) {
      Transfer tr;
      tr.read_node = 2;
      tr.bytes = f.bytes / static_cast<double>(f.cores.size());
      plan.threads.push_back(ThreadPlan{core, {tr}});
    }
  }
  Simulation simulation(t);
  EXPECT_NEAR(simulation.run(plan).time_s, run_flows(t, flows).time_s, 1e-12);
}

TEST(FlowsTest, AnInterleavedReadWeighsLatencyAndLoadByItsFractions) {
  // One thread on a reads a and c half and half: latency 0.5 x 100 + 0.5 x 200 = 150 ns, so
  // 640 B / 150 ns = 4.267 GB/s, half of it on a's controller, half on c's and on c->b.
  const model::Topology t = line();
  Flow f = reading(0, 1, 0);
  f.read = {model::NodeShare{0, 0.5}, model::NodeShare{2, 0.5}};
  const FlowsResult r = run_flows(t, {f});
  const double rate = 640.0 / 150e-9;
  EXPECT_NEAR(r.start.flows[0].latency_ns, 150.0, 1e-9);
  EXPECT_NEAR(r.start.flows[0].rate_bytes_per_s, rate, 1e-3);
  EXPECT_NEAR(r.start.resource_load_bytes_per_s[resource(r, "mc:a")], rate / 2, 1e-3);
  EXPECT_NEAR(r.start.resource_load_bytes_per_s[resource(r, "c->b")], rate / 2, 1e-3);
}

TEST(FlowsTest, ALocalCopyNeedsTwoMissesPerLineAndLoadsItsControllerTwice) {
  // Read a, write a: one line costs a read miss and a write (ownership) miss, 100 ns each, so
  // 640 B / 200 ns = 3.2 GB/s of payload; the controller sees 1 (read) + 1 + C/W (write; W = C
  // without a write bandwidth) = 3 units per payload byte: 9.6 GB/s.
  const model::Topology t = line();
  Flow f = reading(0, 1, 0);
  f.write = {model::NodeShare{0, 1.0}};
  const FlowsResult r = run_flows(t, {f});
  EXPECT_NEAR(r.start.flows[0].rate_bytes_per_s / kGB, 3.2, 1e-9);
  EXPECT_NEAR(r.start.flows[0].latency_ns, 200.0, 1e-9);
  EXPECT_NEAR(r.start.resource_load_bytes_per_s[resource(r, "mc:a")] / kGB, 9.6, 1e-9);
}

TEST(FlowsTest, TrafficPassingThroughANodeLoadsItsForwardingResource) {
  // b forwards at most 4 GB/s: a's read of c enters b on c->b and leaves on b->a, so the flow
  // (bound 12.8 GB/s by its miss buffers, 10 by the links) gets 4 GB/s, held by fwd:b; b's own
  // read of c does not pass through b and is not limited by it.
  model::Topology t = line();
  t.nodes[1].forwarding_bandwidth_gbps = 4.0;
  const FlowsResult r = run_flows(t, {reading(0, 4, 2)});
  EXPECT_NEAR(r.start.flows[0].rate_bytes_per_s / kGB, 4.0, 1e-6);
  EXPECT_EQ(flow_bottleneck(r.start.flows[0]), resource(r, "fwd:b"));
  const FlowsResult own = run_flows(t, {reading(1, 1, 2)});
  EXPECT_NEAR(own.start.flows[0].rate_bytes_per_s / kGB, 640.0 / 150.0, 1e-6);  // miss buffers, one hop
}

TEST(FlowsTest, BadFlowsAreRejected) {
  const model::Topology t = line();
  Flow none = reading(0, 1, 2);
  none.cores.clear();
  EXPECT_THROW((void)run_flows(t, {none}), std::invalid_argument);
  Flow nowhere = reading(0, 1, 2);
  nowhere.read.clear();
  EXPECT_THROW((void)run_flows(t, {nowhere}), std::invalid_argument);
  Flow half = reading(0, 1, 2);
  half.read[0].fraction = 0.5;
  EXPECT_THROW((void)run_flows(t, {half}), std::invalid_argument);
  Flow capped = reading(0, 1, 2);
  capped.rate_limit_bytes_per_s = 0.0;
  EXPECT_THROW((void)run_flows(t, {capped}), std::invalid_argument);
  Flow far = reading(0, 1, 2);
  far.cores = {12};
  EXPECT_THROW((void)run_flows(t, {far}), std::invalid_argument);
}

}  // namespace
}  // namespace numatwin::sim
