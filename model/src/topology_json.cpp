#include "numatwin/model/topology_json.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

#include "numatwin/model/allocator_costs_json.hpp"
#include "numatwin/model/dependent_miss_json.hpp"
#include "numatwin/model/ecm_json.hpp"
#include "numatwin/model/tlb_json.hpp"
#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"
#include "numatwin/model/topology_check.hpp"

namespace numatwin::model {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr int kFormatVersion = 1;

using Reader = JsonReader;

CacheLevel read_cache(const Reader& r) {
  r.expect_object("a cache description");
  r.allow_only({"level", "size_bytes", "shared_by_cores"});
  CacheLevel cache;
  cache.level = r.field("level").small_integer(1);
  cache.size_bytes = r.field("size_bytes").integer(1, std::numeric_limits<std::int64_t>::max());
  cache.shared_by_cores = r.field("shared_by_cores").small_integer(1);
  return cache;
}

Position read_position(const Reader& r) {
  r.expect_object("drawing coordinates {\"x\": number, \"y\": number}");
  r.allow_only({"x", "y"});
  return Position{r.field("x").number(), r.field("y").number()};
}

Node read_node(const Reader& r) {
  r.expect_object("a node");
  Node node;
  const std::string kind = r.field("kind").string(true);
  if (kind == "router") {
    node.kind = NodeKind::kRouter;
    r.allow_only({"id", "kind", "label", "forwarding_bandwidth_gbps", "position"});
  } else if (kind == "node") {
    node.kind = NodeKind::kNode;
    r.allow_only({"id", "kind", "label", "package", "cores", "threads_per_core", "frequency_ghz",
                  "caches", "memory_capacity_bytes", "memory_read_bandwidth_gbps",
                  "memory_write_bandwidth_gbps", "local_latency_ns", "memory_kind",
                  "memory_side_cache", "miss_buffers_per_core", "forwarding_bandwidth_gbps",
                  "position"});
  } else {
    r.field("kind").fail("expected \"node\" or \"router\", found \"" + kind + "\"");
  }
  node.id = r.field("id").string(true);
  if (r.has("label")) node.label = r.field("label").string(false);
  if (r.has("position")) node.position = read_position(r.field("position"));
  if (r.has("forwarding_bandwidth_gbps"))
    node.forwarding_bandwidth_gbps = r.field("forwarding_bandwidth_gbps").number();
  if (node.kind == NodeKind::kRouter) return node;

  node.cores = r.field("cores").small_integer(0);
  node.threads_per_core = r.field("threads_per_core").small_integer(1);
  node.frequency_ghz = r.field("frequency_ghz").number();
  const Reader caches = r.field("caches");
  caches.expect_array("a list of caches");
  for (std::size_t i = 0; i < caches.size(); ++i)
    node.caches.push_back(read_cache(caches.element(i)));
  node.memory_capacity_bytes =
      r.field("memory_capacity_bytes").integer(0, std::numeric_limits<std::int64_t>::max());
  node.memory_read_bandwidth_gbps = r.field("memory_read_bandwidth_gbps").number();
  if (r.has("memory_write_bandwidth_gbps")) {
    node.memory_write_bandwidth_gbps = r.field("memory_write_bandwidth_gbps").number();
  }
  node.local_latency_ns = r.field("local_latency_ns").number();
  if (r.has("package")) node.package = r.field("package").string(true);
  if (r.has("memory_kind")) {
    const Reader kind_field = r.field("memory_kind");
    const std::string kind_name = kind_field.string(true);
    node.memory_kind = parse_memory_kind(kind_name);
    if (!node.memory_kind)
      kind_field.fail("expected \"DRAM\", \"HBM\", \"CXL\" or \"NVM\", found \"" + kind_name +
                      "\"");
  }
  if (r.has("memory_side_cache")) {
    const Reader c = r.field("memory_side_cache");
    c.expect_object(
        "a memory-side cache {\"capacity_bytes\", \"latency_ns\", \"read_bandwidth_gbps\"}");
    c.allow_only({"capacity_bytes", "latency_ns", "read_bandwidth_gbps"});
    node.memory_side_cache = MemorySideCache{
        c.field("capacity_bytes").integer(1, std::numeric_limits<std::int64_t>::max()),
        c.field("latency_ns").number(), c.field("read_bandwidth_gbps").number()};
  }
  if (node.cores > 0) {
    node.miss_buffers_per_core = r.field("miss_buffers_per_core").small_integer(1);
  } else if (r.has("miss_buffers_per_core")) {
    r.field("miss_buffers_per_core").fail("allowed only for nodes with cores > 0");
  }
  return node;
}

NodeIndex resolve_node(const Reader& r, const std::map<std::string, NodeIndex>& ids) {
  const std::string id = r.string(true);
  auto it = ids.find(id);
  if (it == ids.end())
    r.fail("unknown node id \"" + id + "\"; expected the id of a node in /nodes");
  return it->second;
}

void read_link(const Reader& r, int spec_index, const std::map<std::string, NodeIndex>& ids,
               Topology& topology) {
  r.expect_object("a link");
  if (r.has("between")) {
    r.allow_only({"between", "bandwidth_per_direction_gbps", "latency_ns"});
    const Reader ends = r.field("between");
    ends.expect_array("the two node ids of a symmetric link");
    if (ends.size() != 2)
      ends.fail("expected exactly two node ids, found " + std::to_string(ends.size()));
    const NodeIndex a = resolve_node(ends.element(0), ids);
    const NodeIndex b = resolve_node(ends.element(1), ids);
    const double bandwidth = r.field("bandwidth_per_direction_gbps").number();
    const double latency = r.field("latency_ns").number();
    topology.links.push_back(Link{a, b, bandwidth, latency, spec_index});
    topology.links.push_back(Link{b, a, bandwidth, latency, spec_index});
  } else if (r.has("from") || r.has("to")) {
    r.allow_only({"from", "to", "bandwidth_gbps", "latency_ns"});
    const NodeIndex from = resolve_node(r.field("from"), ids);
    const NodeIndex to = resolve_node(r.field("to"), ids);
    topology.links.push_back(Link{from, to, r.field("bandwidth_gbps").number(),
                                  r.field("latency_ns").number(), spec_index});
  } else {
    r.fail(
        "expected a symmetric link {\"between\": [a, b], ...} or a directed link {\"from\": a, "
        "\"to\": b, ...}");
  }
}

Coherence read_coherence(const Reader& r) {
  r.expect_object("the coherence protocol");
  r.allow_only({"protocol", "probe_bytes_per_line", "response_bytes_per_line",
                "remote_access_overhead_ns", "directory_probe_fraction"});
  Coherence coherence;
  const Reader protocol = r.field("protocol");
  const std::string name = protocol.string(true);
  if (name == "source_snoop") {
    coherence.protocol = CoherenceProtocol::kSourceSnoop;
  } else if (name == "home_snoop") {
    coherence.protocol = CoherenceProtocol::kHomeSnoop;
  } else if (name == "directory") {
    coherence.protocol = CoherenceProtocol::kDirectory;
  } else {
    protocol.fail("expected \"source_snoop\", \"home_snoop\" or \"directory\", found \"" + name +
                  "\"");
  }
  coherence.probe_bytes_per_line = r.field("probe_bytes_per_line").number();
  coherence.response_bytes_per_line = r.field("response_bytes_per_line").number();
  coherence.remote_access_overhead_ns = r.field("remote_access_overhead_ns").number();
  if (coherence.protocol == CoherenceProtocol::kDirectory) {
    coherence.directory_probe_fraction = r.field("directory_probe_fraction").number();
  } else if (r.has("directory_probe_fraction")) {
    r.field("directory_probe_fraction").fail("allowed only with \"protocol\": \"directory\"");
  }
  return coherence;
}

PerformanceParameters read_performance(const Reader& r,
                                       std::map<MemoryKind, MemoryCurve>& memory_kind_curves) {
  r.expect_object("the bandwidth model's parameters");
  r.allow_only({"cache_line_bytes", "memory_queue_ns", "link_queue_ns", "queue_exponent",
                "memory_kind_curves"});
  PerformanceParameters p;
  p.cache_line_bytes = r.field("cache_line_bytes").small_integer(1);
  p.memory_queue_ns = r.field("memory_queue_ns").number();
  p.link_queue_ns = r.field("link_queue_ns").number();
  p.queue_exponent = r.field("queue_exponent").number();
  if (r.has("memory_kind_curves")) {
    const Reader curves = r.field("memory_kind_curves");
    curves.expect_object(
        "curves by memory kind {\"CXL\": {\"memory_queue_ns\", \"queue_exponent\"}, ...}");
    for (const auto& item : curves.json().items()) {
      const Reader entry = curves.field(item.key().c_str());
      const std::optional<MemoryKind> kind = parse_memory_kind(item.key());
      if (!kind)
        entry.fail("unknown memory kind \"" + item.key() + "\" (expected DRAM, HBM, CXL or NVM)");
      entry.expect_object("a loaded-latency curve {\"memory_queue_ns\", \"queue_exponent\"}");
      entry.allow_only({"memory_queue_ns", "queue_exponent"});
      memory_kind_curves[*kind] = MemoryCurve{entry.field("memory_queue_ns").number(),
                                              entry.field("queue_exponent").number()};
    }
  }
  return p;
}

// "operator_costs": {"name": {"value": v, "low": l, "high": h, "origin": o, "source": s}, ...}
std::vector<NamedCost> read_operator_costs(const Reader& r) {
  r.expect_object(
      "operator costs by name {\"scan_cycles_per_tuple\": {\"value\", \"low\", \"high\", "
      "\"origin\", \"source\"}, ...}");
  std::vector<NamedCost> costs;
  for (const auto& item : r.json().items()) {
    const std::string& name = item.key();
    const Reader entry = r.field(name.c_str());
    const OperatorCostInfo* info = find_operator_cost(name);
    if (info == nullptr) {
      std::string known;
      for (const OperatorCostInfo& i : operator_cost_table())
        known += (known.empty() ? "" : ", ") + std::string(i.name);
      entry.fail("unknown operator cost \"" + name + "\" (expected one of " + known + ")");
    }
    entry.expect_object("a cost {\"value\", \"low\", \"high\", \"origin\", \"source\"}");
    entry.allow_only({"value", "low", "high", "origin", "source"});
    NamedCost c;
    c.name = name;
    const auto g = [](double x) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%g", x);
      return std::string(buffer);
    };
    const Reader v = entry.field("value");
    c.cost.value = v.number();
    if (c.cost.value < info->smallest || c.cost.value > info->largest) {
      v.fail(info->largest < std::numeric_limits<double>::infinity()
                 ? "expected a number between " + g(info->smallest) + " and " + g(info->largest) +
                       ", found " + g(c.cost.value)
                 : "expected a number >= " + g(info->smallest) + ", found " + g(c.cost.value));
    }
    const Reader low = entry.field("low");
    c.cost.low = low.number();
    if (c.cost.low > c.cost.value || c.cost.low < info->smallest) {
      low.fail("expected a number between " + g(info->smallest) + " and the value " +
               g(c.cost.value) + ", found " + g(c.cost.low));
    }
    const Reader high = entry.field("high");
    c.cost.high = high.number();
    if (c.cost.high < c.cost.value || c.cost.high > info->largest) {
      high.fail(info->largest < std::numeric_limits<double>::infinity()
                    ? "expected a number between the value " + g(c.cost.value) + " and " +
                          g(info->largest) + ", found " + g(c.cost.high)
                    : "expected a number >= the value " + g(c.cost.value) + ", found " +
                          g(c.cost.high));
    }
    const Reader origin = entry.field("origin");
    const std::string origin_text = origin.string(true);
    const std::optional<CostOrigin> parsed = parse_cost_origin(origin_text);
    if (!parsed)
      origin.fail(
          "expected \"measured\", \"calibrated\", \"transferred\", \"derived\" or \"default\", found \"" +
          origin_text + "\"");
    c.cost.origin = *parsed;
    c.cost.source = entry.field("source").string(true);
    costs.push_back(std::move(c));
  }
  return costs;
}

