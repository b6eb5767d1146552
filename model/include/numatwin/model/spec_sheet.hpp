// A machine as a buyer sees it, before anyone has measured it: sockets, cores and their dies,
// caches, memory channels and their rate, the NUMA mode the BIOS offers, socket links, CXL
// expanders and coherent accelerators (docs/spec-sheet.md; JSON reader in spec_sheet_json.hpp).
// spec_derivation.hpp turns it into a Topology by rules whose every figure names its basis.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace numatwin::model {

enum class SpecVendor { kIntel, kAmd, kNvidia };

// The memory a channel or a stack carries. MRDIMM counts as DDR5 for the DRAM rules (its MT/s
// is the host-side rate).
enum class SpecMemoryKind { kDdr3, kDdr4, kDdr5, kMrdimm, kLpddr5x, kHbm2e, kHbm3 };

// How the BIOS splits a socket into NUMA nodes: Intel's sub-NUMA clustering (SNC 1 = off) or
// AMD's nodes per socket (NPS 1/2/4; NPS 0 interleaves over both sockets). Written "snc3",
// "nps4"; "snc-off" is "snc1".
struct NumaMode {
  enum class Scheme { kSnc, kNps };
  Scheme scheme = Scheme::kSnc;
  int nodes_per_socket = 1;  // SNC 1..4, NPS 0 (then 0), 1, 2, 4

  bool operator==(const NumaMode&) const = default;
};

// What an HBM socket does with its HBM: its own CPU-less NUMA node (flat) or a memory-side
// cache in front of DDR (cache).
enum class HbmMode { kFlat, kCache };

// A compute die / tile (Intel) or a core complex die (AMD): its cores share the die's L3.
struct DieSpec {
  int cores = 0;
  std::optional<std::int64_t> l3_bytes;  // per die; nullopt: the socket's l3_bytes split by cores
  int gmi_links = 1;                     // AMD: links from this CCD to the IO die (2: "GMI wide")

  bool operator==(const DieSpec&) const = default;
};

struct MemorySpec {
  SpecMemoryKind kind = SpecMemoryKind::kDdr5;
  int channels = 0;  // per socket (DDR5: a 64-bit channel, as vendors count them)
  double mts = 0.0;  // mega-transfers per second
  int dimms_per_channel = 1;
  std::int64_t capacity_bytes = 0;  // per socket

  bool operator==(const MemorySpec&) const = default;
};

struct HbmSpec {
  SpecMemoryKind kind = SpecMemoryKind::kHbm2e;
  int stacks = 0;
  std::int64_t capacity_bytes = 0;  // per socket (or per accelerator)
  double bandwidth_gbps = 0.0;      // theoretical, all stacks

  bool operator==(const HbmSpec&) const = default;
};

// Links between sockets, or between a CPU and its accelerator: `count` links of `gts` GT/s
// moving `bytes_per_transfer` bytes per direction each (UPI and xGMI x16: 2), or a vendor's
// figure per direction for all of them when the rate is not stated in transfers.
struct LinkSpec {
  std::string kind;  // "qpi", "upi", "xgmi", "nvlink-c2c", "infinity-fabric"
  int count = 0;
  std::optional<double> gts;
  double bytes_per_transfer = 2.0;
  std::optional<double> gbps_per_direction;  // all links together

  bool operator==(const LinkSpec&) const = default;
};

// A CXL Type-3 memory expander on a socket's PCIe lanes.
struct CxlDeviceSpec {
  int socket = 0;
  int pcie_generation = 5;  // 5 (32 GT/s per lane) or 6 (64 GT/s)
  int lanes = 8;
  SpecMemoryKind media = SpecMemoryKind::kDdr5;
  int media_channels = 1;
  double media_mts = 4800.0;
  std::int64_t capacity_bytes = 0;
  std::string controller = "asic";  // "asic" or "fpga"
  int count = 1;                    // identical devices on this socket

