#include "io/flow_spec.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"

namespace numatwin::cli {
namespace {

constexpr const char* kSpecKeys = "cpus, read, write, copy, bytes, rate-gbps, lines-in-flight";

// A problem with one key's value (key as in the spec: "rate-gbps"); the front ends say where it is.
struct PartError : std::runtime_error {
  PartError(std::string key_, const std::string& message) : std::runtime_error(message), key(std::move(key_)) {}
  std::string key;
};

std::string trim(const std::string& text) {
  const std::size_t a = text.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const std::size_t b = text.find_last_not_of(" \t");
  return text.substr(a, b - a + 1);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  for (;;) {
    const std::size_t at = text.find(separator, pos);
    out.push_back(trim(text.substr(pos, at == std::string::npos ? std::string::npos : at - pos)));
    if (at == std::string::npos) return out;
    pos = at + 1;
  }
}

// A finite number > 0 written in full ("1e9", "12.5"), or nothing.
std::optional<double> positive_number(const std::string& text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(value) || !(value > 0.0)) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// "0", "17": a CPU id of at most 7 digits, or nothing.
std::optional<int> cpu_number(const std::string& text) {
  if (text.empty() || text.size() > 7) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return std::stoi(text);
}

std::string node_list(const model::Topology& t, bool (model::Node::*has)() const) {
  std::string out;
  for (const model::Node& n : t.nodes) {
    if ((n.*has)()) out += (out.empty() ? "" : ", ") + n.id;
  }
  return out;
}

// The machine's hardware threads, and which flow holds each (Linux CPU ids, thread_placement.hpp).
class CpuPool {
 public:
  explicit CpuPool(const model::Topology& t) : t_(&t), total_cores_(t.total_cores()) {
    int first = 0;
    int max_threads_per_core = 1;
    for (const model::Node& n : t.nodes) {
      first_core_.push_back(first);
      first += n.cores;
      max_threads_per_core = std::max(max_threads_per_core, n.threads_per_core);
      for (int c = 0; c < n.cores; ++c) core_node_.push_back(static_cast<model::NodeIndex>(first_core_.size() - 1));
    }
    owner_.assign(static_cast<std::size_t>(total_cores_) * max_threads_per_core, 0);
  }

  [[nodiscard]] int core_of(int cpu) const { return cpu % total_cores_; }

  // CPU ids for `text` (CPUSET), taken by flow `flow` (1-based).
  std::vector<int> take(const std::string& text, int flow) {
    std::vector<int> cpus;
    if (text.empty()) throw PartError("cpus", "no CPUs (expected NODE:COUNT, NODE, CPU or FIRST-LAST, joined by '+')");
    for (const std::string& item : split(text, '+')) {
      if (item.empty()) throw PartError("cpus", "an empty item (two '+' in a row?)");
      if (const std::optional<model::NodeIndex> node = t_->find_node(item)) {
        take_on_node(*node, t_->nodes[*node].cores, flow, cpus);
        continue;
      }
      const std::size_t colon = item.rfind(':');
      if (colon != std::string::npos) {
        const std::string id = item.substr(0, colon);
        const std::optional<model::NodeIndex> node = t_->find_node(id);
        if (!node) throw PartError("cpus", "no node '" + id + "' (nodes with cores: " + node_list(*t_, &model::Node::has_cores) + ")");
        const std::string count_text = item.substr(colon + 1);
        const std::optional<int> count = cpu_number(count_text);
        if (!count || *count < 1) throw PartError("cpus", "'" + item + "': expected NODE:COUNT with a whole COUNT >= 1, found '" + count_text + "'");
        take_on_node(*node, *count, flow, cpus);
        continue;
      }
      const std::size_t dash = item.find('-');
      const std::optional<int> first = cpu_number(item.substr(0, dash));
      const std::optional<int> last = dash == std::string::npos ? first : cpu_number(item.substr(dash + 1));
      if (!first || !last) {
        throw PartError("cpus", "'" + item + "' is neither a node (" + node_list(*t_, &model::Node::has_cores) +
                                    "), NODE:COUNT, a CPU id nor a range FIRST-LAST");
      }
      if (*last < *first) throw PartError("cpus", "the range " + item + " runs backwards");
      for (int cpu = *first; cpu <= *last; ++cpu) take_cpu(cpu, flow, cpus);
    }
    return cpus;
  }