Measurement read_measurement(const Reader& r, const std::map<std::string, NodeIndex>& ids) {
  r.expect_object("a measurement");
  r.allow_only({"id", "description", "metric", "streams", "value", "source"});
  Measurement m;
  m.id = r.field("id").string(true);
  if (r.has("description")) m.description = r.field("description").string(false);
  const Reader metric = r.field("metric");
  const std::string name = metric.string(true);
  if (name == "read_bandwidth_gbps") {
    m.metric = MeasurementMetric::kReadBandwidthGbps;
  } else if (name == "idle_latency_ns") {
    m.metric = MeasurementMetric::kIdleLatencyNs;
  } else {
    metric.fail("expected \"read_bandwidth_gbps\" or \"idle_latency_ns\", found \"" + name + "\"");
  }
  const Reader streams = r.field("streams");
  streams.expect_array("a list of streams {cpu_node, memory_node, threads}");
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const Reader stream = streams.element(i);
    stream.expect_object("a stream {cpu_node, memory_node, threads}");
    stream.allow_only({"cpu_node", "memory_node", "threads"});
    m.streams.push_back(MeasurementStream{resolve_node(stream.field("cpu_node"), ids),
                                          resolve_node(stream.field("memory_node"), ids),
                                          stream.field("threads").small_integer(1)});
  }
  m.value = r.field("value").number();
  m.source = r.field("source").string(true);
  return m;
}

