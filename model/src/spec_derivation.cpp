#include "numatwin/model/spec_derivation.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::model {

namespace {

// Where a share of a node's cores or memory sits: a die position (Intel) or a quadrant (AMD).
struct Place {
  double x = 0.0;
  double y = 0.0;
  double weight = 0.0;  // fraction of the node's cores (or memory) there
};

// One NUMA node of a socket before it becomes a model::Node.
struct NodePlan {
  int cores = 0;
  std::vector<Place> places;     // where its cores and its memory controllers sit
  std::vector<int> ccds;         // AMD: the CCDs (indices into the socket's dies) it owns
  double l3_bytes = 0.0;         // Intel: the L3 of the die share it owns
};

std::string fmt(double v, int digits = 4) {
  std::ostringstream s;
  s.precision(digits);
  s << v;
  return s.str();
}

// Mean steps between a core of `a` and a line of `b` (memory interleaved over b's places).
double mean_steps(const NodePlan& a, const NodePlan& b, bool quadrants) {
  double sum = 0.0;
  for (const Place& p : a.places) {
    for (const Place& q : b.places) {
      const double d = quadrants ? (p.x != q.x || p.y != q.y ? 1.0 : 0.0) : std::abs(p.x - q.x) + std::abs(p.y - q.y);
      sum += p.weight * q.weight * d;
    }
  }
  return sum;
}

std::vector<int> even_split(int total, int parts) {
  std::vector<int> out(static_cast<std::size_t>(parts), total / parts);
  for (int i = 0; i < total % parts; ++i) ++out[static_cast<std::size_t>(i)];
  return out;
}

std::vector<DieSpec> dies_of(const SocketSpec& s) {
  if (!s.dies.empty()) return s.dies;
  return {DieSpec{s.cores, s.l3_bytes, 1}};
}

double die_l3(const SocketSpec& s, const DieSpec& d) {
  if (d.l3_bytes) return static_cast<double>(*d.l3_bytes);
  return static_cast<double>(s.l3_bytes.value_or(0)) * d.cores / s.cores;
}

// Intel: nodes take contiguous slices of the cores in die order (whole dies when they divide).
std::vector<NodePlan> plan_intel(const SocketSpec& s, int nodes) {
  const std::vector<DieSpec> dies = dies_of(s);
  const bool grid = dies.size() == 4;
  std::vector<NodePlan> plans;
  std::size_t die = 0;
  int used_in_die = 0;
  for (const int share : even_split(s.cores, nodes)) {
    NodePlan plan;
    plan.cores = share;
    int left = share;
    while (left > 0) {
      const DieSpec& d = dies[die];
      const int take = std::min(left, d.cores - used_in_die);
      const double centre = (used_in_die + take / 2.0) / d.cores - 0.5;  // within the die, -0.5..0.5
      const double x = grid ? static_cast<double>(die % 2) : static_cast<double>(die);
      const double y = grid ? static_cast<double>(die / 2) : 0.0;
      plan.places.push_back({x + (take == d.cores ? 0.0 : centre), y, static_cast<double>(take) / share});
      plan.l3_bytes += die_l3(s, d) * take / d.cores;
      used_in_die += take;
      left -= take;
      if (used_in_die == d.cores) {
        ++die;
        used_in_die = 0;
      }
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

// AMD: CCD i sits in quadrant i mod 4; NPS n gives each node 4 / n quadrants.
std::vector<NodePlan> plan_amd(const SocketSpec& s, int nodes) {
  const std::vector<DieSpec> ccds = dies_of(s);
  const int quadrants_per_node = 4 / nodes;
  std::vector<NodePlan> plans(static_cast<std::size_t>(nodes));
  for (int k = 0; k < nodes; ++k) {
    NodePlan& plan = plans[static_cast<std::size_t>(k)];
    for (std::size_t i = 0; i < ccds.size(); ++i) {
      if (static_cast<int>(i % 4) / quadrants_per_node == k) {
        plan.ccds.push_back(static_cast<int>(i));
        plan.cores += ccds[i].cores;
      }
    }
    for (int q = 0; q < quadrants_per_node; ++q) {
      plan.places.push_back({static_cast<double>(k * quadrants_per_node + q), 0.0, 1.0 / quadrants_per_node});
    }
  }
  return plans;
}

class Deriver {
 public:
  Deriver(const SpecSheet& spec, const SpecRules& rules, const DerivationOptions& options)
      : spec_(spec), rules_(rules), options_(options), mode_(options.mode.value_or(spec.mode)),
        amd_(spec.vendor == SpecVendor::kAmd) {}

  DerivedMachine run() {
    check();
    plans_ = amd_ ? plan_amd(spec_.socket, nodes()) : plan_intel(spec_.socket, nodes());
    if (std::any_of(plans_.begin(), plans_.end(), [](const NodePlan& p) { return p.cores == 0; })) {
      fail("/socket/dies", "every node of " + numa_mode_name(mode_) + " to own at least one CCD");
    }
    add_socket_nodes();
    add_die_links();
    add_socket_links();
    add_hbm_nodes();
    add_cxl_nodes();
    add_accelerators();
    set_machine_parameters();
    add_mix_figures();
    set_provenance();
    check_topology(t_, "<derived from " + options_.source_name + ">");
    return DerivedMachine{std::move(t_), mode_, std::move(figures_)};
  }

 private:
  [[noreturn]] void fail(const std::string& pointer, const std::string& expectation) const {
    throw InputError(options_.source_name, pointer, "expected " + expectation);
  }

  void check() const {
    if (const auto problem = check_spec_sheet(spec_, mode_)) fail(problem->pointer, problem->expectation);
    if (hbm_mode() == HbmMode::kCache) {
      fail("/hbm_mode", "flat: HBM as a memory-side cache is not derived yet (no rule for its hit rate)");
    }
  }

  [[nodiscard]] int nodes() const { return mode_.nodes_per_socket; }
  [[nodiscard]] double core_ghz() const {
    return spec_.socket.base_frequency_ghz.value_or(spec_.socket.max_frequency_ghz.value_or(0.0));
  }
  [[nodiscard]] std::optional<HbmMode> hbm_mode() const { return options_.hbm_mode ? options_.hbm_mode : spec_.hbm_mode; }
  [[nodiscard]] bool quadrants() const { return amd_; }

  // A generation figure, or a refusal naming what is missing.
  RuleValue generation(GenerationField field, const char* what, bool* transferred) const {
    const auto figure = generation_figure(rules_, spec_.socket.generation, spec_.vendor, field);
    if (!figure) {
      fail("/socket/generation", std::string("a generation with a ") + what + " rule: no " +
                                     spec_vendor_name(spec_.vendor) + " generation in the corpus has one (got \"" +
                                     spec_.socket.generation + "\")");
    }
    *transferred = figure->transferred;
    return figure->value;
  }

  void figure(std::string what, std::string pointer, std::string unit, double value, double low, double high,
              std::string rule, std::string basis, bool transferred = false) {
    // No clamping: a rule whose range misses its own value is a bug the tests must see.
    figures_.push_back(DerivedFigure{std::move(what), std::move(pointer), std::move(unit), value, low, high,
                                     std::move(rule), std::move(basis), transferred});
  }

  RuleValue memory_efficiency() const {
    const auto it = rules_.dram_read_efficiency.find(spec_.socket.memory.kind);
    if (it == rules_.dram_read_efficiency.end()) fail("/socket/memory/kind", "a DRAM kind with a bandwidth rule");
    return it->second;
  }

  void add_socket_nodes() {
    const SocketSpec& s = spec_.socket;
    bool tr_domain = false;
    bool tr_lines = false;
    const RuleValue domain = generation(&GenerationRules::domain_latency_ns, "latency", &tr_domain);
    const RuleValue lines = generation(&GenerationRules::lines_in_flight, "lines-in-flight", &tr_lines);
    const RuleValue& step = rules_.die_step_ns;
    const RuleValue eta = memory_efficiency();
    const double node_theoretical = theoretical_dram_gbps(s.memory) / nodes();
    std::optional<RuleValue> gmi;
    bool tr_gmi = false;
    if (amd_) gmi = generation(&GenerationRules::gmi_link_read_gbps, "CCD link", &tr_gmi);
    miss_buffers_ = static_cast<int>(std::lround(lines.value));
    for (int sk = 0; sk < spec_.sockets; ++sk) {
      for (int k = 0; k < nodes(); ++k) {
        const NodePlan& plan = plans_[static_cast<std::size_t>(k)];
        const int index = static_cast<int>(t_.nodes.size());
        const std::string at = "/nodes/" + std::to_string(index);
        Node n;
        n.id = "s" + std::to_string(sk) + "n" + std::to_string(k);
        n.package = "p" + std::to_string(sk);
        n.cores = plan.cores;
        n.threads_per_core = s.threads_per_core;
        n.frequency_ghz = core_ghz();
        n.caches = {{1, s.l1d_bytes_per_core, 1}, {2, s.l2_bytes_per_core, 1}};
        if (amd_) {
          const DieSpec first = dies_of(s)[static_cast<std::size_t>(plan.ccds.front())];
          n.caches.push_back({3, static_cast<std::int64_t>(die_l3(s, first)), first.cores});
        } else {
          n.caches.push_back({3, static_cast<std::int64_t>(plan.l3_bytes), plan.cores});
        }
        n.memory_capacity_bytes = s.memory.capacity_bytes / nodes();
        n.memory_kind = MemoryKind::kDram;
        n.miss_buffers_per_core = miss_buffers_;
        n.label = "socket " + std::to_string(sk) + ", " + numa_mode_name(mode_) + " node " + std::to_string(k) + ": " +
                  std::to_string(plan.cores) + " cores, " + std::to_string(s.memory.channels / nodes()) + " x " +
                  spec_memory_kind_name(s.memory.kind) + "-" + fmt(s.memory.mts);
        // Bandwidth: eta x the node's channels, and on AMD its CCDs' links to the IO die.
        double bw = eta.value * node_theoretical;
        double bw_low = eta.low * node_theoretical;
        double bw_high = eta.high * node_theoretical;
        std::string rule = "eta x " + std::to_string(s.memory.channels / nodes()) + " channels x " + fmt(s.memory.mts) +
                           " MT/s x 8 B";
        std::string basis = eta.basis;
        if (gmi) {
          int links = 0;
          for (const int c : plan.ccds) links += dies_of(s)[static_cast<std::size_t>(c)].gmi_links;
          if (links * gmi->value < bw) {
            bw = links * gmi->value;
            bw_low = std::min(bw_low, links * gmi->low);
            bw_high = std::min(bw_high, links * gmi->high);
            rule = std::to_string(links) + " CCD links x G (the CCDs bound it below the channels' " +
                   fmt(eta.value * node_theoretical) + " GB/s)";
            basis = gmi->basis;
          }
        }
        n.memory_read_bandwidth_gbps = bw;
        const double m = mean_steps(plan, plan, quadrants());
        n.local_latency_ns = domain.value + step.value * m;
        const double x0 = 250.0 + 500.0 * sk;
        n.position = Position{x0 + (k % 2) * 160.0 - (nodes() > 1 ? 80.0 : 0.0), 400.0 + (k / 2) * 160.0};
        t_.nodes.push_back(n);
        if (sk == 0) {
          figure(n.id + " memory read bandwidth", at + "/memory_read_bandwidth_gbps", "GB/s", bw, bw_low, bw_high, rule,
                 basis, tr_gmi && basis == gmi->basis);
          figure(n.id + " local idle latency", at + "/local_latency_ns", "ns", n.local_latency_ns,
                 domain.low + step.low * m, domain.high + step.high * m,
                 "D + s x " + fmt(m, 3) + " mean die steps", domain.basis + "; s: " + step.basis, tr_domain);
        }
      }
    }
    if (!s.base_frequency_ghz) {
      figure("core clock", "/nodes/*/frequency_ghz", "GHz", core_ghz(), 0.5 * core_ghz(), core_ghz(),
             "the sheet's maximum clock: it gives no base clock (range down to half: a stated guess)",
             "the sheet's /socket/max_frequency_ghz");
    }
    figure("miss buffers per core (lines in flight at saturation)", "/nodes/*/miss_buffers_per_core", "lines",
           lines.value, lines.low, lines.high, "M: Little's law at saturation, rounded to " + std::to_string(miss_buffers_),
           lines.basis, tr_lines);
  }

  void add_link(int a, int b, double bandwidth_gbps, double latency_ns) {
    const int spec = t_.links.empty() ? 0 : t_.links.back().spec_index + 1;
    t_.links.push_back(Link{a, b, bandwidth_gbps, latency_ns, spec});
    t_.links.push_back(Link{b, a, bandwidth_gbps, latency_ns, spec});
  }

  void add_die_links() {
    if (nodes() == 1) return;
    const RuleValue& step = rules_.die_step_ns;
    for (int sk = 0; sk < spec_.sockets; ++sk) {
      for (int a = 0; a < nodes(); ++a) {
        for (int b = a + 1; b < nodes(); ++b) {
          const NodePlan& pa = plans_[static_cast<std::size_t>(a)];
          const NodePlan& pb = plans_[static_cast<std::size_t>(b)];
          // What reaching b's memory from a adds over b's own cores, both ways averaged.
          const double added = 0.5 * (mean_steps(pa, pb, quadrants()) - mean_steps(pb, pb, quadrants()) +
                                      mean_steps(pb, pa, quadrants()) - mean_steps(pa, pa, quadrants()));
          const int ia = sk * nodes() + a;
          const int ib = sk * nodes() + b;
          const double bw = std::min(t_.nodes[static_cast<std::size_t>(ia)].memory_read_bandwidth_gbps,
                                     t_.nodes[static_cast<std::size_t>(ib)].memory_read_bandwidth_gbps);
          add_link(ia, ib, bw, step.value * added);
          if (sk == 0) {
            const std::string at = "/links/" + std::to_string(t_.links.back().spec_index);
            figure("link s0n" + std::to_string(a) + "-s0n" + std::to_string(b) + " latency", at + "/latency_ns", "ns",
                   step.value * added, step.low * added, step.high * added, "s x " + fmt(added, 3) + " die steps",
                   step.basis);
            figure("link s0n" + std::to_string(a) + "-s0n" + std::to_string(b) + " bandwidth",
                   at + "/bandwidth_per_direction_gbps", "GB/s", bw, 0.5 * bw, 2.0 * bw,
                   "no rule: the smaller node's memory bandwidth, range 0.5x-2x",
                   "no corpus machine measures a full-load read across SNC/NPS nodes");
          }
        }
      }
    }
  }

  void add_socket_links() {
    if (spec_.sockets == 1) return;
    const LinkSpec& l = *spec_.socket_links;
    const auto eta_it = rules_.link_efficiency.find(l.kind);
    if (eta_it == rules_.link_efficiency.end()) fail("/socket_links/kind", "a link kind with an efficiency rule");
    const RuleValue eta = eta_it->second;
    bool tr = false;
    const RuleValue step = generation(&GenerationRules::socket_step_ns, "socket-step latency", &tr);
    const double theoretical = theoretical_link_gbps(l);
    const double total = eta.value * theoretical;
    // One node per socket: node to node. Several: every node of a socket reaches the socket's
    // link ports through a router (any node may use all the links; all nodes share them).
    std::vector<int> ends;
    for (int sk = 0; sk < spec_.sockets; ++sk) {
      if (nodes() == 1) {
        ends.push_back(sk);
        continue;
      }
      Node router;
      router.id = "s" + std::to_string(sk) + l.kind;
      router.label = "socket " + std::to_string(sk) + "'s " + l.kind + " ports, reached from each of its nodes";
      router.kind = NodeKind::kRouter;
      router.position = Position{330.0 + 500.0 * sk, 250.0};
      t_.nodes.push_back(router);
      ends.push_back(static_cast<int>(t_.nodes.size()) - 1);
      for (int k = 0; k < nodes(); ++k) add_link(sk * nodes() + k, ends.back(), total, 0.0);
    }
    for (int a = 0; a < spec_.sockets; ++a) {
      for (int b = a + 1; b < spec_.sockets; ++b) add_link(ends[static_cast<std::size_t>(a)], ends[static_cast<std::size_t>(b)], total, step.value);
    }
    if (nodes() > 1) {
      figure("node to its socket's link ports bandwidth", "/links/*/bandwidth_per_direction_gbps", "GB/s", total,
             0.5 * total, total, "no rule: the socket links' own figure (the mesh taken as no tighter)",
             "no corpus machine measures one SNC/NPS node's remote bandwidth");
    }
    const std::string at = "/links/" + std::to_string(t_.links.back().spec_index);
    figure("socket link bandwidth per direction (all links, one socket pair)", at + "/bandwidth_per_direction_gbps",
           "GB/s", total, eta.low * theoretical, eta.high * theoretical,
           "eta_link x " + std::to_string(l.count) + " links x theoretical " + fmt(theoretical / l.count) + " GB/s",
           eta.basis);
    figure("socket step latency", at + "/latency_ns", "ns", step.value, step.low, step.high, "X: remote less local",
           step.basis, tr);
  }

  int host_node(int socket, int index) const { return socket * nodes() + index % nodes(); }

  void add_memory_only_node(Node n, int host, double link_gbps, double link_latency_ns) {
    n.threads_per_core = 1;
    n.frequency_ghz = core_ghz();  // required by the format; no core uses it
    const Node& h = t_.nodes[static_cast<std::size_t>(host)];
    if (h.position) n.position = Position{h.position->x, h.position->y + 250.0 + 60.0 * (cpuless_++ % 3)};
    t_.nodes.push_back(std::move(n));
    add_link(host, static_cast<int>(t_.nodes.size()) - 1, link_gbps, link_latency_ns);
  }

  void add_hbm_nodes() {
    if (!spec_.socket.hbm || hbm_mode() != HbmMode::kFlat) return;
    const HbmSpec& hbm = *spec_.socket.hbm;
    const RuleValue& eta = rules_.hbm_read_efficiency;
    const RuleValue& factor = rules_.hbm_latency_factor;
    for (int sk = 0; sk < spec_.sockets; ++sk) {
      for (int k = 0; k < nodes(); ++k) {
        const Node& host = t_.nodes[static_cast<std::size_t>(sk * nodes() + k)];
        Node n;
        n.id = "s" + std::to_string(sk) + "hbm" + std::to_string(k);
        n.label = "HBM (flat) of " + host.id;
        n.package = host.package;
        n.memory_capacity_bytes = hbm.capacity_bytes / nodes();
        n.memory_read_bandwidth_gbps = eta.value * hbm.bandwidth_gbps / nodes();
        n.local_latency_ns = host.local_latency_ns * factor.value;
        n.memory_kind = MemoryKind::kHbm;
        if (sk == 0 && k == 0) {
          const std::string at = "/nodes/" + std::to_string(t_.nodes.size());
          figure("HBM node read bandwidth", at + "/memory_read_bandwidth_gbps", "GB/s", n.memory_read_bandwidth_gbps,
                 eta.low * hbm.bandwidth_gbps / nodes(), eta.high * hbm.bandwidth_gbps / nodes(),
                 "eta_hbm x the stacks' " + fmt(hbm.bandwidth_gbps) + " GB/s", eta.basis);
          figure("HBM node idle latency", at + "/local_latency_ns", "ns", n.local_latency_ns,
                 host.local_latency_ns * factor.low, host.local_latency_ns * factor.high, "DDR local x HBM factor",
                 factor.basis);
        }
        const double bw = n.memory_read_bandwidth_gbps;
        add_memory_only_node(std::move(n), sk * nodes() + k, bw, 0.0);
      }
    }
  }

  void add_cxl_nodes() {
    std::vector<int> per_socket(static_cast<std::size_t>(spec_.sockets), 0);
    for (std::size_t i = 0; i < spec_.cxl_devices.size(); ++i) {
      const CxlDeviceSpec& c = spec_.cxl_devices[i];
      const RuleValue& eta_pcie = rules_.pcie_efficiency;
      const RuleValue& k = rules_.cxl_bandwidth_factor.at(c.controller);
      const RuleValue& f = rules_.cxl_latency_factor.at(c.controller);
      const RuleValue eta = memory_efficiency();
      const double link = c.lanes * pcie_lane_gbps(c.pcie_generation);
      const double media = c.media_channels * c.media_mts * 8.0 / 1000.0;
      for (int d = 0; d < c.count; ++d) {
        const int e = per_socket[static_cast<std::size_t>(c.socket)]++;
        const int host = host_node(c.socket, e);
        const Node& h = t_.nodes[static_cast<std::size_t>(host)];
        Node n;
        n.id = "s" + std::to_string(c.socket) + "cxl" + std::to_string(e);
        n.label = "CXL Type-3 " + c.controller + ", PCIe " + std::to_string(c.pcie_generation) + " x" +
                  std::to_string(c.lanes) + ", " + std::to_string(c.media_channels) + " x " +
                  spec_memory_kind_name(c.media) + "-" + fmt(c.media_mts);
        n.memory_capacity_bytes = c.capacity_bytes;
        n.memory_read_bandwidth_gbps = eta.value * media * k.value;
        n.local_latency_ns = h.local_latency_ns * f.value;
        n.memory_kind = MemoryKind::kCxl;
        if (d == 0) {
          const std::string at = "/nodes/" + std::to_string(t_.nodes.size());
          const std::string name = "CXL device " + std::to_string(i);
          figure(name + " media read bandwidth", at + "/memory_read_bandwidth_gbps", "GB/s",
                 n.memory_read_bandwidth_gbps, eta.low * media * k.low, eta.high * media * k.high,
                 "eta_kind x media " + fmt(media) + " GB/s x k_ctrl", k.basis);
          figure(name + " PCIe link per direction", "", "GB/s", eta_pcie.value * link, eta_pcie.low * link,
                 eta_pcie.high * link, "eta_pcie x " + std::to_string(c.lanes) + " lanes x " +
                 fmt(pcie_lane_gbps(c.pcie_generation)) + " GB/s", eta_pcie.basis);
          figure(name + " idle latency", at + "/local_latency_ns", "ns", n.local_latency_ns,
                 h.local_latency_ns * f.low, h.local_latency_ns * f.high, "local DDR x f_ctrl", f.basis);
        }
        add_memory_only_node(std::move(n), host, eta_pcie.value * link, 0.0);
      }
    }
  }

  void add_accelerators() {
    double step_low = 1e300;
    double step_high = 0.0;
    for (const auto& [name, g] : rules_.generations) {
      if (g.socket_step_ns) {
        step_low = std::min(step_low, g.socket_step_ns->low);
        step_high = std::max(step_high, g.socket_step_ns->high);
      }
    }
    for (std::size_t i = 0; i < spec_.accelerators.size(); ++i) {
      const AcceleratorSpec& a = spec_.accelerators[i];
      const RuleValue& eta_link = rules_.link_efficiency.at(a.link.kind);
      const RuleValue& eta_hbm = rules_.hbm_read_efficiency;
      const double link = theoretical_link_gbps(a.link);
      const int host = host_node(a.socket, 0);
      const Node& h = t_.nodes[static_cast<std::size_t>(host)];
      const double step = 0.5 * (step_low + step_high);
      Node n;
      n.id = "s" + std::to_string(a.socket) + "acc" + std::to_string(i);
      n.label = a.name + " memory (" + spec_memory_kind_name(a.memory.kind) + ") over " + a.link.kind;
      n.memory_capacity_bytes = a.memory.capacity_bytes;
      n.memory_read_bandwidth_gbps = eta_hbm.value * a.memory.bandwidth_gbps;
      n.local_latency_ns = h.local_latency_ns + step;
      n.memory_kind = MemoryKind::kHbm;
      const std::string at = "/nodes/" + std::to_string(t_.nodes.size());
      const std::string name = "accelerator " + std::to_string(i) + " (" + a.name + ")";
      figure(name + " link per direction", "", "GB/s", eta_link.value * link, eta_link.low * link,
             eta_link.high * link, "eta_link x " + fmt(link) + " GB/s", eta_link.basis);
      figure(name + " memory read bandwidth", at + "/memory_read_bandwidth_gbps", "GB/s", n.memory_read_bandwidth_gbps,
             eta_hbm.low * a.memory.bandwidth_gbps, eta_hbm.high * a.memory.bandwidth_gbps, "eta_hbm x HBM",
             eta_hbm.basis);
      figure(name + " idle latency from its socket", at + "/local_latency_ns", "ns", n.local_latency_ns,
             h.local_latency_ns + step_low, h.local_latency_ns + step_high,
             "local + the middle of the corpus's socket steps",
             "no rule: no corpus machine measures a coherent accelerator link; the range spans every socket step");
      add_memory_only_node(std::move(n), host, eta_link.value * link, 0.0);
    }
  }

  void set_machine_parameters() {
    const Node& n0 = t_.nodes.front();
    const double saturated_ns = n0.cores * miss_buffers_ * 64.0 / n0.memory_read_bandwidth_gbps;
    t_.performance.cache_line_bytes = 64;
    t_.performance.memory_queue_ns = std::max(0.0, saturated_ns - n0.local_latency_ns);
    t_.performance.queue_exponent = rules_.queue_exponent.value;
    t_.performance.link_queue_ns = 20.0;
    figure("memory queue at saturation", "/performance/memory_queue_ns", "ns", t_.performance.memory_queue_ns,
           t_.performance.memory_queue_ns, t_.performance.memory_queue_ns,
           "n M S / C - L: " + std::to_string(n0.cores) + " cores x " + std::to_string(miss_buffers_) +
               " lines x 64 B / " + fmt(n0.memory_read_bandwidth_gbps) + " GB/s - " + fmt(n0.local_latency_ns) + " ns",
           "follows from M and C (their ranges apply)");
    figure("queue exponent", "/performance/queue_exponent", "", rules_.queue_exponent.value, rules_.queue_exponent.low,
           rules_.queue_exponent.high, "e", rules_.queue_exponent.basis);
    figure("link queue at saturation", "/performance/link_queue_ns", "ns", 20.0, 0.0, 60.0,
           "no rule: 20 ns, the shipped Intel files' figure", "no corpus machine measures a loaded link");
    const bool intel = spec_.vendor == SpecVendor::kIntel;
    const std::string snoop = spec_.snoop_mode.empty() ? "directory" : spec_.snoop_mode;
    t_.coherence.protocol = snoop == "home-snoop"     ? CoherenceProtocol::kHomeSnoop
                            : snoop == "source-snoop" ? CoherenceProtocol::kSourceSnoop
                                                      : CoherenceProtocol::kDirectory;
    t_.coherence.probe_bytes_per_line = 16.0;
    t_.coherence.response_bytes_per_line = 16.0;
    if (t_.coherence.protocol == CoherenceProtocol::kDirectory) t_.coherence.directory_probe_fraction = 0.1;
    figure("coherence probe and response bytes per line", "/coherence/probe_bytes_per_line", "B", 16.0, 0.0, 24.0,
           "no rule: 16 B each, " + snoop + (intel ? "" : " (AMD's probe filter taken as a directory)"),
           "carried from xeon-platinum-8480-2s (reconstructed there); 24 B is nehalem-ex-4s's fitted probe");
  }

  // Peak injection per mlc mix over the whole machine: every node reading its own memory, a mix
  // of write fraction w at C / (1 + tau w).
  void add_mix_figures() {
    // The sheet's own kind, else DDR4's for DDR4 and DDR5's for the rest (the hand-worked rules
    // fit only those two).
    auto tau_it = rules_.write_turnaround.find(spec_.socket.memory.kind);
    if (tau_it == rules_.write_turnaround.end()) {
      tau_it = rules_.write_turnaround.find(
          spec_.socket.memory.kind == SpecMemoryKind::kDdr4 ? SpecMemoryKind::kDdr4 : SpecMemoryKind::kDdr5);
    }
    const RuleValue tau = tau_it->second;
    const RuleValue eta = memory_efficiency();
    const double total = theoretical_dram_gbps(spec_.socket.memory) * spec_.sockets;
    const double read = total * eta.value;
    const std::pair<const char*, double> mixes[] = {
        {"all reads", 0.0}, {"3:1 reads-writes", 0.25}, {"2:1 reads-writes", 1.0 / 3}, {"1:1 reads-writes", 0.5},
        {"stream-triad like", 1.0 / 3}};
    for (const auto& [name, w] : mixes) {
      figure(std::string("peak injection, ") + name, "", "GB/s", read / (1.0 + tau.value * w),
             total * eta.low / (1.0 + tau.high * w), total * eta.high / (1.0 + tau.low * w),
             "DRAM read bandwidth / (1 + tau x " + fmt(w, 3) + ")",
             w == 0.0 ? eta.basis : tau.basis);
    }
  }

  void set_provenance() {
    const std::string mode = numa_mode_name(mode_);
    t_.name = mode_ == spec_.mode ? spec_.name : spec_.name + "-" + mode;
    t_.description = "derived from the spec sheet " + spec_.name + " in " + mode +
                     (spec_.description.empty() ? "" : ": " + spec_.description);
    t_.provenance.source = "numatwin topo from-spec " + options_.source_name + " --mode " + mode;
    t_.provenance.theoretical = {"/nodes/*/cores", "/nodes/*/threads_per_core", "/nodes/*/frequency_ghz",
                                 "/nodes/*/caches", "/nodes/*/memory_capacity_bytes"};
    std::string figures;
    for (const DerivedFigure& f : figures_) {
      if (f.pointer.empty()) continue;
      const auto& r = t_.provenance.reconstructed;
      if (std::find(r.begin(), r.end(), f.pointer) == r.end()) t_.provenance.reconstructed.push_back(f.pointer);
      figures += " " + f.pointer + " = " + fmt(f.value) + (f.unit.empty() ? "" : " " + f.unit) + " [" + fmt(f.low) +
                 ", " + fmt(f.high) + "] by " + f.rule + " (" + f.basis + ")" + (f.transferred ? ", TRANSFERRED" : "") + ";";
    }
    std::string notes = "DERIVED FROM A SPEC SHEET: nothing in this file was measured on this machine. Every "
                        "figure is a rule's (model/spec_rules.hpp), fitted on the measured machines each basis "
                        "names; a generation with none of its own borrows the nearest one (said 'transferred'). "
                        "The figures, their ranges and rules:" + figures;
    for (const auto& [pointer, source] : spec_.sources) notes += " Spec " + pointer + ": " + source + ".";
    t_.provenance.notes = notes;
  }

  const SpecSheet& spec_;
  const SpecRules& rules_;
  const DerivationOptions& options_;
  NumaMode mode_;
  bool amd_;
  std::vector<NodePlan> plans_;
  Topology t_;
  std::vector<DerivedFigure> figures_;
  int miss_buffers_ = 16;
  int cpuless_ = 0;
};

}  // namespace

DerivedMachine derive_machine(const SpecSheet& spec, const SpecRules& rules, const DerivationOptions& options) {
  return Deriver(spec, rules, options).run();
}

}  // namespace numatwin::model