 private:
  [[nodiscard]] bool exists(int cpu) const {
    if (cpu < 0 || static_cast<std::size_t>(cpu) >= owner_.size() || total_cores_ == 0) return false;
    return cpu / total_cores_ < t_->nodes[core_node_[core_of(cpu)]].threads_per_core;
  }

  void take_cpu(int cpu, int flow, std::vector<int>& cpus) {
    if (!exists(cpu)) {
      throw PartError("cpus", "CPU " + std::to_string(cpu) + " does not exist on " + t_->name + " (" +
                                  std::to_string(t_->total_hardware_threads()) + " hardware threads)");
    }
    if (owner_[cpu] != 0) {
      throw PartError("cpus", "CPU " + std::to_string(cpu) + " already runs a thread of flow " + std::to_string(owner_[cpu]) +
                                  (owner_[cpu] == flow ? " (listed twice)" : ""));
    }
    owner_[cpu] = flow;
    cpus.push_back(cpu);
  }

  void take_on_node(model::NodeIndex node, int count, int flow, std::vector<int>& cpus) {
    const model::Node& n = t_->nodes[node];
    if (!n.has_cores()) throw PartError("cpus", "node " + n.id + " has no cores (nodes with cores: " + node_list(*t_, &model::Node::has_cores) + ")");
    std::vector<int> free;
    for (int h = 0; h < n.threads_per_core; ++h) {
      for (int c = 0; c < n.cores; ++c) {
        const int cpu = h * total_cores_ + first_core_[node] + c;
        if (owner_[cpu] == 0) free.push_back(cpu);
      }
    }
    if (count > static_cast<int>(free.size())) {
      throw PartError("cpus", n.id + ":" + std::to_string(count) + " asks for " + std::to_string(count) + " threads; " + n.id + " has " +
                                  std::to_string(n.hardware_threads()) + " hardware threads and " + std::to_string(free.size()) +
                                  " of them are free");
    }
    for (int k = 0; k < count; ++k) take_cpu(free[k], flow, cpus);
  }

