#include "numatwin/model/spec_sheet.hpp"

#include <numeric>
#include <stdexcept>
#include <vector>

namespace numatwin::model {

namespace {

struct KindName {
  SpecMemoryKind kind;
  const char* name;
};
constexpr KindName kKindNames[] = {{SpecMemoryKind::kDdr3, "ddr3"},       {SpecMemoryKind::kDdr4, "ddr4"},       {SpecMemoryKind::kDdr5, "ddr5"},
                                   {SpecMemoryKind::kMrdimm, "mrdimm"},   {SpecMemoryKind::kLpddr5x, "lpddr5x"},
                                   {SpecMemoryKind::kHbm2e, "hbm2e"},     {SpecMemoryKind::kHbm3, "hbm3"}};

std::string str(int value) { return std::to_string(value); }

}  // namespace

std::string spec_memory_kind_name(SpecMemoryKind kind) {
  for (const auto& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "?";
}

SpecMemoryKind parse_spec_memory_kind(const std::string& name) {
  for (const auto& k : kKindNames) {
    if (name == k.name) return k.kind;
  }
  throw std::invalid_argument("one of ddr3, ddr4, ddr5, mrdimm, lpddr5x, hbm2e, hbm3, got \"" + name + "\"");
}

bool is_hbm(SpecMemoryKind kind) { return kind == SpecMemoryKind::kHbm2e || kind == SpecMemoryKind::kHbm3; }

std::string spec_vendor_name(SpecVendor vendor) {
  switch (vendor) {
    case SpecVendor::kIntel: return "intel";
    case SpecVendor::kAmd: return "amd";
    case SpecVendor::kNvidia: return "nvidia";
  }
  return "?";
}

NumaMode parse_numa_mode(const std::string& text) {
  const std::string accepted = "snc-off, snc1, snc2, snc3, snc4, nps0, nps1, nps2 or nps4";
  if (text == "snc-off") return {NumaMode::Scheme::kSnc, 1};
  if (text.size() == 4 && (text.rfind("snc", 0) == 0 || text.rfind("nps", 0) == 0)) {
    const bool snc = text[0] == 's';
    const int n = text[3] - '0';
    if (snc && n >= 1 && n <= 4) return {NumaMode::Scheme::kSnc, n};
    if (!snc && (n == 0 || n == 1 || n == 2 || n == 4)) return {NumaMode::Scheme::kNps, n};
  }
  throw std::invalid_argument("a NUMA mode (" + accepted + "), got \"" + text + "\"");
}

std::string numa_mode_name(const NumaMode& mode) {
  return (mode.scheme == NumaMode::Scheme::kSnc ? "snc" : "nps") + str(mode.nodes_per_socket);
}

double theoretical_dram_gbps(const MemorySpec& memory) { return memory.channels * memory.mts * 8.0 / 1000.0; }

double theoretical_link_gbps(const LinkSpec& link) {
  if (link.gbps_per_direction) return *link.gbps_per_direction;
  return link.count * link.gts.value_or(0.0) * link.bytes_per_transfer;
}

double pcie_lane_gbps(int generation) {
  switch (generation) {
    case 3: return 8.0 / 8.0 * 128.0 / 130.0;
    case 4: return 16.0 / 8.0 * 128.0 / 130.0;
    case 5: return 32.0 / 8.0 * 128.0 / 130.0;
    case 6: return 64.0 / 8.0 * 242.0 / 256.0;
    default: throw std::invalid_argument("a PCIe generation from 3 to 6, got " + str(generation));
  }
}

namespace {

std::optional<SpecProblem> check_socket(const SpecSheet& spec, const NumaMode& mode) {
  const SocketSpec& s = spec.socket;
  if (!s.dies.empty()) {
    const int die_cores =
        std::accumulate(s.dies.begin(), s.dies.end(), 0, [](int sum, const DieSpec& d) { return sum + d.cores; });
    if (die_cores != s.cores) {
      return SpecProblem{"/socket/dies", "cores that add up to /socket/cores (" + str(s.cores) + "); the dies have " +
                                             str(die_cores)};
    }
    bool some_l3 = false;
    for (const DieSpec& d : s.dies) some_l3 = some_l3 || d.l3_bytes.has_value();
    if (!some_l3 && !s.l3_bytes) {
      return SpecProblem{"/socket", "an l3_bytes per socket or per die"};
    }
  } else if (!s.l3_bytes) {
    return SpecProblem{"/socket/l3_bytes", "the socket's L3 (there are no dies to give theirs)"};
  }
  const int nodes = mode.nodes_per_socket;
  if (nodes > 1 && s.memory.channels % nodes != 0) {
    return SpecProblem{"/socket/memory/channels", str(s.memory.channels) + " channels cannot be split evenly over the " +
                                                      str(nodes) + " nodes per socket of " + numa_mode_name(mode)};
  }
  if (nodes > 1 && s.cores < nodes) {
    return SpecProblem{"/socket/cores", "at least one core per node of " + numa_mode_name(mode)};
  }
  if (spec.hbm_mode && !s.hbm) return SpecProblem{"/hbm_mode", "a /socket/hbm for the HBM mode to apply to"};
  if (s.hbm && !spec.hbm_mode) return SpecProblem{"/socket/hbm", "an /hbm_mode (\"flat\" or \"cache\") with it"};
  return std::nullopt;
}

std::optional<SpecProblem> check_mode(const SpecSheet& spec, const NumaMode& mode) {
  const bool amd = spec.vendor == SpecVendor::kAmd;
  if (amd && mode.scheme == NumaMode::Scheme::kSnc && mode.nodes_per_socket > 1) {
    return SpecProblem{"/mode", "an NPS mode for an AMD part (nps0, nps1, nps2, nps4), got " + numa_mode_name(mode)};
  }
  if (!amd && mode.scheme == NumaMode::Scheme::kNps && mode.nodes_per_socket != 1) {
    return SpecProblem{"/mode", "an SNC mode for a " + spec_vendor_name(spec.vendor) + " part, got " +
                                    numa_mode_name(mode)};
  }
  if (mode.scheme == NumaMode::Scheme::kNps && mode.nodes_per_socket == 0) {
    return SpecProblem{"/mode", "nps0 (one node interleaved over both sockets) is not derived: no rule here "
                                "spreads one node's accesses over two sockets' controllers and the link"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<SpecProblem> check_spec_sheet(const SpecSheet& spec, const NumaMode& mode) {
  if (auto p = check_mode(spec, mode)) return p;
  if (auto p = check_socket(spec, mode)) return p;
  if (spec.sockets > 1 && !spec.socket_links) {
    return SpecProblem{"/socket_links", "the links between sockets for a " + str(spec.sockets) + "-socket machine"};
  }
  if (spec.socket_links && theoretical_link_gbps(*spec.socket_links) <= 0.0) {
    return SpecProblem{"/socket_links", "a rate: gts (with count) or gbps_per_direction"};
  }
  std::vector<int> devices(static_cast<std::size_t>(spec.sockets), 0);
  for (std::size_t i = 0; i < spec.cxl_devices.size(); ++i) {
    const CxlDeviceSpec& c = spec.cxl_devices[i];
    if (c.socket >= spec.sockets) {
      return SpecProblem{"/cxl_devices/" + std::to_string(i) + "/socket",
                         "a socket of this machine (0.." + str(spec.sockets - 1) + ")"};
    }
    // A socket's PCIe lanes bound its devices (128 lanes of x4 devices: 32).
    if ((devices[static_cast<std::size_t>(c.socket)] += c.count) > 32) {
      return SpecProblem{"/cxl_devices/" + std::to_string(i) + "/count",
                         "at most 32 CXL devices on one socket (its PCIe lanes), got " +
                             str(devices[static_cast<std::size_t>(c.socket)])};
    }
  }
  if (spec.accelerators.size() > 8) {
    return SpecProblem{"/accelerators", "at most 8 coherent accelerators"};
  }
  for (std::size_t i = 0; i < spec.accelerators.size(); ++i) {
    const AcceleratorSpec& a = spec.accelerators[i];
    const std::string at = "/accelerators/" + std::to_string(i);
    if (a.socket >= spec.sockets) {
      return SpecProblem{at + "/socket", "a socket of this machine (0.." + str(spec.sockets - 1) + ")"};
    }
    if (theoretical_link_gbps(a.link) <= 0.0) return SpecProblem{at + "/link", "a rate: gts or gbps_per_direction"};
  }
  return std::nullopt;
}

}  // namespace numatwin::model
