// The rule fitter on a toy corpus of three machines, every expectation worked by hand:
//
//   A: skylake-sp, 2 sockets of one die, 10 cores, 4 x DDR4-2000 (64 GB/s a socket), 2 UPI at
//      10 GT/s (40 GB/s a direction).
//      idle: 0->0 90, 1->1 94, 0->1 140, 1->0 144       D_A = 92, X_A = mean(48, 52) = 50
//      bandwidth: 0->0 48, 1->1 52 (eta 0.75, 0.8125)    eta_A = 0.78125
//                 0->1 30, 1->0 34 (link 0.75, 0.85)     eta_link_A = 0.8
//      peak: all reads 100, 3:1 90, 1:1 80               tau: (100/90 - 1)/0.25 = 0.4444,
//                                                        (100/80 - 1)/0.5 = 0.5: tau_A = 0.4722
//      loaded (read-only, both sockets): (10 GB/s, 95 ns), (50, 121.25), (100, 200)
//        M_A = 200 ns x (100 / 2 nodes) GB/s / (10 cores x 64 B) = 15.625
//        e at u = 0.5: ln((121.25 - 95) / (200 - 95)) / ln 0.5 = ln 0.25 / ln 0.5 = 2
//   B: skylake-sp as A, idle 80 / 80 local, 120 / 120 remote   D_B = 80, X_B = 40
//      bandwidth 0->0 and 1->1 56 (eta 0.875)
//   C: sapphire-rapids, 1 socket of 2 dies in SNC2 (a node a die, one die step apart),
//      idle 0->0 100, 1->1 100, 0->1 120, 1->0 124: the slope over die steps (0, 0, 1, 1) is
//      s = 22 (intercept 100), entries 20 and 24; D_C = 100.
//
//   skylake-sp: D = median(92, 80) = 86 in [80, 94]; X = median(50, 40) = 45 in [40, 52].
//   ddr4 eta = median(0.78125, 0.875) = 0.828125 in [0.75, 0.875]; ddr5 (no machine): the same,
//   said so. s = 22 in [20, 24].
#include <gtest/gtest.h>

#include "numatwin/model/spec_rule_fit.hpp"

