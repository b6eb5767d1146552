// The rules that turn a spec sheet into machine figures, and the figures they rest on. Each rule
// parameter is a value with a range and its basis: fitted on named measured machines, or taken
// from a named publication. spec_derivation.hpp applies them; a generation with no fitted value
// borrows the nearest generation of its vendor and widens the range (a transfer, said as such).
//
// ── The rules (v1) ───────────────────────────────────────────────────────────────────────────
// DRAM read bandwidth of a node with c channels of rate R:   C = eta_kind * c * R * 8 B
//   (eta_kind: all-core local read over theoretical, the median over the fitted machines).
// AMD: a node's cores reach memory through their CCDs' links to the IO die:
//   C <= sum over the node's CCDs of gmi_links * G_gen            (G_gen: read GB/s per GMI link)
// Idle latency from a core on die i to memory interleaved over the dies J of a node:
//   L(i, J) = D_gen + s * mean_{j in J} |p_i - p_j|     (D_gen: to the core's own die or quadrant;
//   s: one die (quadrant) step; p: die positions along the package, quadrants all one step apart)
//   and a node's local latency is the mean of L(i, J) over its cores' dies i.
//   Across sockets: + X_gen (the socket step; the far home's directory or snoop included).
// Loaded latency (Little's law at saturation): n cores of M_gen lines in flight each saturate
//   a controller of capacity C at L_sat = n M S / C, so the model's queue term at u = 1 is
//   Q_mem = n M S / C - L_idle (and miss_buffers_per_core = M_gen).
// Peak bandwidth of a read/write mix with write fraction w of the bytes: C / (1 + tau_kind w)
//   (a write costs its own transfer plus the bus turnaround; tau fitted per memory kind).
// Socket links: eta_link * count * GT/s * bytes per transfer, per direction.
// CXL Type-3: min(eta_pcie * lanes * lane rate, eta_kind * media channels * R * 8 B * k_ctrl);
//   idle latency: local DDR latency * f_ctrl (ASIC or FPGA, CXL-DMSim).
// A coherent accelerator's memory: the link (eta_link of its kind) and eta_hbm * HBM; latency:
//   local + a step no corpus machine measures (the range of the socket steps, said so).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/spec_sheet.hpp"

namespace numatwin::model {

struct RuleValue {
  double value = 0.0;
  double low = 0.0;
  double high = 0.0;
  std::string basis;  // "fitted on skx-8180-2s (mlc v3.5)", "CXL-DMSim, arXiv 2411.02282"

  bool operator==(const RuleValue&) const = default;
};

// What the measured machines of one processor generation fix.
struct GenerationRules {
  SpecVendor vendor = SpecVendor::kIntel;
  int order = 0;  // release order within the vendor, for transfers to the nearest generation
  std::optional<RuleValue> domain_latency_ns;  // D_gen
  std::optional<RuleValue> socket_step_ns;     // X_gen
  std::optional<RuleValue> lines_in_flight;    // M_gen, per core
  std::optional<RuleValue> gmi_link_read_gbps; // G_gen (AMD)

  bool operator==(const GenerationRules&) const = default;
};

struct SpecRules {
  std::map<std::string, GenerationRules> generations;
  std::map<SpecMemoryKind, RuleValue> dram_read_efficiency;  // eta_kind
  std::map<SpecMemoryKind, RuleValue> write_turnaround;      // tau_kind
  RuleValue die_step_ns;                                     // s
  std::map<std::string, RuleValue> link_efficiency;          // eta_link by link kind
  RuleValue queue_exponent;                                  // the model's e (bandwidth_model.hpp)
  RuleValue pcie_efficiency;                                 // eta_pcie for CXL.mem reads
  std::map<std::string, RuleValue> cxl_bandwidth_factor;     // k_ctrl by controller
  std::map<std::string, RuleValue> cxl_latency_factor;       // f_ctrl by controller
  RuleValue hbm_read_efficiency;                             // eta_hbm
  RuleValue hbm_latency_factor;                              // HBM idle latency / DDR idle latency

  bool operator==(const SpecRules&) const = default;
};

// The rules as fitted on the measured machines each basis names (model/src/spec_rules.cpp
// works every value out from its measurement).
SpecRules default_spec_rules();

// A generation's figure, or the nearest same-vendor generation's (by release order, the older
// one first on a tie) with its range widened to every fitted generation of the vendor, or, when
// no generation of the vendor has one, the median and range of every generation's (all three
// said in the basis); nullopt only when no generation at all has it. `transferred_from` names the generation used when
// it is not `generation` itself.
struct GenerationFigure {
  RuleValue value;
  std::string from_generation;
  bool transferred = false;
};
using GenerationField = std::optional<RuleValue> GenerationRules::*;
std::optional<GenerationFigure> generation_figure(const SpecRules& rules, const std::string& generation,
                                                  SpecVendor vendor, GenerationField field);

}  // namespace numatwin::model