// "energy": {"dram_pj_per_byte": e, "remote_access_pj_per_byte": r, "link_pj_per_byte": l,
//            "dram_background_watts_per_node": p, "source": "..."} (energy.hpp)
EnergyParameters read_energy(const Reader& r) {
  r.expect_object("energy figures {\"dram_pj_per_byte\": ..., \"source\": ...}");
  r.allow_only({"dram_pj_per_byte", "remote_access_pj_per_byte", "link_pj_per_byte", "dram_background_watts_per_node", "source"});
  EnergyParameters e;
  auto figure = [&](const char* key) {
    const Reader f = r.field(key);
    const double v = f.number();
    if (!(v >= 0.0)) f.fail("expected a number >= 0");
    return v;
  };
  e.dram_pj_per_byte = figure("dram_pj_per_byte");
  e.remote_access_pj_per_byte = figure("remote_access_pj_per_byte");
  e.link_pj_per_byte = figure("link_pj_per_byte");
  e.dram_background_watts_per_node = figure("dram_background_watts_per_node");
  e.source = r.field("source").string(true);
  return e;
}

Provenance read_provenance(const Reader& r) {
  r.expect_object("the provenance block");
  r.allow_only({"source", "measured", "theoretical", "reconstructed", "firmware", "notes"});
  Provenance provenance;
  provenance.source = r.field("source").string(true);
  provenance.measured = r.field("measured").string_list();
  provenance.theoretical = r.field("theoretical").string_list();
  provenance.reconstructed = r.field("reconstructed").string_list();
  if (r.has("firmware")) provenance.firmware = r.field("firmware").string_list();
  provenance.notes = r.field("notes").string(false);
  return provenance;
}

