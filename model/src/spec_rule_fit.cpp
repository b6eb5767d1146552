#include "numatwin/model/spec_rule_fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "numatwin/model/routing.hpp"
#include "numatwin/model/spec_derivation.hpp"

namespace numatwin::model {

namespace {

constexpr double kProbeDomain = 100.0;
constexpr double kProbeStep = 10.0;
constexpr double kProbeSocket = 100.0;
constexpr SpecMemoryKind kDramKinds[] = {SpecMemoryKind::kDdr3, SpecMemoryKind::kDdr4, SpecMemoryKind::kDdr5,
                                         SpecMemoryKind::kMrdimm, SpecMemoryKind::kLpddr5x};
constexpr const char* kLinkKinds[] = {"qpi", "upi", "xgmi", "infinity-fabric", "nvlink-c2c"};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mean(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x;
  return s / static_cast<double>(v.size());
}

std::string fmt(double v) {
  std::ostringstream s;
  s.precision(4);
  s << v;
  return s.str();
}

// One machine's value of a rule and the per-entry values behind it.
struct Estimate {
  std::string machine;
  double value = 0.0;
  std::vector<double> entries;
};

RuleValue combine(const std::vector<Estimate>& estimates, const std::string& what) {
  std::vector<double> values;
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  std::string names;
  for (const Estimate& e : estimates) {
    values.push_back(e.value);
    low = std::min(low, e.value);
    high = std::max(high, e.value);
    for (const double x : e.entries) {
      low = std::min(low, x);
      high = std::max(high, x);
    }
    names += (names.empty() ? "" : ", ") + e.machine + " " + fmt(e.value);
  }
  return RuleValue{median(values), low, high, "fitted (" + what + ") on " + names + ": the median; range of the entries"};
}

// The rule set the latency coefficients are read off: every rule present, latency rules at the
// probe values (moved by `d_domain`, `d_step`, `d_socket`).
SpecRules probe_rules(const SpecRules& base, double d_domain, double d_step, double d_socket) {
  SpecRules r = base;
  for (auto& [name, g] : r.generations) {
    g.domain_latency_ns = RuleValue{kProbeDomain + d_domain, kProbeDomain + d_domain, kProbeDomain + d_domain, "probe"};
    g.socket_step_ns = RuleValue{kProbeSocket + d_socket, kProbeSocket + d_socket, kProbeSocket + d_socket, "probe"};
    g.lines_in_flight = RuleValue{20.0, 20.0, 20.0, "probe"};
    if (!g.gmi_link_read_gbps) g.gmi_link_read_gbps = RuleValue{50.0, 50.0, 50.0, "probe"};
  }
  r.die_step_ns = RuleValue{kProbeStep + d_step, kProbeStep + d_step, kProbeStep + d_step, "probe"};
  for (const SpecMemoryKind k : kDramKinds) {
    r.dram_read_efficiency[k] = RuleValue{0.8, 0.8, 0.8, "probe"};
    r.write_turnaround[k] = RuleValue{0.5, 0.5, 0.5, "probe"};
  }
  for (const char* k : kLinkKinds) r.link_efficiency[k] = RuleValue{0.85, 0.85, 0.85, "probe"};
  return r;
}

// What the Deriver makes of one machine's sheet, for the fit.
struct Design {
  int sockets = 1;
  int nodes_per_socket = 1;
  int cores_per_node = 1;
  // Per idle latency entry (same order as the machine's; absent when its nodes are not derived).
  struct Entry {
    double latency_ns = 0.0;
    double c0 = 0.0;
    double steps = 0.0;         // cS
    double socket_steps = 0.0;  // cX
  };
  std::vector<Entry> idle;
};

std::vector<std::vector<double>> latency_matrix(const MeasuredMachine& m, const SpecRules& rules,
                                                std::vector<int>* cores) {
  const DerivedMachine d = derive_machine(*m.spec, rules, DerivationOptions{std::nullopt, std::nullopt, m.spec_file});
  const Routing routing(d.topology);
  std::vector<NodeIndex> cpu;
  for (const NodeIndex n : d.topology.numa_nodes()) {
    if (d.topology.nodes[static_cast<std::size_t>(n)].has_cores()) cpu.push_back(n);
  }
  std::vector<std::vector<double>> out;
  for (const NodeIndex a : cpu) {
    std::vector<double> row;
    for (const NodeIndex b : cpu) row.push_back(routing.access_latency_ns(a, b));
    out.push_back(std::move(row));
    if (cores != nullptr) cores->push_back(d.topology.nodes[static_cast<std::size_t>(a)].cores);
  }
  return out;
}

Design design_of(const MeasuredMachine& m, const SpecRules& base) {
  Design g;
  g.sockets = m.spec->sockets;
  std::vector<int> cores;
  const auto p0 = latency_matrix(m, probe_rules(base, 0, 0, 0), &cores);
  const auto pd = latency_matrix(m, probe_rules(base, 1, 0, 0), nullptr);
  const auto ps = latency_matrix(m, probe_rules(base, 0, 1, 0), nullptr);
  const auto px = latency_matrix(m, probe_rules(base, 0, 0, 1), nullptr);
  g.nodes_per_socket = static_cast<int>(p0.size()) / std::max(1, g.sockets);
  g.cores_per_node = cores.empty() ? 1 : cores.front();
  for (const NodePairFigure& f : m.idle_latency_ns) {
    const auto i = static_cast<std::size_t>(f.from_node);
    const auto j = static_cast<std::size_t>(f.to_node);
    if (i >= p0.size() || j >= p0.size()) {
      g.idle.push_back({-1.0, 0, 0, 0});
      continue;
    }
    Design::Entry e;
    e.latency_ns = f.value;
    const double c_d = pd[i][j] - p0[i][j];
    e.steps = ps[i][j] - p0[i][j];
    e.socket_steps = px[i][j] - p0[i][j];
    e.c0 = p0[i][j] - kProbeDomain * c_d - kProbeStep * e.steps - kProbeSocket * e.socket_steps;
    g.idle.push_back(e);
  }
  return g;
}

struct Fitted {
  const MeasuredMachine* machine;
  Design design;
};

std::optional<Estimate> step_estimate(const Fitted& f) {
  std::vector<double> x;
  std::vector<double> y;
  for (const auto& e : f.design.idle) {
    if (e.latency_ns > 0.0 && e.socket_steps < 0.5) {
      x.push_back(e.steps);
      y.push_back(e.latency_ns - e.c0);
    }
  }
  if (x.size() < 2 || *std::max_element(x.begin(), x.end()) - *std::min_element(x.begin(), x.end()) < 0.25) {
    return std::nullopt;
  }
  const double mx = mean(x);
  const double my = mean(y);
  double sxy = 0.0;
  double sxx = 0.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sxy += (x[k] - mx) * (y[k] - my);
    sxx += (x[k] - mx) * (x[k] - mx);
  }
  Estimate e{f.machine->id, sxy / sxx, {}};
  const double intercept = my - e.value * mx;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (x[k] >= 0.25) e.entries.push_back((y[k] - intercept) / x[k]);
  }
  return e;
}

