#include "numatwin/validate/discover/hwloc_export.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/memory_tiers.hpp"
#include "numatwin/model/microbenchmark.hpp"
#include "numatwin/model/routing.hpp"

namespace numatwin::validate {
namespace {

constexpr double kBytesPerMiB = 1048576.0;

// hwloc's bitmap text: 32-bit words, most significant first, comma separated ("0x0000000f,0xffffffff").
std::string bitmap_text(const std::vector<int>& bits) {
  int top = 0;
  for (int b : bits) top = std::max(top, b);
  std::vector<std::uint32_t> words(static_cast<std::size_t>(top / 32 + 1), 0U);
  for (int b : bits) words[static_cast<std::size_t>(b / 32)] |= 1U << (b % 32);
  std::string out;
  char buffer[16];
  for (std::size_t i = words.size(); i-- > 0;) {
    std::snprintf(buffer, sizeof buffer, "0x%08x", words[i]);
    if (!out.empty()) out += ',';
    out += buffer;
  }
  return out;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

struct Sets {
  std::string cpuset;
  std::string nodeset;
};

std::string set_attributes(const Sets& s) {
  return " cpuset=\"" + s.cpuset + "\" complete_cpuset=\"" + s.cpuset + "\" nodeset=\"" + s.nodeset + "\" complete_nodeset=\"" +
         s.nodeset + "\"";
}

class Writer {
 public:
  explicit Writer(const model::Topology& t) : t_(t), routing_(t), model_(t, routing_) {}

  std::string xml() {
    const int n = static_cast<int>(t_.nodes.size());
    total_cores_ = 0;
    first_core_.assign(n, 0);
    for (int i = 0; i < n; ++i) {
      first_core_[i] = total_cores_;
      total_cores_ += t_.nodes[i].cores;
    }
    // Packages in file order; a node without one is its own.
    std::vector<std::string> package_of(n);
    std::vector<std::string> order;
    for (int i = 0; i < n; ++i) {
      const model::Node& node = t_.nodes[i];
      if (node.kind == model::NodeKind::kRouter) continue;
      package_of[i] = node.package.empty() ? "node " + node.id : node.package;
    }
    // A memory-only node without a package belongs to the package of its host socket.
    for (int i = 0; i < n; ++i) {
      const model::Node& node = t_.nodes[i];
      if (node.kind == model::NodeKind::kRouter || node.has_cores() || !node.package.empty()) continue;
      package_of[i] = host_package(i, package_of);
    }
    for (int i = 0; i < n; ++i) {
      if (!package_of[i].empty() && std::find(order.begin(), order.end(), package_of[i]) == order.end()) order.push_back(package_of[i]);
    }
    bool any_initiator = false;
    for (const model::Node& node : t_.nodes) any_initiator = any_initiator || (node.has_cores());
    if (!any_initiator) throw std::invalid_argument(t_.name + ": no node with cores: hwloc needs processors");

    std::vector<int> all_pus;
    std::vector<int> all_nodes;
    for (int i = 0; i < n; ++i) {
      for (int pu : pus_of(i)) all_pus.push_back(pu);
      if (t_.nodes[i].has_memory() && t_.nodes[i].kind != model::NodeKind::kRouter) all_nodes.push_back(i);
    }
    std::ostringstream body;
    for (const std::string& package : order) {
      std::vector<int> members;
      for (int i = 0; i < n; ++i) {
        if (package_of[i] == package) members.push_back(i);
      }
      std::vector<int> pus;
      std::vector<int> nodes;
      for (int i : members) {
        for (int pu : pus_of(i)) pus.push_back(pu);
        if (t_.nodes[i].has_memory()) nodes.push_back(i);
      }
      // A package with memory but no cores has the whole machine as its locality.
      const Sets package_sets{bitmap_text(pus.empty() ? all_pus : pus), bitmap_text(nodes)};
      if (pus.empty()) {
        for (int i : members) body << numa_node(i, Sets{bitmap_text(all_pus), bitmap_text({i})}, "    ");
        continue;
      }
      body << "    <object type=\"Package\"" << set_attributes(package_sets) << " gp_index=\"" << next_gp() << "\">\n";
      for (int i : members) {
        if (t_.nodes[i].has_cores() || !t_.nodes[i].has_memory()) continue;
        body << numa_node(i, Sets{package_sets.cpuset, bitmap_text({i})}, "      ");  // memory-only: the package's locality
      }
      for (int i : members) {
        if (!t_.nodes[i].has_cores()) continue;
        const Sets group{bitmap_text(pus_of(i)), bitmap_text(t_.nodes[i].has_memory() ? std::vector<int>{i} : std::vector<int>{})};
        body << "      <object type=\"Group\"" << set_attributes(group) << " gp_index=\"" << next_gp() << "\">\n";
        if (t_.nodes[i].has_memory()) body << numa_node(i, group, "        ");
        body << cores(i, "        ");
        body << "      </object>\n";
      }
      body << "    </object>\n";
    }

    std::ostringstream out;
    out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n<topology version=\"2.0\">\n";
    const std::string cpus = bitmap_text(all_pus);
    const std::string mems = bitmap_text(all_nodes);
    out << "  <object type=\"Machine\" os_index=\"0\" cpuset=\"" << cpus << "\" complete_cpuset=\"" << cpus << "\" allowed_cpuset=\"" << cpus
        << "\" nodeset=\"" << mems << "\" complete_nodeset=\"" << mems << "\" allowed_nodeset=\"" << mems << "\" gp_index=\"" << machine_gp_
        << "\">\n";
    out << "    <info name=\"NumatwinTopology\" value=\"" << escaped(t_.name) << "\"/>\n";
    out << "    <info name=\"NumatwinFigures\" value=\"predicted by the numatwin model from the topology file's figures\"/>\n";
    out << body.str();
    out << "  </object>\n";
    out << memattrs();
    out << distances(package_of);
    out << "</topology>\n";
    return out.str();
  }

 private:
  int next_gp() { return next_gp_++; }

  std::vector<int> pus_of(int node) const {
    std::vector<int> pus;
    const model::Node& n = t_.nodes[node];
    for (int h = 0; h < std::max(1, n.threads_per_core); ++h) {
      for (int c = 0; c < n.cores; ++c) pus.push_back(h * total_cores_ + first_core_[node] + c);
    }
    return pus;
  }

  // The package of the first node with cores on the route from `node` towards any node with cores.
  std::string host_package(int node, const std::vector<std::string>& package_of) const {
    for (int k = 0; k < static_cast<int>(t_.nodes.size()); ++k) {
      if (!t_.nodes[k].has_cores()) continue;
      for (model::LinkIndex l : routing_.route(node, k)) {
        const int via = t_.links[l].to;
        if (t_.nodes[via].has_cores()) return package_of[via];
      }
    }
    return {};
  }

  std::string numa_node(int node, const Sets& sets, const std::string& indent) {
    const int gp = next_gp();
    numa_gp_[node] = gp;
    std::ostringstream out;
    out << indent << "<object type=\"NUMANode\" os_index=\"" << node << "\"" << set_attributes(sets) << " gp_index=\"" << gp
        << "\" local_memory=\"" << static_cast<std::uint64_t>(t_.nodes[node].memory_capacity_bytes) << "\"";
    // hwloc gives a subtype only to memory that is not plain DRAM (HBM, NVM, CXL...).
    const auto kind = t_.nodes[node].memory_kind;
    if (kind && *kind != model::MemoryKind::kDram) out << " subtype=\"" << model::memory_kind_name(*kind) << "\"";
    out << ">\n";
    out << indent << "  <info name=\"NumatwinNode\" value=\"" << escaped(t_.nodes[node].id) << "\"/>\n";
    out << indent << "</object>\n";
    return out.str();
  }

  std::string cores(int node, const std::string& indent) {
    std::ostringstream out;
    const model::Node& n = t_.nodes[node];
    const std::string nodeset = bitmap_text(n.has_memory() ? std::vector<int>{node} : std::vector<int>{});
    for (int c = 0; c < n.cores; ++c) {
      const int core = first_core_[node] + c;
      std::vector<int> pus;
      for (int h = 0; h < std::max(1, n.threads_per_core); ++h) pus.push_back(h * total_cores_ + core);
      out << indent << "<object type=\"Core\" os_index=\"" << core << "\"" << set_attributes(Sets{bitmap_text(pus), nodeset}) << " gp_index=\""
          << next_gp() << "\">\n";
      for (int pu : pus) {
        out << indent << "  <object type=\"PU\" os_index=\"" << pu << "\"" << set_attributes(Sets{bitmap_text({pu}), nodeset})
            << " gp_index=\"" << next_gp() << "\"/>\n";
      }
      out << indent << "</object>\n";
    }
    return out.str();
  }

  // SLIT-style relative distances between the memory nodes (hwloc's "NUMALatency", what Linux
  // reads from ACPI), 10 = local: a node with cores sees memory j at d(i, j) = 10 x L(i, j) /
  // L(i, i), L the idle latency from its cores (L(i, i): its own memory). A memory-only node is
  // seen from the sockets as they see it (d(i, j) = d(j, i) for j with cores) and sees another
  // memory-only node as its host socket does. hwloc's `length` attributes give each text's length.
  std::string distances(const std::vector<std::string>& package_of) const {
    std::vector<int> nodes;
    for (const auto& [node, gp] : numa_gp_) nodes.push_back(node);
    const std::size_t n = nodes.size();
    std::vector<std::vector<long long>> d(n, std::vector<long long>(n, 10));
    auto relative = [&](int from, int to) {
      const double local = model_.idle_latency_ns(from, t_.nodes[from].has_memory() ? from : to);
      return std::max<long long>(10, std::llround(10.0 * model_.idle_latency_ns(from, to) / local));
    };
    for (std::size_t a = 0; a < n; ++a) {
      if (!t_.nodes[nodes[a]].has_cores()) continue;
      for (std::size_t b = 0; b < n; ++b) d[a][b] = a == b ? 10 : relative(nodes[a], nodes[b]);
    }
    for (std::size_t a = 0; a < n; ++a) {
      if (t_.nodes[nodes[a]].has_cores()) continue;
      const int host = initiator_of(nodes[a], package_of);
      for (std::size_t b = 0; b < n; ++b) {
        if (a == b) continue;
        d[a][b] = t_.nodes[nodes[b]].has_cores() ? d[b][a] : relative(host, nodes[b]);
      }
    }
    std::string indexes;
    for (int m : nodes) indexes += std::to_string(m) + " ";
    std::string values;
    for (const auto& row : d) {
      for (long long v : row) values += std::to_string(v) + " ";
    }
    std::ostringstream out;
    out << "  <distances2 type=\"NUMANode\" nbobjs=\"" << n << "\" kind=\"5\" name=\"NUMALatency\" indexing=\"os\">\n";
    out << "    <indexes length=\"" << indexes.size() << "\">" << indexes << "</indexes>\n";
    out << "    <u64values length=\"" << values.size() << "\">" << values << "</u64values>\n";
    out << "  </distances2>\n";
    return out.str();
  }

  // The node whose cores stand for `node` as an initiator: itself when it has cores, else the
  // first node with cores of its package, else the first node with cores.
  int initiator_of(int node, const std::vector<std::string>& package_of) const {
    if (t_.nodes[node].has_cores()) return node;
    int first = -1;
    for (int k = 0; k < static_cast<int>(t_.nodes.size()); ++k) {
      if (!t_.nodes[k].has_cores()) continue;
      if (first < 0) first = k;
      if (package_of[k] == package_of[node]) return k;
    }
    return first;
  }

  std::string memattrs() {
    struct Value {
      int target_gp;
      double value;
      std::string initiator;
    };
    std::vector<Value> bandwidth;
    std::vector<Value> latency;
    std::vector<Value> loaded;
    for (int i = 0; i < static_cast<int>(t_.nodes.size()); ++i) {
      const model::Node& initiator = t_.nodes[i];
      if (!initiator.has_cores()) continue;
      const std::string cpuset = bitmap_text(pus_of(i));
      for (const auto& [target, gp] : numa_gp_) {
        model::Measurement m;
        m.metric = model::MeasurementMetric::kReadBandwidthGbps;
        m.streams = {model::MeasurementStream{i, target, initiator.cores * std::max(1, initiator.threads_per_core)}};
        // One solve gives both: the bandwidth is the streams' total rate (as predict_measurement
        // sums it), the loaded latency their mean latency at that load.
        const std::vector<model::Stream> streams = model::measurement_streams(t_, model_, m);
        const model::StreamRates& rates = model_.solve(streams);
        double total = 0.0;
        double mean_latency = 0.0;
        for (double r : rates.rate_bytes_per_s) total += r;
        for (double l : rates.latency_ns) mean_latency += l / static_cast<double>(rates.latency_ns.size());
        const double gbps = total / 1e9;
        bandwidth.push_back({gp, gbps * 1e9 / kBytesPerMiB, cpuset});
        latency.push_back({gp, model_.idle_latency_ns(i, target), cpuset});
        loaded.push_back({gp, mean_latency, cpuset});
      }
    }
    auto block = [](const std::string& name, int flags, const std::vector<Value>& values) {
      std::ostringstream out;
      out << "  <memattr name=\"" << name << "\" flags=\"" << flags << "\">\n";
      for (const Value& v : values) {
        out << "    <memattr_value target_obj_type=\"NUMANode\" target_obj_gp_index=\"" << v.target_gp << "\" value=\""
            << static_cast<std::uint64_t>(std::llround(v.value)) << "\" initiator_cpuset=\"" << v.initiator << "\"/>\n";
      }
      out << "  </memattr>\n";
      return out.str();
    };
    // hwloc's flags: 1 higher first, 2 lower first, 4 needs an initiator.
    return block("Bandwidth", 5, bandwidth) + block("ReadBandwidth", 5, bandwidth) + block("Latency", 6, latency) +
           block("ReadLatency", 6, latency) + block("numatwin_loaded_latency_ns", 6, loaded);
  }

  const model::Topology& t_;
  model::Routing routing_;
  model::BandwidthModel model_;
  int total_cores_ = 0;
  std::vector<int> first_core_;
  int machine_gp_ = 1;
  int next_gp_ = 2;
  std::map<int, int> numa_gp_;  // node index -> its NUMANode's gp_index
};

}  // namespace

std::string hwloc_export_xml(const model::Topology& topology) { return Writer(topology).xml(); }

}  // namespace numatwin::validate
