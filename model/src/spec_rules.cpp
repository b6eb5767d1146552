#include "numatwin/model/spec_rules.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace numatwin::model {

namespace {

// Sources of the fitted machines (each figure below is worked from them):
//   skx  = ../shared/data/mlc/skx-2x8180-mlc-v3.5.txt (2 x Xeon Platinum 8180: 28 cores, 1 die,
//          6 x DDR4-2666, 3 UPI at 10.4 GT/s; FD.io CSIT calibration page, mlc v3.5)
//   gnr  = ../shared/data/mlc/xeon-6980p-2s-snc-off-mlc-v3.11b.txt (2 x Xeon 6980P, SNC off:
//          128 cores in 3 dies, 12 channels, taken as DDR5-6400 (the post does not say), 6 UPI at
//          24 GT/s; ik_llama.cpp discussion 201, mlc v3.11b)
//   spr  = Xeon CPU Max 9462 lab notes (../shared/docs/machines-2026.md: 32 cores in 4 tiles,
//          8 x DDR5-4800, 3 UPI at 16 GT/s, HBM flat, SNC off)
//   emr  = Xeon Gold 6548Y+ lab notes (machines-2026.md: 8 x DDR5-5200; UPI count unknown)
//   gen  = EPYC 9354P lab notes (machines-2026.md: 32 cores in 8 CCDs, 12 x DDR5-4800)
constexpr const char* kSkx = "skx-8180-2s (mlc v3.5)";
constexpr const char* kGnr = "xeon-6980p-2s SNC off (mlc v3.11b)";
constexpr const char* kSpr = "xeon-max-9462-2s (lab notes)";
constexpr const char* kGen = "epyc-9354p NPS1/NPS4 (lab notes)";

// s: one quadrant step, from the 9354P in NPS4: local 104.6-106.5 ns (mean 105.55), another
// quadrant 112.9-118.6 (mean 115.75): s = 10.2, range [112.9 - 106.5, 118.6 - 104.6]. (Its NPS1
// figure, 113.0 ns, is left out of the fit and checks the rule: 105.55 + 3/4 x 10.2 = 113.2.)
constexpr double kStep = 115.75 - 105.55;
constexpr double kStepLow = 112.9 - 106.5;
constexpr double kStepHigh = 118.6 - 104.6;

// D_gen from a node's measured local latency L over dies a mean of m steps apart:
// D = L - m s, its range from s's.
RuleValue domain_from(double local_ns, double mean_steps, const std::string& basis) {
  return {local_ns - mean_steps * kStep, local_ns - mean_steps * kStepHigh, local_ns - mean_steps * kStepLow,
          "fitted on " + basis + ": " + std::to_string(local_ns).substr(0, 6) + " ns local less " +
              std::to_string(mean_steps).substr(0, 5) + " die steps"};
}

std::map<std::string, GenerationRules> generations() {
  using V = SpecVendor;
  std::map<std::string, GenerationRules> g;
  // Release order within each vendor (for transfers); figures only where a machine measured them.
  const std::pair<const char*, int> intel[] = {{"nehalem-ex", 1},      {"westmere-ex", 2},      {"sandy-bridge-ep", 3},
                                               {"ivy-bridge-ex", 4},   {"ivy-bridge-ep", 4},    {"haswell-ep", 5},
                                               {"broadwell-ex", 6},    {"broadwell-ep", 6},
                                               {"skylake-sp", 7},      {"cascade-lake-sp", 8},  {"ice-lake-sp", 9},
                                               {"sapphire-rapids", 10}, {"emerald-rapids", 11}, {"granite-rapids", 12}};
  for (const auto& [name, order] : intel) g[name] = GenerationRules{V::kIntel, order, {}, {}, {}, {}};
  const std::pair<const char*, int> amd[] = {{"naples", 1}, {"rome", 2}, {"milan", 3}, {"genoa", 4}, {"turin", 5}};
  for (const auto& [name, order] : amd) g[name] = GenerationRules{V::kAmd, order, {}, {}, {}, {}};
  g["grace"] = GenerationRules{V::kNvidia, 1, {}, {}, {}, {}};

  // Skylake-SP: one die, so D = the local latency, mean of 81.4 and 81.3 ns; remote 131.1 both
  // ways: X = 131.1 - 81.35. Loaded: 282.66 ns at 215.71 GB/s (both sockets) with 28 cores a
  // socket: M = 282.66e-9 x 107.86e9 / (28 x 64) = 17.01.
  g["skylake-sp"].domain_latency_ns = RuleValue{81.35, 81.3, 81.4, std::string("fitted on ") + kSkx};
  g["skylake-sp"].socket_step_ns = RuleValue{49.75, 49.7, 49.8, std::string("fitted on ") + kSkx};
  g["skylake-sp"].lines_in_flight = RuleValue{17.01, 17.01, 17.01, std::string("fitted on ") + kSkx + ", Little's law at delay 0"};
  // Sapphire Rapids: 4 tiles in a 2 x 2 grid, SNC off: mean 1 step; local DDR 111.3 / 110.8, remote
  // 238.6 / 239.8: X = 127.3 and 129.0. Local DDR 237 GB/s at 278 ns, 32 cores: M = 32.2.
  g["sapphire-rapids"].domain_latency_ns = domain_from(111.05, 1.0, kSpr);
  g["sapphire-rapids"].socket_step_ns = RuleValue{128.15, 127.3, 129.0, std::string("fitted on ") + kSpr};
  g["sapphire-rapids"].lines_in_flight = RuleValue{32.17, 32.17, 32.17, std::string("fitted on ") + kSpr + ", Little's law at 237 GB/s"};
  // Granite Rapids: 3 dies in a row (positions 0, 1, 2), SNC off: mean 8/9 steps; local 130.7 /
  // 129.4, remote 449.2 / 410.0: X = 299.55 in [410.0 - 130.7, 449.2 - 129.4]. Loaded: 357.28 ns
  // at 1106.97 GB/s, 128 cores a socket: M = 357.28e-9 x 553.48e9 / (128 x 64) = 24.14.
  g["granite-rapids"].domain_latency_ns = domain_from(130.05, 8.0 / 9.0, kGnr);
  g["granite-rapids"].socket_step_ns = RuleValue{299.55, 279.3, 319.8, std::string("fitted on ") + kGnr};
  g["granite-rapids"].lines_in_flight = RuleValue{24.14, 24.14, 24.14, std::string("fitted on ") + kGnr + ", Little's law at delay 0"};
  // Genoa: NPS4 local latency (one quadrant: no step), 104.6-106.5 ns. GMI: 4 CCDs read 199.7
  // GB/s, 49.9 GB/s each ("about 50 GB/s" in the notes: range 5 % either side).
  g["genoa"].domain_latency_ns = RuleValue{105.55, 104.6, 106.5, std::string("fitted on ") + kGen + ", NPS4 local"};
  // One Genoa thread reads 25 GB/s (lab notes) at the NPS4 local 105.55 ns: 25e9 x 105.55e-9 /
  // 64 B = 41.2 lines in flight (the shipped epyc-9354p files' 41).
  g["genoa"].lines_in_flight = RuleValue{41.23, 41.23, 41.23, std::string("fitted on ") + kGen + ": one thread, 25 GB/s, Little's law"};
  g["genoa"].gmi_link_read_gbps = RuleValue{49.9, 47.4, 52.4, std::string("fitted on ") + kGen + ": 199.7 GB/s over 4 CCDs"};
  return g;
}

// No generation of the vendor has the figure: the middle of every vendor's values, with their
// whole range, said so; nullopt when no generation at all has it.
std::optional<GenerationFigure> whole_corpus(const SpecRules& rules, SpecVendor vendor, GenerationField field) {
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  std::vector<double> values;
  for (const auto& [name, g] : rules.generations) {
    if (!(g.*field).has_value()) continue;
    values.push_back((g.*field)->value);
    low = std::min(low, (g.*field)->low);
    high = std::max(high, (g.*field)->high);
  }
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  return GenerationFigure{RuleValue{median, low, high,
                                    "no " + spec_vendor_name(vendor) +
                                        " machine in the corpus: the median and range of every generation's"},
                          "", true};
}

}  // namespace