std::string protocol_name(CoherenceProtocol protocol) {
  switch (protocol) {
    case CoherenceProtocol::kSourceSnoop:
      return "source_snoop";
    case CoherenceProtocol::kHomeSnoop:
      return "home_snoop";
    case CoherenceProtocol::kDirectory:
      return "directory";
  }
  return "source_snoop";
}

OrderedJson node_to_json(const Node& node) {
  OrderedJson j;
  j["id"] = node.id;
  if (!node.label.empty()) j["label"] = node.label;
  j["kind"] = node.kind == NodeKind::kRouter ? "router" : "node";
  if (!node.package.empty()) j["package"] = node.package;
  if (node.kind == NodeKind::kNode) {
    j["cores"] = node.cores;
    j["threads_per_core"] = node.threads_per_core;
    j["frequency_ghz"] = node.frequency_ghz;
    j["caches"] = OrderedJson::array();
    for (const CacheLevel& cache : node.caches) {
      j["caches"].push_back(OrderedJson{{"level", cache.level},
                                        {"size_bytes", cache.size_bytes},
                                        {"shared_by_cores", cache.shared_by_cores}});
    }
    j["memory_capacity_bytes"] = node.memory_capacity_bytes;
    j["memory_read_bandwidth_gbps"] = node.memory_read_bandwidth_gbps;
    if (node.memory_write_bandwidth_gbps) {
      j["memory_write_bandwidth_gbps"] = *node.memory_write_bandwidth_gbps;
    }
    j["local_latency_ns"] = node.local_latency_ns;
    if (node.memory_kind) j["memory_kind"] = std::string(memory_kind_name(*node.memory_kind));
    if (node.memory_side_cache) {
      j["memory_side_cache"] =
          OrderedJson{{"capacity_bytes", node.memory_side_cache->capacity_bytes},
                      {"latency_ns", node.memory_side_cache->latency_ns},
                      {"read_bandwidth_gbps", node.memory_side_cache->read_bandwidth_gbps}};
    }
    if (node.cores > 0) j["miss_buffers_per_core"] = node.miss_buffers_per_core;
  }
  if (node.forwarding_bandwidth_gbps)
    j["forwarding_bandwidth_gbps"] = *node.forwarding_bandwidth_gbps;
  if (node.position) j["position"] = OrderedJson{{"x", node.position->x}, {"y", node.position->y}};
  return j;
}