  const model::Topology* t_;
  int total_cores_;
  std::vector<int> first_core_;            // per node
  std::vector<model::NodeIndex> core_node_;  // per global core
  std::vector<int> owner_;                 // per CPU id: flow (1-based), 0 when free
};

// MEMORY of `key` as fractions per node.
std::vector<model::NodeShare> parse_memory(const std::string& text, const model::Topology& t, const std::string& key) {
  const std::string nodes_text = "nodes with memory: " + node_list(t, &model::Node::has_memory);
  std::vector<model::NodeShare> out;
  if (text == "interleave") {
    for (model::NodeIndex n = 0; n < static_cast<model::NodeIndex>(t.nodes.size()); ++n) {
      if (t.nodes[n].has_memory()) out.push_back(model::NodeShare{n, 1.0});
    }
  } else {
    const std::string list = text.rfind("interleave:", 0) == 0 && !t.find_node(text) ? text.substr(11) : text;
    if (list.empty()) throw PartError(key, "no memory node (" + nodes_text + ")");
    for (const std::string& item : split(list, '+')) {
      if (item.empty()) throw PartError(key, "an empty item (two '+' in a row?)");
      std::string id = item;
      double weight = 1.0;
      if (!t.find_node(item) && item.rfind(':') != std::string::npos) {
        const std::size_t colon = item.rfind(':');
        id = item.substr(0, colon);
        const std::optional<double> w = positive_number(item.substr(colon + 1));
        if (!w || *w > 1e9) {
          throw PartError(key, "'" + item + "': expected NODE:WEIGHT with 0 < WEIGHT <= 1e9, found '" + item.substr(colon + 1) + "'");
        }
        weight = *w;
      }
      const std::optional<model::NodeIndex> node = t.find_node(id);
      if (!node) throw PartError(key, "no node '" + id + "' (" + nodes_text + ")");
      if (!t.nodes[*node].has_memory()) throw PartError(key, "node " + id + " has no memory (" + nodes_text + ")");
      for (const model::NodeShare& s : out) {
        if (s.node == *node) throw PartError(key, "node " + id + " is listed twice");
      }
      out.push_back(model::NodeShare{*node, weight});
    }
  }
  double sum = 0.0;
  for (const model::NodeShare& s : out) sum += s.fraction;
  for (model::NodeShare& s : out) s.fraction /= sum;
  return out;
}

ResolvedFlow resolve(const FlowRequest& r, const model::Topology& t, CpuPool& pool, int flow) {
  if (!r.cpus) throw PartError("", "missing cpus=... (where the threads run, e.g. cpus=s0:4)");
  if (r.copy && (r.read || r.write)) throw PartError("copy", "copy=SRC>DST cannot be combined with read or write (a copy is read=SRC,write=DST)");
  if (!r.copy && !r.read && !r.write) throw PartError("", "missing read=..., write=... or copy=...>... (what the threads access)");
  ResolvedFlow out;
  out.cpus_text = *r.cpus;
  out.cpu_ids = pool.take(*r.cpus, flow);
  for (int cpu : out.cpu_ids) out.flow.cores.push_back(pool.core_of(cpu));
  if (r.copy) {
    const std::vector<std::string> ends = split(*r.copy, '>');
    if (ends.size() != 2) throw PartError("copy", "expected SOURCE>TARGET, e.g. copy=s1>s3 (quote the spec: '>' redirects in a shell)");
    out.flow.read = parse_memory(ends[0], t, "copy");
    out.flow.write = parse_memory(ends[1], t, "copy");
    out.access_text = "copy " + ends[0] + ">" + ends[1];
  } else {
    if (r.read) out.flow.read = parse_memory(*r.read, t, "read");
    if (r.write) out.flow.write = parse_memory(*r.write, t, "write");
    out.access_text = r.read && r.write ? "copy " + *r.read + ">" + *r.write : r.read ? "read " + *r.read : "write " + *r.write;
  }
  if (r.bytes) out.flow.bytes = *r.bytes;
  if (r.rate_gbps) out.flow.rate_limit_bytes_per_s = *r.rate_gbps * 1e9;
  if (r.lines_in_flight) out.flow.lines_in_flight = *r.lines_in_flight;
  return out;
}

std::string json_key(std::string key) {
  for (char& c : key) c = c == '-' ? '_' : c;
  return key;
}

}  // namespace

FlowRequest parse_flow_spec(const std::string& spec, int index) {
  const std::string where = "--flow " + std::to_string(index) + ": ";
  if (trim(spec).empty()) throw std::invalid_argument(where + "empty (expected KEY=VALUE parts joined by ',', e.g. cpus=s0:4,read=s2)");
  FlowRequest r;
  const std::vector<std::string> parts = split(spec, ',');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    const auto fail = [&](const std::string& message) { throw std::invalid_argument(where + "'" + part + "': " + message); };
    if (part.empty()) throw std::invalid_argument(where + "part " + std::to_string(i + 1) + " is empty (two ',' in a row?)");
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos) fail("expected KEY=VALUE (keys: " + std::string(kSpecKeys) + ")");
    const std::string key = trim(part.substr(0, eq));
    const std::string value = trim(part.substr(eq + 1));
    auto set_text = [&](std::optional<std::string>& slot) {
      if (slot) fail("'" + key + "' is given twice");
      if (value.empty()) fail("no value after '='");
      slot = value;
    };
    auto set_number = [&](std::optional<double>& slot, const char* meaning) {
      if (slot) fail("'" + key + "' is given twice");
      const std::optional<double> number = positive_number(value);
      if (!number) fail(std::string("expected ") + meaning + ", found '" + value + "'");
      slot = number;
    };
    if (key == "cpus") {
      set_text(r.cpus);
    } else if (key == "read") {
      set_text(r.read);
    } else if (key == "write") {
      set_text(r.write);
    } else if (key == "copy") {
      set_text(r.copy);
    } else if (key == "bytes") {
      set_number(r.bytes, "the flow's payload in bytes, a number > 0 (e.g. 1e9)");
    } else if (key == "rate-gbps") {
      set_number(r.rate_gbps, "the flow's rate cap in GB/s, a number > 0 (e.g. 5)");
    } else if (key == "lines-in-flight") {
      set_number(r.lines_in_flight, "the misses each thread keeps in flight, a number > 0 (e.g. 4)");
    } else {
      fail("unknown key '" + key + "' (expected " + std::string(kSpecKeys) + ")");
    }
  }
  return r;
}