SpecRules default_spec_rules() {
  SpecRules r;
  r.generations = generations();
  // eta: all-core local read / theoretical. DDR4: skx 108.07 / (6 x 2666 x 8 B = 127.97) = 0.8445,
  // the one DDR4 machine, so its range is that of every DRAM machine. DDR5: emr 250.8 / 332.8 =
  // 0.7536, gen (NPS1) 352.6 / 460.8 = 0.7652, spr 237 / 307.2 = 0.7715, gnr 553.6 / 614.4 =
  // 0.9011: the median and the extremes.
  r.dram_read_efficiency[SpecMemoryKind::kDdr4] =
      RuleValue{0.8445, 0.7536, 0.9011, std::string("fitted on ") + kSkx + "; range of all DRAM machines"};
  const RuleValue ddr5{0.76835, 0.7536, 0.9011,
                       std::string("median over ") + kGnr + ", " + kSpr + ", " + kGen + ", xeon-gold-6548y-2s (lab notes)"};
  r.dram_read_efficiency[SpecMemoryKind::kDdr5] = ddr5;
  r.dram_read_efficiency[SpecMemoryKind::kMrdimm] = RuleValue{ddr5.value, 0.6, ddr5.high, "DDR5's, no MRDIMM machine measured: range widened to 0.6"};
  r.dram_read_efficiency[SpecMemoryKind::kLpddr5x] = RuleValue{ddr5.value, 0.6, ddr5.high, "DDR5's, no LPDDR5X machine measured: range widened to 0.6"};
  // tau: C / (1 + tau w). skx: 3:1 (w 1/4) 0.738, 2:1 (1/3) 0.623, 1:1 (1/2) 0.878, triad (1/3)
  // 1.057: median 0.808. gnr: 0.560, 0.537, 0.388, 0.618: median 0.548.
  r.write_turnaround[SpecMemoryKind::kDdr4] = RuleValue{0.808, 0.623, 1.057, std::string("fitted on ") + kSkx + " peak injection mixes"};
  r.write_turnaround[SpecMemoryKind::kDdr5] = RuleValue{0.548, 0.388, 0.618, std::string("fitted on ") + kGnr + " peak injection mixes"};
  r.die_step_ns = RuleValue{kStep, kStepLow, kStepHigh, std::string("fitted on ") + kGen + ": NPS4 other quadrant less local"};
  // Socket links: skx 50.89 / (3 x 10.4 x 2) = 0.8156, spr 92 / (3 x 16 x 2) = 0.9583, gnr 247.54
  // / (6 x 24 x 2) = 0.8595.
  const RuleValue upi{0.8595, 0.8156, 0.9583, std::string("median over ") + kSkx + ", " + kSpr + ", " + kGnr};
  r.link_efficiency["upi"] = upi;
  r.link_efficiency["qpi"] = RuleValue{upi.value, upi.low, upi.high, "UPI's: no QPI machine measured"};
  r.link_efficiency["xgmi"] = RuleValue{upi.value, upi.low, upi.high, "UPI's: no xGMI machine measured"};
  r.link_efficiency["infinity-fabric"] = r.link_efficiency["xgmi"];
  r.link_efficiency["nvlink-c2c"] = RuleValue{upi.value, 0.6, upi.high, "UPI's, no NVLink-C2C machine measured: range widened to 0.6"};
  r.queue_exponent = RuleValue{4.0, 2.0, 6.0, "bandwidth_model.hpp: kept at 4 over the skx loaded-latency sweep"};
  r.pcie_efficiency = RuleValue{0.8, 0.7, 0.9, "assumed (no CXL device in the corpus): CXL.mem flit and header overhead"};
  // CXL-DMSim (arXiv 2411.02282): bandwidth 82-83 % (ASIC) and 45-69 % (FPGA) of local DDR;
  // latency 2.18x (ASIC) and 2.88x (FPGA) local DDR; Melody (ASPLOS 2025): 140-410 ns over four
  // devices, which with a 110 ns local DDR spans 1.3x-3.7x.
  r.cxl_bandwidth_factor["asic"] = RuleValue{0.825, 0.82, 0.83, "CXL-DMSim (arXiv 2411.02282): 82-83 % of local DDR"};
  r.cxl_bandwidth_factor["fpga"] = RuleValue{0.57, 0.45, 0.69, "CXL-DMSim (arXiv 2411.02282): 45-69 % of local DDR"};
  r.cxl_latency_factor["asic"] = RuleValue{2.18, 1.3, 2.88, "CXL-DMSim 2.18x local DDR; Melody (ASPLOS 2025) 140-410 ns"};
  r.cxl_latency_factor["fpga"] = RuleValue{2.88, 2.18, 3.7, "CXL-DMSim 2.88x local DDR; Melody (ASPLOS 2025) 140-410 ns"};
  r.hbm_read_efficiency = RuleValue{0.5, 0.3, 0.8, "not fitted: no corpus machine gives a sourced theoretical HBM rate"};
  // spr: HBM 137.7 / DDR 111.3 = 1.237 (socket 0), 136.2 / 110.8 = 1.229 (socket 1).
  r.hbm_latency_factor = RuleValue{1.233, 1.229, 1.237, std::string("fitted on ") + kSpr};
  return r;
}