  bool operator==(const CxlDeviceSpec&) const = default;
};

// An accelerator whose memory the CPU reaches coherently (its HBM a CPU-less NUMA node).
struct AcceleratorSpec {
  int socket = 0;
  std::string name;
  LinkSpec link;  // CPU <-> accelerator
  HbmSpec memory;

  bool operator==(const AcceleratorSpec&) const = default;
};

struct SocketSpec {
  std::string generation;  // e.g. "skylake-sp", "sapphire-rapids", "granite-rapids", "genoa", "turin"
  int cores = 0;
  int threads_per_core = 1;
  // At least one of the two; the derivation clocks the cores at the base frequency when given.
  std::optional<double> base_frequency_ghz;
  std::optional<double> max_frequency_ghz;
  std::int64_t l1d_bytes_per_core = 0;
  std::int64_t l2_bytes_per_core = 0;
  std::optional<std::int64_t> l3_bytes;  // per socket, when the dies do not give theirs
  std::vector<DieSpec> dies;             // Intel compute dies/tiles, AMD CCDs; cores add up
  MemorySpec memory;
  std::optional<HbmSpec> hbm;

  bool operator==(const SocketSpec&) const = default;
};

struct SpecSheet {
  std::string name;
  std::string description;
  SpecVendor vendor = SpecVendor::kIntel;
  int sockets = 1;
  SocketSpec socket;  // every socket alike
  NumaMode mode;      // the mode the sheet describes (a what-if may ask for another)
  std::optional<HbmMode> hbm_mode;
  std::optional<LinkSpec> socket_links;  // between every pair of sockets; needed for sockets > 1
  std::vector<CxlDeviceSpec> cxl_devices;
  std::vector<AcceleratorSpec> accelerators;
  std::string snoop_mode;  // "directory", "home-snoop", "source-snoop"; empty: the generation's
  // Where each figure comes from, by the JSON pointer of the field ("/socket/cores": "Intel ARK,
  // product 240777, 2025-01").
  std::map<std::string, std::string> sources;

  bool operator==(const SpecSheet&) const = default;
};

// "ddr5", "hbm3", ... and back; the parser throws std::invalid_argument listing the kinds.
std::string spec_memory_kind_name(SpecMemoryKind kind);
SpecMemoryKind parse_spec_memory_kind(const std::string& name);
[[nodiscard]] bool is_hbm(SpecMemoryKind kind);
std::string spec_vendor_name(SpecVendor vendor);

// "snc1".."snc4", "snc-off", "nps0", "nps1", "nps2", "nps4"; throws std::invalid_argument
// naming the accepted modes.
NumaMode parse_numa_mode(const std::string& text);
std::string numa_mode_name(const NumaMode& mode);

// Theoretical DRAM bandwidth of one socket: channels x MT/s x 8 bytes (a DDR4 channel or the two
// 32-bit subchannels of a DDR5 channel move 8 bytes per transfer), in GB/s.
[[nodiscard]] double theoretical_dram_gbps(const MemorySpec& memory);
// A link spec's theoretical bandwidth per direction, all links together, in GB/s.
[[nodiscard]] double theoretical_link_gbps(const LinkSpec& link);
// PCIe per-lane payload rate per direction after line encoding (128b/130b for gen 5, FLIT
// 242/256 for gen 6), in GB/s; throws std::invalid_argument outside 3..6.
[[nodiscard]] double pcie_lane_gbps(int generation);

// The checks a spec must pass before anything is derived from it (cores that add up over the
// dies, a mode the vendor offers, channels that divide over the nodes, links and devices on
// sockets that exist). Returns the first problem as (JSON pointer, expectation), or nullopt.
struct SpecProblem {
  std::string pointer;
  std::string expectation;
};
std::optional<SpecProblem> check_spec_sheet(const SpecSheet& spec, const NumaMode& mode);

}  // namespace numatwin::model