namespace numatwin::model {
namespace {

SpecSheet two_socket_skylake(const std::string& name) {
  SpecSheet s;
  s.name = name;
  s.vendor = SpecVendor::kIntel;
  s.sockets = 2;
  s.socket.generation = "skylake-sp";
  s.socket.cores = 10;
  s.socket.threads_per_core = 1;
  s.socket.base_frequency_ghz = 2.0;
  s.socket.l1d_bytes_per_core = 32 * 1024;
  s.socket.l2_bytes_per_core = 1024 * 1024;
  s.socket.l3_bytes = 16LL * 1024 * 1024;
  s.socket.memory = {SpecMemoryKind::kDdr4, 4, 2000.0, 1, 64LL << 30};
  s.socket_links = LinkSpec{"upi", 2, 10.0, 2.0, std::nullopt};
  return s;
}

MeasuredMachine machine_a() {
  MeasuredMachine m;
  m.id = "A";
  m.spec = two_socket_skylake("A");
  m.idle_latency_ns = {{0, 0, 90, ""}, {1, 1, 94, ""}, {0, 1, 140, ""}, {1, 0, 144, ""}};
  m.bandwidth_gbps = {{0, 0, 48, ""}, {1, 1, 52, ""}, {0, 1, 30, ""}, {1, 0, 34, ""}};
  m.peak_injection = {{"ALL Reads", 0.0, FigureScope::kWholeMachine, 100, ""},
                      {"3:1 Reads-Writes", 0.25, FigureScope::kWholeMachine, 90, ""},
                      {"1:1 Reads-Writes", 0.5, FigureScope::kWholeMachine, 80, ""}};
  m.loaded_latency = {{"read-only", 0.0, FigureScope::kWholeMachine, {{10, 95}, {50, 121.25}, {100, 200}}, ""}};
  return m;
}

MeasuredMachine machine_b() {
  MeasuredMachine m;
  m.id = "B";
  m.spec = two_socket_skylake("B");
  m.idle_latency_ns = {{0, 0, 80, ""}, {1, 1, 80, ""}, {0, 1, 120, ""}, {1, 0, 120, ""}};
  m.bandwidth_gbps = {{0, 0, 56, ""}, {1, 1, 56, ""}};
  return m;
}

MeasuredMachine machine_c() {
  MeasuredMachine m;
  m.id = "C";
  SpecSheet s = two_socket_skylake("C");
  s.sockets = 1;
  s.socket_links.reset();
  s.socket.generation = "sapphire-rapids";
  s.socket.dies = {{5, {}, 1}, {5, {}, 1}};
  s.socket.memory = {SpecMemoryKind::kDdr5, 4, 4800.0, 1, 64LL << 30};
  s.mode = NumaMode{NumaMode::Scheme::kSnc, 2};
  m.spec = s;
  m.idle_latency_ns = {{0, 0, 100, ""}, {1, 1, 100, ""}, {0, 1, 120, ""}, {1, 0, 124, ""}};
  return m;
}

TEST(SpecRuleFitTest, ToyCorpusGivesTheHandWorkedRules) {
  const MeasuredMachine a = machine_a();
  const MeasuredMachine b = machine_b();
  const MeasuredMachine c = machine_c();
  const SpecRules r = fit_spec_rules({&a, &b, &c}, default_spec_rules());

  EXPECT_NEAR(r.die_step_ns.value, 22.0, 1e-9);
  EXPECT_NEAR(r.die_step_ns.low, 20.0, 1e-9);
  EXPECT_NEAR(r.die_step_ns.high, 24.0, 1e-9);

  const GenerationRules& skx = r.generations.at("skylake-sp");
  ASSERT_TRUE(skx.domain_latency_ns && skx.socket_step_ns && skx.lines_in_flight);
  EXPECT_NEAR(skx.domain_latency_ns->value, 86.0, 1e-9);
  EXPECT_NEAR(skx.domain_latency_ns->low, 80.0, 1e-9);
  EXPECT_NEAR(skx.domain_latency_ns->high, 94.0, 1e-9);
  EXPECT_NEAR(skx.socket_step_ns->value, 45.0, 1e-9);
  EXPECT_NEAR(skx.socket_step_ns->low, 40.0, 1e-9);
  EXPECT_NEAR(skx.socket_step_ns->high, 52.0, 1e-9);
  EXPECT_NEAR(skx.lines_in_flight->value, 15.625, 1e-9);  // only A has a curve

  const GenerationRules& spr = r.generations.at("sapphire-rapids");
  ASSERT_TRUE(spr.domain_latency_ns);
  EXPECT_NEAR(spr.domain_latency_ns->value, 100.0, 1e-9);
  EXPECT_FALSE(spr.socket_step_ns);  // one socket: nothing to fit; the Deriver transfers
  EXPECT_FALSE(r.generations.at("ice-lake-sp").domain_latency_ns);

  const RuleValue& ddr4 = r.dram_read_efficiency.at(SpecMemoryKind::kDdr4);
  EXPECT_NEAR(ddr4.value, 0.828125, 1e-12);
  EXPECT_NEAR(ddr4.low, 0.75, 1e-12);
  EXPECT_NEAR(ddr4.high, 0.875, 1e-12);
  const RuleValue& ddr5 = r.dram_read_efficiency.at(SpecMemoryKind::kDdr5);
  EXPECT_NEAR(ddr5.value, 0.828125, 1e-12);
  EXPECT_NE(ddr5.basis.find("no ddr5 machine"), std::string::npos) << ddr5.basis;

  const RuleValue& tau = r.write_turnaround.at(SpecMemoryKind::kDdr4);
  EXPECT_NEAR(tau.value, (0.5 + 0.4 / 0.9) / 2.0, 1e-12);
  EXPECT_NEAR(tau.low, 0.4 / 0.9, 1e-12);
  EXPECT_NEAR(tau.high, 0.5, 1e-12);

  const RuleValue& upi = r.link_efficiency.at("upi");
  EXPECT_NEAR(upi.value, 0.8, 1e-12);
  EXPECT_NEAR(upi.low, 0.75, 1e-12);
  EXPECT_NEAR(upi.high, 0.85, 1e-12);
  EXPECT_NE(r.link_efficiency.at("qpi").basis.find("no qpi machine"), std::string::npos);

  EXPECT_NEAR(r.queue_exponent.value, 2.0, 1e-9);
  // Nothing measures CXL or HBM: carried, and said so.
  EXPECT_NE(r.hbm_latency_factor.basis.find("not fitted"), std::string::npos);
}

TEST(SpecRuleFitTest, MachinesWithoutASpecSheetAreSkipped) {
  MeasuredMachine a = machine_a();
  MeasuredMachine blank;
  blank.id = "no sheet";
  blank.idle_latency_ns = {{0, 0, 1000, ""}};
  const SpecRules with = fit_spec_rules({&a, &blank}, default_spec_rules());
  const SpecRules without = fit_spec_rules({&a}, default_spec_rules());
  EXPECT_EQ(with, without);
  EXPECT_NEAR(with.generations.at("skylake-sp").domain_latency_ns->value, 92.0, 1e-9);
}

TEST(SpecRuleFitTest, AGenerationWithNoMachineTransfersFromTheNearestFitted) {
  MeasuredMachine a = machine_a();
  const SpecRules r = fit_spec_rules({&a}, default_spec_rules());
  // Cascade Lake (order 8) borrows Skylake's (order 7) D = 92 with the Intel range [90, 94].
  const auto f = generation_figure(r, "cascade-lake-sp", SpecVendor::kIntel, &GenerationRules::domain_latency_ns);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->transferred);
  EXPECT_EQ(f->from_generation, "skylake-sp");
  EXPECT_NEAR(f->value.value, 92.0, 1e-9);
  EXPECT_NEAR(f->value.low, 90.0, 1e-9);
  EXPECT_NEAR(f->value.high, 94.0, 1e-9);
}

}  // namespace
}  // namespace numatwin::model