std::optional<GenerationFigure> generation_figure(const SpecRules& rules, const std::string& generation,
                                                  SpecVendor vendor, GenerationField field) {
  const auto own = rules.generations.find(generation);
  if (own != rules.generations.end() && (own->second.*field).has_value()) {
    return GenerationFigure{*(own->second.*field), generation, false};
  }
  const int order = own == rules.generations.end() ? std::numeric_limits<int>::max() : own->second.order;
  const GenerationRules* nearest = nullptr;
  std::string nearest_name;
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  for (const auto& [name, g] : rules.generations) {
    if (g.vendor != vendor || !(g.*field).has_value()) continue;
    low = std::min(low, (g.*field)->low);
    high = std::max(high, (g.*field)->high);
    const auto distance = [&](const GenerationRules& x) {
      return order == std::numeric_limits<int>::max() ? -x.order : std::abs(x.order - order) * 2 + (x.order > order);
    };
    if (nearest == nullptr || distance(g) < distance(*nearest)) {
      nearest = &g;
      nearest_name = name;
    }
  }
  if (nearest == nullptr) return whole_corpus(rules, vendor, field);
  RuleValue v = *(nearest->*field);
  v.low = low;
  v.high = high;
  v.basis = "transferred from " + nearest_name + " (" + v.basis + "); range of every fitted " +
            spec_vendor_name(vendor) + " generation";
  return GenerationFigure{v, nearest_name, true};
}

}  // namespace numatwin::model
