#include "run/tlb_measure.hpp"

#include <fmt/format.h>

#include "numatwin/model/tlb.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/measure/machine_measurement.hpp"
#include "numatwin/validate/measure/tlb_microbenchmark.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace numatwin::cli {

std::optional<nlohmann::json> measure_tlb(bool quick, const std::atomic<bool>* stop) {
  const validate::DiscoveredMachine machine = validate::discover_machine();
  const validate::TopologySkeleton skeleton = validate::make_topology_skeleton(machine, "this-machine");
  const validate::HostMap host = validate::map_this_host(skeleton.topology);
  validate::TlbBenchmarkOptions options;
  options.quick = quick;
  options.cpu = host.node_cpus.empty() || host.node_cpus.front().empty() ? -1 : host.node_cpus.front().front();
  options.stop = stop;
  const std::optional<validate::TlbTimings> timings = validate::run_tlb_microbenchmark(options);
  if (!timings) return std::nullopt;
  // The figures: the defaults, with the entries CPUID gives when it gives them.
  model::TlbFigures figures;
  if (timings->cpuid) {
    figures.l1_entries_4k = timings->cpuid->l1_entries_4k;
    figures.l1_entries_2m = timings->cpuid->l1_entries_2m;
    figures.stlb_entries_4k = timings->cpuid->stlb_entries_4k;
    figures.stlb_entries_2m = timings->cpuid->stlb_entries_2m;
  }
  const validate::PageWalkDerivation d = validate::derive_page_walk(*timings, figures);
  const nlohmann::ordered_json state = validate::host_state();
  nlohmann::json section = validate::tlb_section_json(*timings, d, figures, state.value("hostname", std::string("this host")));
  section["measured_at"] = validate::iso_time_now();
  section["thp_enabled"] = state.value("thp_enabled", std::string());
  section["thp_defrag"] = state.value("thp_defrag", std::string());
  return section;
}

std::string tlb_text(const nlohmann::json& s) {
  std::string out = fmt::format("\nTLB (dependent random loads over {:.0f} MiB on CPU {}; transparent_hugepage enabled [{}], defrag [{}]):\n",
                                s["footprint_bytes"].get<double>() / 1048576.0, s["cpu"].get<int>(),
                                s.value("thp_enabled", std::string()), s.value("thp_defrag", std::string()));
  for (const char* key : {"walk_4k", "walk_2m", "walk_4k_16_chains", "walk_2m_16_chains"}) {
    if (!s.contains(key)) continue;
    const nlohmann::json& w = s[key];
    const std::string k = key;
    out += fmt::format("  {} pages{}: {:.1f} ns per load ({:.1f} .. {:.1f}), {} on huge pages\n", k[5] == '4' ? "4 KiB" : "2 MiB",
                       k.size() > 7 ? ", 16 independent chains" : ", one chain",
                       w["median_ns"].get<double>(), w["low_ns"].get<double>(), w["high_ns"].get<double>(),
                       w.contains("huge_page_share") ? fmt::format("{:.0f} %", 100.0 * w["huge_page_share"].get<double>())
                                                     : std::string("unknown share"));
  }
  const nlohmann::json& m = s["miss_ratios"];
  out += fmt::format("  model miss ratios: 4 KiB L1 {:.3f}, STLB {:.3f}; 2 MiB L1 {:.3f}, STLB {:.3f} ({})\n", m["m1_4k"].get<double>(),
                     m["m2_4k"].get<double>(), m["m1_2m"].get<double>(), m["m2_2m"].get<double>(),
                     s["hardware_counters"].get<std::string>());
  if (s.contains("page_walk_ns_4k")) {
    const nlohmann::json& w = s["page_walk_ns_4k"];
    out += fmt::format("  page walk (4 KiB): {:.1f} ns ({:.1f} .. {:.1f}): {}\n", w["value"].get<double>(), w["low"].get<double>(),
                       w["high"].get<double>(), w["derivation"].get<std::string>());
  } else {
    out += "  page walk (4 KiB): not derived: " + s["page_walk_ns_4k_not_derived"].get<std::string>() + "\n";
  }
  if (s.contains("concurrent_walks")) {
    const nlohmann::json& w = s["concurrent_walks"];
    out += fmt::format("  walks in flight: {:.2f} ({:.2f} .. {:.2f}): {}\n", w["value"].get<double>(), w["low"].get<double>(),
                       w["high"].get<double>(), w["derivation"].get<std::string>());
  } else if (s.contains("concurrent_walks_not_derived")) {
    out += "  walks in flight: " + s["concurrent_walks_not_derived"].get<std::string>() + "\n";
  }
  if (s.contains("topology_tlb")) out += "  for the topology's /tlb: " + s["topology_tlb"].dump() + "\n";
  return out;
}

}  // namespace numatwin::cli