// Mark a rule no machine of the set fits as carried from `base`.
RuleValue carried(RuleValue v) {
  v.basis = "not fitted (no machine of the set measures it), as default_spec_rules: " + v.basis;
  return v;
}

// Per-kind values, every kind of `kinds` filled: its own machines', else every machine's.
template <typename Key>
void fill_by_kind(std::map<Key, RuleValue>& out, const std::map<Key, std::vector<Estimate>>& by_kind,
                  const std::vector<Key>& kinds, const std::string& what, const std::map<Key, RuleValue>& base,
                  const std::function<std::string(const Key&)>& name) {
  std::vector<Estimate> all;
  for (const auto& [k, list] : by_kind) all.insert(all.end(), list.begin(), list.end());
  for (const Key& k : kinds) {
    const auto own = by_kind.find(k);
    if (own != by_kind.end() && !own->second.empty()) {
      out[k] = combine(own->second, what);
    } else if (!all.empty()) {
      RuleValue v = combine(all, what);
      v.basis = "no " + name(k) + " machine in the set: every kind's; " + v.basis;
      out[k] = v;
    } else if (const auto b = base.find(k); b != base.end()) {
      out[k] = carried(b->second);
    }
  }
}

}  // namespace

SpecRules fit_spec_rules(const std::vector<const MeasuredMachine*>& machines, const SpecRules& base) {
  std::vector<Fitted> set;
  for (const MeasuredMachine* m : machines) {
    if (m->spec) set.push_back(Fitted{m, design_of(*m, base)});
  }
  SpecRules r = base;
  for (auto& [name, g] : r.generations) {
    g.domain_latency_ns.reset();
    g.socket_step_ns.reset();
    g.lines_in_flight.reset();
    if (g.gmi_link_read_gbps) g.gmi_link_read_gbps = carried(*g.gmi_link_read_gbps);
  }

  // s, then D and X per machine, then per generation.
  std::vector<Estimate> steps;
  for (const Fitted& f : set) {
    if (auto e = step_estimate(f)) steps.push_back(*e);
  }
  r.die_step_ns = steps.empty() ? carried(base.die_step_ns) : combine(steps, "die step s, ns");
  const double s = r.die_step_ns.value;
  std::map<std::string, std::vector<Estimate>> domain;
  std::map<std::string, std::vector<Estimate>> socket;
  for (const Fitted& f : set) {
    const std::string& gen = f.machine->spec->socket.generation;
    std::vector<double> d;
    for (std::size_t k = 0; k < f.design.idle.size(); ++k) {
      const auto& e = f.design.idle[k];
      const NodePairFigure& measured = f.machine->idle_latency_ns[k];
      if (e.latency_ns > 0.0 && measured.from_node == measured.to_node) d.push_back(e.latency_ns - e.c0 - s * e.steps);
    }
    if (d.empty()) continue;
    const double dm = mean(d);
    domain[gen].push_back({f.machine->id, dm, d});
    std::vector<double> x;
    for (const auto& e : f.design.idle) {
      if (e.latency_ns > 0.0 && e.socket_steps >= 0.5) x.push_back((e.latency_ns - e.c0 - dm - s * e.steps) / e.socket_steps);
    }
    if (!x.empty()) socket[gen].push_back({f.machine->id, mean(x), x});
  }
  for (const auto& [gen, list] : domain) r.generations[gen].domain_latency_ns = combine(list, "domain latency D, ns");
  for (const auto& [gen, list] : socket) r.generations[gen].socket_step_ns = combine(list, "socket step X, ns");

  // eta, tau, eta_link, M, e.
  std::map<SpecMemoryKind, std::vector<Estimate>> eta;
  std::map<SpecMemoryKind, std::vector<Estimate>> tau;
  std::map<std::string, std::vector<Estimate>> link;
  std::map<std::string, std::vector<Estimate>> lines;
  std::vector<Estimate> exponent;
  for (const Fitted& f : set) {
    const MeasuredMachine& m = *f.machine;
    const SpecSheet& spec = *m.spec;
    const double socket_theoretical = theoretical_dram_gbps(spec.socket.memory);
    const double node_theoretical = socket_theoretical / f.design.nodes_per_socket;
    const SpecMemoryKind kind = spec.socket.memory.kind;
    std::vector<double> local;
    std::vector<double> remote;
    for (const NodePairFigure& b : m.bandwidth_gbps) {
      const int si = b.from_node / f.design.nodes_per_socket;
      const int sj = b.to_node / f.design.nodes_per_socket;
      if (b.from_node == b.to_node) local.push_back(b.value / node_theoretical);
      if (si != sj && f.design.nodes_per_socket == 1 && spec.socket_links) {
        remote.push_back(b.value / theoretical_link_gbps(*spec.socket_links));
      }
    }
    std::map<FigureScope, double> all_reads;
    for (const PeakInjectionFigure& p : m.peak_injection) {
      if (p.write_fraction == 0.0) all_reads[p.scope] = p.value_gbps;
    }
    if (local.empty()) {
      for (const auto& [scope, v] : all_reads) {
        local.push_back(v / (socket_theoretical * (scope == FigureScope::kWholeMachine ? spec.sockets : 1)));
      }
    }
    if (!local.empty()) eta[kind].push_back({m.id, mean(local), local});
    if (!remote.empty()) link[spec.socket_links->kind].push_back({m.id, mean(remote), remote});
    std::vector<double> t;
    for (const PeakInjectionFigure& p : m.peak_injection) {
      const auto read = all_reads.find(p.scope);
      if (p.write_fraction > 0.0 && read != all_reads.end()) t.push_back((read->second / p.value_gbps - 1.0) / p.write_fraction);
    }
    if (!t.empty()) tau[kind].push_back({m.id, median(t), t});
    std::vector<double> m_lines;
    std::vector<double> e_points;
    for (const LoadedLatencyCurve& c : m.loaded_latency) {
      if (c.write_fraction != 0.0 || c.points.size() < 2) continue;
      const auto top = std::max_element(c.points.begin(), c.points.end(),
                                         [](const auto& a, const auto& b) { return a.bandwidth_gbps < b.bandwidth_gbps; });
      const auto idle = std::min_element(c.points.begin(), c.points.end(),
                                         [](const auto& a, const auto& b) { return a.bandwidth_gbps < b.bandwidth_gbps; });
      const int nodes = c.scope == FigureScope::kWholeMachine ? f.design.nodes_per_socket * spec.sockets
                                                              : f.design.nodes_per_socket;
      m_lines.push_back(top->latency_ns * (top->bandwidth_gbps / nodes) / (f.design.cores_per_node * 64.0));
      for (const auto& p : c.points) {
        const double u = p.bandwidth_gbps / top->bandwidth_gbps;
        if (u < 0.2 || u > 0.95 || p.latency_ns <= idle->latency_ns || p.latency_ns >= top->latency_ns) continue;
        e_points.push_back(std::log((p.latency_ns - idle->latency_ns) / (top->latency_ns - idle->latency_ns)) / std::log(u));
      }
    }
    if (!m_lines.empty()) lines[spec.socket.generation].push_back({m.id, mean(m_lines), m_lines});
    if (!e_points.empty()) exponent.push_back({m.id, median(e_points), {}});
  }
  for (const auto& [gen, list] : lines) r.generations[gen].lines_in_flight = combine(list, "lines in flight M");
  r.queue_exponent = exponent.empty() ? carried(base.queue_exponent) : combine(exponent, "queue exponent e");
  const std::vector<SpecMemoryKind> kinds(std::begin(kDramKinds), std::end(kDramKinds));
  const auto kind_name = [](const SpecMemoryKind& k) { return spec_memory_kind_name(k); };
  r.dram_read_efficiency.clear();
  r.write_turnaround.clear();
  fill_by_kind<SpecMemoryKind>(r.dram_read_efficiency, eta, kinds, "DRAM efficiency eta", base.dram_read_efficiency, kind_name);
  fill_by_kind<SpecMemoryKind>(r.write_turnaround, tau, kinds, "write cost tau", base.write_turnaround, kind_name);
  const std::vector<std::string> links(std::begin(kLinkKinds), std::end(kLinkKinds));
  r.link_efficiency.clear();
  fill_by_kind<std::string>(r.link_efficiency, link, links, "socket-link efficiency", base.link_efficiency,
                            [](const std::string& k) { return k; });
  r.pcie_efficiency = carried(base.pcie_efficiency);
  for (auto& [k, v] : r.cxl_bandwidth_factor) v = carried(v);
  for (auto& [k, v] : r.cxl_latency_factor) v = carried(v);
  r.hbm_read_efficiency = carried(base.hbm_read_efficiency);
  r.hbm_latency_factor = carried(base.hbm_latency_factor);
  return r;
}

}  // namespace numatwin::model