OrderedJson links_to_json(const Topology& t) {
  OrderedJson out = OrderedJson::array();
  std::size_t i = 0;
  while (i < t.links.size()) {
    const Link& link = t.links[i];
    const bool symmetric = i + 1 < t.links.size() && t.links[i + 1].spec_index == link.spec_index;
    if (symmetric) {
      out.push_back(OrderedJson{{"between", {t.nodes[link.from].id, t.nodes[link.to].id}},
                                {"bandwidth_per_direction_gbps", link.bandwidth_gbps},
                                {"latency_ns", link.latency_ns}});
      i += 2;
    } else {
      out.push_back(OrderedJson{{"from", t.nodes[link.from].id},
                                {"to", t.nodes[link.to].id},
                                {"bandwidth_gbps", link.bandwidth_gbps},
                                {"latency_ns", link.latency_ns}});
      i += 1;
    }
  }
  return out;
}

}  // namespace

Topology parse_topology(std::string_view json_text, const std::string& source_name) {
  Json document;
  try {
    document = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::parse_error& e) {
    throw InputError(
        source_name, "",
        "not valid JSON (byte " + std::to_string(e.byte) + "): expected a topology document");
  } catch (const Json::exception& e) {  // e.g. a number too large for a double (1e400)
    throw InputError(
        source_name, "",
        std::string("unreadable JSON (") + e.what() + "): expected a topology document");
  }
  const Reader root(document, "", source_name);
  if (!document.is_object())
    root.fail(std::string("expected a topology object at the top level, found ") +
              json_type_name(document));
  root.allow_only({"format_version", "name", "description", "nodes", "links", "routes", "coherence",
                   "performance", "measurements", "operator_costs", "allocator_costs", "energy", "tlb", "dependent_misses",
                   "core_data_path",
                   "provenance"});
  const Reader version = root.field("format_version");
  if (version.integer(std::numeric_limits<std::int64_t>::min(),
                      std::numeric_limits<std::int64_t>::max()) != kFormatVersion) {
    version.fail("expected format_version " + std::to_string(kFormatVersion));
  }

  Topology topology;
  topology.name = root.field("name").string(true);
  if (root.has("description")) topology.description = root.field("description").string(false);

  const Reader nodes = root.field("nodes");
  nodes.expect_array("a list of nodes");
  for (std::size_t i = 0; i < nodes.size(); ++i)
    topology.nodes.push_back(read_node(nodes.element(i)));
  check_node_ids(topology, source_name);
  std::map<std::string, NodeIndex> ids;
  for (std::size_t i = 0; i < topology.nodes.size(); ++i)
    ids[topology.nodes[i].id] = static_cast<NodeIndex>(i);

  const Reader links = root.field("links");
  links.expect_array("a list of links");
  for (std::size_t i = 0; i < links.size(); ++i) {
    read_link(links.element(i), static_cast<int>(i), ids, topology);
  }

  if (root.has("routes")) {
    const Reader routes = root.field("routes");
    routes.expect_array("a list of explicit routes");
    for (std::size_t i = 0; i < routes.size(); ++i) {
      const Reader route = routes.element(i);
      route.expect_object("a route {\"path\": [node ids]}");
      route.allow_only({"path"});
      const Reader path = route.field("path");
      path.expect_array("the node ids along the route, source first");
      ExplicitRoute parsed;
      for (std::size_t k = 0; k < path.size(); ++k)
        parsed.path.push_back(resolve_node(path.element(k), ids));
      topology.routes.push_back(std::move(parsed));
    }
  }

  topology.coherence = read_coherence(root.field("coherence"));
  topology.performance = read_performance(root.field("performance"), topology.memory_kind_curves);
  if (root.has("measurements")) {
    const Reader measurements = root.field("measurements");
    measurements.expect_array("a list of measurements");
    for (std::size_t i = 0; i < measurements.size(); ++i) {
      topology.measurements.push_back(read_measurement(measurements.element(i), ids));
    }
  }
  if (root.has("operator_costs"))
    topology.operator_costs = read_operator_costs(root.field("operator_costs"));
  if (root.has("allocator_costs"))
    topology.allocator_costs = read_allocator_costs(root.field("allocator_costs"));
  if (root.has("energy")) topology.energy = read_energy(root.field("energy"));
  if (root.has("tlb")) topology.tlb = read_tlb(root.field("tlb"));
  if (root.has("core_data_path")) topology.core_data_path = read_core_data_path(root.field("core_data_path"));
  if (root.has("dependent_misses")) topology.dependent_misses = read_dependent_misses(root.field("dependent_misses"));
  topology.provenance = read_provenance(root.field("provenance"));
  check_topology(topology, source_name);
  return topology;
}

