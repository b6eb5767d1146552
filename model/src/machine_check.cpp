#include "numatwin/model/machine_check.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/machine_figures.hpp"
#include "numatwin/model/spec_derivation.hpp"
#include "numatwin/model/spec_rule_fit.hpp"

namespace numatwin::model {

namespace {

std::string fmt(double v, int digits = 4) {
  std::ostringstream s;
  s.precision(digits);
  s << v;
  return s.str();
}

void set(RuleValue& v, bool high) { v.value = high ? v.high : v.low; }

// The rules at one corner of their ranges, for `generation` (resolved through the transfer, so
// that a borrowed figure carries the transfer's wider range).
SpecRules corner(const SpecRules& rules, const SpecSheet& spec, bool latency_high, bool bandwidth_high,
                 bool queue_high) {
  SpecRules r = rules;
  GenerationRules& g = r.generations[spec.socket.generation];
  if (!rules.generations.count(spec.socket.generation)) g.vendor = spec.vendor;
  const auto resolve = [&](GenerationField field, bool high) {
    if (const auto f = generation_figure(rules, spec.socket.generation, spec.vendor, field)) {
      RuleValue v = f->value;
      set(v, high);
      g.*field = v;
    }
  };
  resolve(&GenerationRules::domain_latency_ns, latency_high);
  resolve(&GenerationRules::socket_step_ns, latency_high);
  resolve(&GenerationRules::lines_in_flight, queue_high);
  resolve(&GenerationRules::gmi_link_read_gbps, bandwidth_high);
  set(r.die_step_ns, latency_high);
  set(r.queue_exponent, !queue_high);
  for (auto& [k, v] : r.dram_read_efficiency) set(v, bandwidth_high);
  for (auto& [k, v] : r.write_turnaround) set(v, !bandwidth_high);
  for (auto& [k, v] : r.link_efficiency) set(v, bandwidth_high);
  return r;
}

double write_cost(const SpecRules& rules, SpecMemoryKind kind) {
  auto it = rules.write_turnaround.find(kind);
  if (it == rules.write_turnaround.end()) {
    it = rules.write_turnaround.find(kind == SpecMemoryKind::kDdr4 ? SpecMemoryKind::kDdr4 : SpecMemoryKind::kDdr5);
  }
  return it == rules.write_turnaround.end() ? 0.0 : it->second.value;
}

// One derivation's predictions of every figure it can speak to, in the order check_machine
// lists them (NaN: not predicted, with the reason in `why`).
struct Predictor {
  DerivedMachine derived;
  MachineFigures figures;
  double tau = 0.0;

  Predictor(const MeasuredMachine& m, const SpecRules& rules)
      : derived(derive_machine(*m.spec, rules, DerivationOptions{std::nullopt, std::nullopt, m.spec_file})),
        figures(predict_machine_figures(derived.topology)),
        tau(write_cost(rules, m.spec->socket.memory.kind)) {}

  double matrix(const std::vector<std::vector<double>>& x, const NodePairFigure& f, std::string* why) const {
    const auto rows = figures.cpu_nodes.size();
    const auto cols = figures.memory_nodes.size();
    if (static_cast<std::size_t>(f.from_node) >= rows || static_cast<std::size_t>(f.to_node) >= cols) {
      *why = "node " + std::to_string(std::max(f.from_node, f.to_node)) + " is not in the derived machine (" +
             std::to_string(rows) + " nodes with cores)";
      return std::numeric_limits<double>::quiet_NaN();
    }
    return x[static_cast<std::size_t>(f.from_node)][static_cast<std::size_t>(f.to_node)];
  }

  // Read bandwidth of the scope's nodes on their own memory, at write share w.
  double peak(FigureScope scope, double w) const {
    double c = 0.0;
    for (const NodeIndex n : figures.cpu_nodes) {
      const Node& node = derived.topology.nodes[static_cast<std::size_t>(n)];
      if (scope == FigureScope::kOneSocket && node.package != "p0") continue;
      if (node.has_memory()) c += node.memory_read_bandwidth_gbps;
    }
    return c / (1.0 + tau * w);
  }

  double loaded(const LoadedLatencyCurve& c, double bandwidth_gbps) const {
    const Node& n0 = derived.topology.nodes[static_cast<std::size_t>(figures.cpu_nodes.front())];
    const double u = std::min(1.0, bandwidth_gbps / peak(c.scope, c.write_fraction));
    const PerformanceParameters& p = derived.topology.performance;
    return n0.local_latency_ns + p.memory_queue_ns * std::pow(u, p.queue_exponent);
  }

