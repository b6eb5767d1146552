#include "options/socket_family_options.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace numatwin::cli {
namespace {

constexpr double kKiB = 1024.0;
constexpr double kMiB = 1024.0 * kKiB;
constexpr double kGiB = 1024.0 * kMiB;

std::int64_t bytes(double units, double unit, const std::string& name) {
  if (!(units > 0.0)) throw std::invalid_argument(name + " must be > 0");
  return static_cast<std::int64_t>(std::llround(units * unit));
}

// "--cxl-per-socket N" (each socket) or "N0,N1,..." (one per socket; the generator checks that
// there is one per socket).
void set_cxl_counts(model::CxlParams& cxl, const std::string& text) {
  const std::string usage = "--cxl-per-socket \"" + text +
                            "\": expected a count of expanders for each socket (2) or one count per socket (4,0)";
  std::vector<int> counts;
  std::size_t begin = 0;
  for (;;) {
    const std::size_t comma = text.find(',', begin);
    const std::string item = text.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 3) {
      throw std::invalid_argument(usage);
    }
    counts.push_back(std::stoi(item));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (counts.size() == 1) {
    cxl.per_socket = counts.front();
    cxl.by_socket.clear();
  } else {
    cxl.per_socket = 0;
    cxl.by_socket = counts;
  }
}

}  // namespace

template <typename T>
void SocketFamilyOptions::add(CLI::App* app, const std::string& name, const std::string& help,
                              std::function<void(model::SocketFamilyParams&, T)> set) {
  auto value = std::make_shared<T>();
  CLI::Option* option = app->add_option(name, *value, help);
  values_.push_back(Value{option, [value, set](model::SocketFamilyParams& p) { set(p, *value); }});
}

SocketFamilyOptions::SocketFamilyOptions(CLI::App* g) {
  using P = model::SocketFamilyParams;
  snc_ = g->add_option("--snc", *snc_value_, "intel-snc: NUMA nodes per socket, 1-4 (default 1)");
  nps_ =
      g->add_option("--nps", *nps_value_, "amd-nps: NUMA nodes per socket, 1, 2 or 4 (default 1)");
  add<int>(g, "--sockets", "socket families: sockets (intel-snc default 2, amd-nps 1)",
           [](P& p, int v) { p.sockets = v; });
  add<int>(g, "--cores-per-socket", "socket families: cores per socket (32)",
           [](P& p, int v) { p.cores_per_socket = v; });
  add<int>(g, "--ccds-per-socket", "amd-nps: core complex dies per socket (8)",
           [](P& p, int v) { p.ccds_per_socket = v; });
  add<double>(g, "--l1-kib", "socket families: L1D per core, KiB",
              [](P& p, double v) { p.l1_bytes = bytes(v, kKiB, "--l1-kib"); });
  add<double>(g, "--l2-kib", "socket families: L2 per core, KiB",
              [](P& p, double v) { p.l2_bytes = bytes(v, kKiB, "--l2-kib"); });
  add<double>(
      g, "--llc-mib-per-socket",
      "socket families: L3 per socket, MiB (split over SNC nodes or CCDs)",
      [](P& p, double v) { p.llc_bytes_per_socket = bytes(v, kMiB, "--llc-mib-per-socket"); });
  add<double>(g, "--memory-per-socket-gib", "socket families: memory per socket, GiB",
              [](P& p, double v) {
                p.memory_per_socket_bytes = bytes(v, kGiB, "--memory-per-socket-gib");
              });
  add<int>(g, "--memory-channels-per-socket",
           "socket families: memory channels per socket (a multiple of --snc/--nps)",
           [](P& p, int v) { p.memory_channels_per_socket = v; });
  add<double>(g, "--memory-bandwidth-per-socket-gbps",
              "socket families: memory read bandwidth per socket",
              [](P& p, double v) { p.memory_bandwidth_per_socket_gbps = v; });
  add<double>(
      g, "--die-link-bandwidth-gbps",
      "socket families: link between two nodes of a package (default: one node's memory bandwidth)",
      [](P& p, double v) { p.die_link_bandwidth_gbps = v; });
  add<double>(g, "--die-link-latency-ns",
              "socket families: latency added by a link inside a package",
              [](P& p, double v) { p.die_link_latency_ns = v; });
  add<int>(g, "--socket-links-per-pair",
           "socket families: UPI/xGMI links between two sockets (summed into one per node pair)",
           [](P& p, int v) { p.socket_links_per_pair = v; });
  add<double>(g, "--socket-link-bandwidth-gbps",
              "socket families: bandwidth of one UPI/xGMI link per direction",
              [](P& p, double v) { p.socket_link_bandwidth_gbps = v; });
  add<double>(g, "--socket-link-latency-ns", "socket families: latency added by the socket link",
              [](P& p, double v) { p.socket_link_latency_ns = v; });
  add<std::string>(g, "--cxl-per-socket",
                   "socket families: CXL Type-3 expanders (CPU-less CXL nodes; default 0): one count for "
                   "each socket (2), or one count per socket in socket order (4,0: four on socket 0, none on 1)",
                   [](P& p, const std::string& v) { set_cxl_counts(p.cxl, v); });
  add<double>(g, "--cxl-capacity-gib", "CXL: capacity per expander, GiB (128)",
              [](P& p, double v) { p.cxl.capacity_bytes = bytes(v, kGiB, "--cxl-capacity-gib"); });
  add<double>(
      g, "--cxl-bandwidth-gbps",
      "CXL: read bandwidth per expander (default: half the socket's DRAM over its expanders)",
      [](P& p, double v) { p.cxl.bandwidth_gbps = v; });
  add<double>(g, "--cxl-latency-ns",
              "CXL: the expander's own latency (default: the socket's DRAM latency)",
              [](P& p, double v) { p.cxl.latency_ns = v; });
  add<double>(g, "--cxl-link-bandwidth-gbps",
              "CXL: host-bridge link per direction (default: the expander's bandwidth)",
              [](P& p, double v) { p.cxl.link_bandwidth_gbps = v; });
  add<double>(g, "--cxl-link-latency-ns", "CXL: latency the host-bridge link adds (80)",
              [](P& p, double v) { p.cxl.link_latency_ns = v; });
}

model::SocketFamilyParams SocketFamilyOptions::apply(model::TopologyFamily family) const {
  const bool amd = family == model::TopologyFamily::kAmdNps;
  if (amd && snc_->count() > 0)
    throw std::invalid_argument("--snc applies to intel-snc; amd-nps takes --nps");
  if (!amd && nps_->count() > 0)
    throw std::invalid_argument("--nps applies to amd-nps; intel-snc takes --snc");
  model::SocketFamilyParams p =
      model::socket_family_defaults(family, amd ? *nps_value_ : *snc_value_);
  for (const Value& v : values_) {
    if (v.option->count() > 0) v.set(p);
  }
  return p;
}

void SocketFamilyOptions::reject_for(const std::string& family) const {
  if (snc_->count() > 0 || nps_->count() > 0)
    throw std::invalid_argument("--snc and --nps apply to intel-snc and amd-nps only, not " +
                                family);
  for (const Value& v : values_) {
    if (v.option->count() > 0) {
      throw std::invalid_argument(
          v.option->get_name() +
          " applies to the socket families intel-snc and amd-nps only, not " + family);
    }
  }
}

std::shared_ptr<SocketFamilyOptions> add_socket_family_options(CLI::App* generate) {
  return std::make_shared<SocketFamilyOptions>(generate);
}

}  // namespace numatwin::cli