Topology load_topology(const std::filesystem::path& path) {
  return parse_topology(read_input_file(path), path.string());
}

std::string topology_to_json_text(const Topology& t) {
  OrderedJson j;
  j["format_version"] = kFormatVersion;
  j["name"] = t.name;
  if (!t.description.empty()) j["description"] = t.description;
  j["nodes"] = OrderedJson::array();
  for (const Node& node : t.nodes) j["nodes"].push_back(node_to_json(node));
  j["links"] = links_to_json(t);
  if (!t.routes.empty()) {
    j["routes"] = OrderedJson::array();
    for (const ExplicitRoute& route : t.routes) {
      OrderedJson path = OrderedJson::array();
      for (NodeIndex n : route.path) path.push_back(t.nodes[n].id);
      j["routes"].push_back(OrderedJson{{"path", path}});
    }
  }
  OrderedJson coherence;
  coherence["protocol"] = protocol_name(t.coherence.protocol);
  coherence["probe_bytes_per_line"] = t.coherence.probe_bytes_per_line;
  coherence["response_bytes_per_line"] = t.coherence.response_bytes_per_line;
  coherence["remote_access_overhead_ns"] = t.coherence.remote_access_overhead_ns;
  if (t.coherence.directory_probe_fraction) {
    coherence["directory_probe_fraction"] = *t.coherence.directory_probe_fraction;
  }
  j["coherence"] = coherence;
  j["performance"] = OrderedJson{{"cache_line_bytes", t.performance.cache_line_bytes},
                                 {"memory_queue_ns", t.performance.memory_queue_ns},
                                 {"link_queue_ns", t.performance.link_queue_ns},
                                 {"queue_exponent", t.performance.queue_exponent}};
  if (!t.memory_kind_curves.empty()) {
    OrderedJson curves = OrderedJson::object();
    for (const auto& [kind, curve] : t.memory_kind_curves) {
      curves[std::string(memory_kind_name(kind))] = OrderedJson{
          {"memory_queue_ns", curve.memory_queue_ns}, {"queue_exponent", curve.queue_exponent}};
    }
    j["performance"]["memory_kind_curves"] = curves;
  }
  if (!t.measurements.empty()) {
    j["measurements"] = OrderedJson::array();
    for (const Measurement& m : t.measurements) {
      OrderedJson streams = OrderedJson::array();
      for (const MeasurementStream& st : m.streams) {
        streams.push_back(OrderedJson{{"cpu_node", t.nodes[st.cpu_node].id},
                                      {"memory_node", t.nodes[st.memory_node].id},
                                      {"threads", st.threads}});
      }
      OrderedJson entry;
      entry["id"] = m.id;
      if (!m.description.empty()) entry["description"] = m.description;
      entry["metric"] = m.metric == MeasurementMetric::kReadBandwidthGbps ? "read_bandwidth_gbps"
                                                                          : "idle_latency_ns";
      entry["streams"] = streams;
      entry["value"] = m.value;
      entry["source"] = m.source;
      j["measurements"].push_back(entry);
    }
  }
  if (!t.operator_costs.empty()) {
    OrderedJson costs = OrderedJson::object();
    for (const NamedCost& c : t.operator_costs) {
      costs[c.name] = OrderedJson{{"value", c.cost.value},
                                  {"low", c.cost.low},
                                  {"high", c.cost.high},
                                  {"origin", cost_origin_name(c.cost.origin)},
                                  {"source", c.cost.source}};
    }
    j["operator_costs"] = costs;
  }
  if (!t.allocator_costs.empty()) j["allocator_costs"] = allocator_costs_json(t.allocator_costs);
  if (t.energy) {
    j["energy"] = OrderedJson{{"dram_pj_per_byte", t.energy->dram_pj_per_byte},
                              {"remote_access_pj_per_byte", t.energy->remote_access_pj_per_byte},
                              {"link_pj_per_byte", t.energy->link_pj_per_byte},
                              {"dram_background_watts_per_node", t.energy->dram_background_watts_per_node},
                              {"source", t.energy->source}};
  }
  if (t.tlb) j["tlb"] = tlb_json(*t.tlb);
  if (t.core_data_path) j["core_data_path"] = core_data_path_json(*t.core_data_path);
  if (t.dependent_misses) j["dependent_misses"] = dependent_misses_json(*t.dependent_misses);
  j["provenance"] = OrderedJson{{"source", t.provenance.source},
                                {"measured", t.provenance.measured},
                                {"theoretical", t.provenance.theoretical},
                                {"reconstructed", t.provenance.reconstructed}};
  if (!t.provenance.firmware.empty()) j["provenance"]["firmware"] = t.provenance.firmware;
  j["provenance"]["notes"] = t.provenance.notes;
  return j.dump(2) + "\n";
}

void save_topology(const Topology& topology, const std::filesystem::path& path) {
  write_file_atomically(path, topology_to_json_text(topology));
}

}  // namespace numatwin::model