  // Every prediction, in check order.
  std::vector<double> all(const MeasuredMachine& m, std::vector<std::string>* why) const {
    std::vector<double> out;
    const auto add = [&](double v, const std::string& reason) {
      out.push_back(v);
      if (why != nullptr) why->push_back(reason);
    };
    for (const NodePairFigure& f : m.idle_latency_ns) {
      std::string reason;
      const double v = matrix(figures.idle_latency_ns, f, &reason);
      add(v, reason);
    }
    for (const NodePairFigure& f : m.bandwidth_gbps) {
      std::string reason;
      const double v = matrix(figures.bandwidth_gbps, f, &reason);
      add(v, reason);
    }
    for (const PeakInjectionFigure& p : m.peak_injection) add(peak(p.scope, p.write_fraction), "");
    for (const LoadedLatencyCurve& c : m.loaded_latency) {
      for (const auto& p : c.points) add(loaded(c, p.bandwidth_gbps), "");
    }
    return out;
  }
};

struct Listed {
  FigureClass figure_class;
  std::string what;
  std::string pointer;
  double measured;
};

std::vector<Listed> listed(const MeasuredMachine& m) {
  std::vector<Listed> out;
  const auto scope = [](FigureScope s) { return s == FigureScope::kOneSocket ? " (one socket)" : ""; };
  for (const NodePairFigure& f : m.idle_latency_ns) {
    out.push_back({FigureClass::kIdleLatency, "idle latency " + std::to_string(f.from_node) + " -> " + std::to_string(f.to_node),
                   f.pointer, f.value});
  }
  for (const NodePairFigure& f : m.bandwidth_gbps) {
    out.push_back({FigureClass::kBandwidth, "bandwidth " + std::to_string(f.from_node) + " -> " + std::to_string(f.to_node),
                   f.pointer, f.value});
  }
  for (const PeakInjectionFigure& p : m.peak_injection) {
    out.push_back({FigureClass::kPeakInjection, "peak injection " + p.mix + scope(p.scope), p.pointer, p.value_gbps});
  }
  for (const LoadedLatencyCurve& c : m.loaded_latency) {
    for (std::size_t i = 0; i < c.points.size(); ++i) {
      out.push_back({FigureClass::kLoadedLatency,
                     "loaded latency " + c.mix.substr(0, c.mix.find(" (")) + scope(c.scope) + " at " +
                         fmt(c.points[i].bandwidth_gbps) + " GB/s",
                     c.pointer + "/points/" + std::to_string(i), c.points[i].latency_ns});
    }
  }
  return out;
}

void all_unpredicted(const MeasuredMachine& m, const std::string& reason, MachineCheck* out) {
  for (const Listed& l : listed(m)) out->unpredicted.push_back({l.figure_class, l.pointer, l.what, 1, reason});
}

}  // namespace

MachineCheck check_machine(const MeasuredMachine& m, const SpecRules& rules) {
  MachineCheck out{m.id, {}, m.unpredicted};
  if (!m.spec) {
    all_unpredicted(m, m.no_spec_reason, &out);
    return out;
  }
  std::vector<std::string> why;
  std::vector<double> middle;
  std::vector<std::vector<double>> corners;
  try {
    middle = Predictor(m, rules).all(m, &why);
    for (int c = 0; c < 8; ++c) {
      try {
        corners.push_back(Predictor(m, corner(rules, *m.spec, (c & 1) != 0, (c & 2) != 0, (c & 4) != 0)).all(m, nullptr));
      } catch (const InputError&) {
        // A corner the Deriver refuses (a latency at or below zero): it bounds nothing.
      }
    }
  } catch (const InputError& e) {
    all_unpredicted(m, std::string("the derivation refused the sheet: ") + e.what(), &out);
    return out;
  }
  const std::vector<Listed> list = listed(m);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (std::isnan(middle[i])) {
      out.unpredicted.push_back({list[i].figure_class, list[i].pointer, list[i].what, 1, why[i]});
      continue;
    }
    double low = middle[i];
    double high = middle[i];
    for (const auto& c : corners) {
      low = std::min(low, c[i]);
      high = std::max(high, c[i]);
    }
    out.checks.push_back({list[i].figure_class, list[i].what, list[i].pointer, list[i].measured, middle[i], low, high});
  }
  return out;
}

std::vector<MachineCheck> check_leave_one_out(const std::vector<MeasuredMachine>& machines, const SpecRules& base,
                                              const std::vector<MeasuredMachine>& always_fitted) {
  std::vector<MachineCheck> out;
  for (std::size_t i = 0; i < machines.size(); ++i) {
    if (!machines[i].spec) {
      out.push_back(check_machine(machines[i], base));
      continue;
    }
    std::vector<const MeasuredMachine*> others;
    for (std::size_t j = 0; j < machines.size(); ++j) {
      if (j != i) others.push_back(&machines[j]);
    }
    for (const MeasuredMachine& m : always_fitted) others.push_back(&m);
    out.push_back(check_machine(machines[i], fit_spec_rules(others, base)));
  }
  return out;
}

ErrorSummary summarise(const std::vector<const FigureCheck*>& checks) {
  ErrorSummary s;
  s.count = static_cast<int>(checks.size());
  if (checks.empty()) return s;
  std::vector<double> errors;
  int inside = 0;
  for (const FigureCheck* c : checks) {
    errors.push_back(std::abs(c->error_pct()));
    inside += c->inside() ? 1 : 0;
  }
  std::sort(errors.begin(), errors.end());
  const std::size_t n = errors.size();
  s.median_abs_error_pct = n % 2 == 1 ? errors[n / 2] : 0.5 * (errors[n / 2 - 1] + errors[n / 2]);
  s.worst_abs_error_pct = errors.back();
  s.inside_share = static_cast<double>(inside) / static_cast<double>(n);
  return s;
}

}  // namespace numatwin::model
