#include "numatwin/gui/topology_edit.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "numatwin/model/topology_check.hpp"

namespace numatwin::gui {
namespace {

// One entry of the file's "links" array: one directed link or a mirrored pair.
struct Entry {
  model::Link forward;
  std::optional<model::Link> backward;
};

std::vector<Entry> entries_of(const model::Topology& t) {
  std::vector<Entry> out;
  std::size_t i = 0;
  while (i < t.links.size()) {
    Entry e{t.links[i], std::nullopt};
    if (i + 1 < t.links.size() && t.links[i + 1].spec_index == t.links[i].spec_index) {
      e.backward = t.links[i + 1];
      i += 2;
    } else {
      i += 1;
    }
    out.push_back(e);
  }
  return out;
}

void store(model::Topology& t, const std::vector<Entry>& entries) {
  t.links.clear();
  int spec = 0;
  for (const Entry& e : entries) {
    model::Link f = e.forward;
    f.spec_index = spec;
    t.links.push_back(f);
    if (e.backward) {
      model::Link b = *e.backward;
      b.spec_index = spec;
      t.links.push_back(b);
    }
    ++spec;
  }
}

void check_index(const model::Topology& t, int link) {
  if (link < 0 || link >= static_cast<int>(t.links.size())) throw std::invalid_argument("no link with index " + std::to_string(link));
}

void note(model::Topology& t, const std::string& what) {
  if (!t.provenance.notes.empty() && t.provenance.notes.back() != '\n') t.provenance.notes += "\n";
  t.provenance.notes += "what-if edit (numatwin-gui): " + what;
}

std::string number(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

}  // namespace

void set_link_bandwidth(model::Topology& t, int link, double bandwidth_gbps, bool both_directions) {
  check_index(t, link);
  if (!(bandwidth_gbps > 0.0) || !std::isfinite(bandwidth_gbps)) throw std::invalid_argument("bandwidth must be a number > 0 GB/s");
  const model::NodeIndex from = t.links[link].from;
  const model::NodeIndex to = t.links[link].to;
  const double old = t.links[link].bandwidth_gbps;
  std::vector<Entry> entries = entries_of(t);
  std::vector<Entry> out;
  auto matches = [&](const model::Link& l) {
    return (l.from == from && l.to == to) || (both_directions && l.from == to && l.to == from);
  };
  for (Entry e : entries) {
    const bool hit_f = matches(e.forward);
    const bool hit_b = e.backward && matches(*e.backward);
    if (e.backward && hit_f != hit_b) {
      // A symmetric entry changed in one direction only: split it into two directed entries.
      Entry f{e.forward, std::nullopt};
      Entry b{*e.backward, std::nullopt};
      if (hit_f) f.forward.bandwidth_gbps = bandwidth_gbps;
      if (hit_b) b.forward.bandwidth_gbps = bandwidth_gbps;
      out.push_back(f);
      out.push_back(b);
      continue;
    }
    if (hit_f) e.forward.bandwidth_gbps = bandwidth_gbps;
    if (hit_b) e.backward->bandwidth_gbps = bandwidth_gbps;
    out.push_back(e);
  }
  store(t, out);
  note(t, t.nodes[from].id + (both_directions ? "<->" : "->") + t.nodes[to].id + " bandwidth " + number(old) + " -> " +
              number(bandwidth_gbps) + " GB/s");
}

void remove_link(model::Topology& t, int link, bool both_directions) {
  check_index(t, link);
  const model::NodeIndex from = t.links[link].from;
  const model::NodeIndex to = t.links[link].to;
  auto matches = [&](const model::Link& l) {
    return (l.from == from && l.to == to) || (both_directions && l.from == to && l.to == from);
  };
  std::vector<Entry> out;
  for (const Entry& e : entries_of(t)) {
    const bool hit_f = matches(e.forward);
    const bool hit_b = e.backward && matches(*e.backward);
    if (hit_f && (!e.backward || hit_b)) continue;
    if (e.backward && (hit_f || hit_b)) {
      out.push_back(Entry{hit_f ? *e.backward : e.forward, std::nullopt});
      continue;
    }
    out.push_back(e);
  }
  store(t, out);
  note(t, "removed " + t.nodes[from].id + (both_directions ? "<->" : "->") + t.nodes[to].id);
}

void add_link(model::Topology& t, int a, int b, double bandwidth_per_direction_gbps, double latency_ns) {
  const int n = static_cast<int>(t.nodes.size());
  if (a < 0 || a >= n || b < 0 || b >= n) throw std::invalid_argument("both ends must be nodes of the machine");
  if (a == b) throw std::invalid_argument("a link joins two different nodes");
  if (!(bandwidth_per_direction_gbps > 0.0) || !std::isfinite(bandwidth_per_direction_gbps)) {
    throw std::invalid_argument("bandwidth must be a number > 0 GB/s");
  }
  if (!(latency_ns >= 0.0) || !std::isfinite(latency_ns)) throw std::invalid_argument("latency must be a number >= 0 ns");
  if (t.find_link(a, b) || t.find_link(b, a)) {
    throw std::invalid_argument(t.nodes[a].id + " and " + t.nodes[b].id + " are already linked: change that link's bandwidth instead");
  }
  std::vector<Entry> entries = entries_of(t);
  entries.push_back(Entry{model::Link{a, b, bandwidth_per_direction_gbps, latency_ns, 0},
                          model::Link{b, a, bandwidth_per_direction_gbps, latency_ns, 0}});
  store(t, entries);
  note(t, "added " + t.nodes[a].id + "<->" + t.nodes[b].id + " " + number(bandwidth_per_direction_gbps) + " GB/s per direction, " +
              number(latency_ns) + " ns");
}

std::optional<std::string> check_edited_topology(const model::Topology& topology) {
  try {
    model::check_topology(topology, topology.name + " (edited)");
  } catch (const std::exception& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

}  // namespace numatwin::gui