std::vector<ResolvedFlow> resolve_flow_specs(const std::vector<std::string>& specs, const model::Topology& topology) {
  std::vector<FlowRequest> requests;
  for (std::size_t i = 0; i < specs.size(); ++i) requests.push_back(parse_flow_spec(specs[i], static_cast<int>(i) + 1));
  CpuPool pool(topology);
  std::vector<ResolvedFlow> out;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const FlowRequest& r = requests[i];
    try {
      out.push_back(resolve(r, topology, pool, static_cast<int>(i) + 1));
    } catch (const PartError& e) {
      std::string where = "--flow " + std::to_string(i + 1) + ": ";
      const std::optional<std::string>* text = e.key == "cpus" ? &r.cpus : e.key == "read" ? &r.read : e.key == "write" ? &r.write
                                               : e.key == "copy" ? &r.copy : nullptr;
      if (text != nullptr && *text) where += "'" + e.key + "=" + **text + "': ";
      throw std::invalid_argument(where + e.what());
    }
  }
  return out;
}

std::vector<ResolvedFlow> load_flows_file(const std::string& path, const model::Topology& topology) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw model::InputError(path, "", "cannot open the file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_flows_file(text, path, topology);
}

std::vector<ResolvedFlow> parse_flows_file(std::string_view text, const std::string& file, const model::Topology& topology) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw model::InputError(file, "", std::string("not valid JSON: ") + e.what());
  } catch (const nlohmann::json::exception& e) {  // e.g. a number too large for a double (1e400)
    throw model::InputError(file, "", std::string("unreadable JSON (") + e.what() + "): expected a flows file: {\"flows\": [...]}");
  }
  const model::JsonReader root(document, "", file);
  root.expect_object("a flows file: {\"flows\": [...]}");
  root.allow_only({"description", "flows"});
  const model::JsonReader list = root.field("flows");
  list.expect_array("a list of flows");
  if (list.size() == 0) list.fail("expected at least one flow");
  CpuPool pool(topology);
  std::vector<ResolvedFlow> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const model::JsonReader f = list.element(i);
    f.expect_object("a flow: {\"cpus\": \"s0:4\", \"read\": \"s2\", ...}");
    f.allow_only({"cpus", "read", "write", "copy", "bytes", "rate_gbps", "lines_in_flight"});
    if (!f.has("cpus")) f.fail("missing required field \"cpus\" (where the threads run, e.g. \"s0:4\")");
    if (!f.has("read") && !f.has("write") && !f.has("copy")) {
      f.fail("missing \"read\", \"write\" or \"copy\" (what the threads access, e.g. \"read\": \"s2\")");
    }
    FlowRequest r;
    for (auto [key, slot] : {std::pair{"cpus", &r.cpus}, {"read", &r.read}, {"write", &r.write}, {"copy", &r.copy}}) {
      if (f.has(key)) *slot = f.field(key).string(true);
    }
    for (auto [key, slot] : {std::pair{"bytes", &r.bytes}, {"rate_gbps", &r.rate_gbps}, {"lines_in_flight", &r.lines_in_flight}}) {
      if (!f.has(key)) continue;
      const model::JsonReader field = f.field(key);
      const double value = field.number();
      if (!(value > 0.0)) field.fail("expected a number > 0, found " + field.json().dump());
      *slot = value;
    }
    try {
      out.push_back(resolve(r, topology, pool, static_cast<int>(i) + 1));
    } catch (const PartError& e) {
      if (e.key.empty() || !f.has(json_key(e.key).c_str())) f.fail(e.what());
      f.field(json_key(e.key).c_str()).fail(e.what());
    }
  }
  return out;
}

}  // namespace numatwin::cli
