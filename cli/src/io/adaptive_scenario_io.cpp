#include "io/adaptive_scenario_io.hpp"

#include <cmath>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "numatwin/model/input_error.hpp"

namespace numatwin::cli {
namespace {

using Json = nlohmann::json;

std::string type_name(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_array()) return "an array";
  return "an object";
}


std::string number_text(double x) {
  std::ostringstream s;
  s << x;
  return s.str();
}

// A value at a JSON pointer, with checks that fail with one InputError.
class Field {
 public:
  Field(const std::string& file, std::string pointer, const Json* value) : file_(&file), pointer_(std::move(pointer)), value_(value) {}

  [[noreturn]] void fail(const std::string& expectation) const { throw model::InputError(*file_, pointer_, expectation); }

  [[nodiscard]] bool present() const { return value_ != nullptr; }

  // Object members: only `allowed` keys.
  void only(std::initializer_list<const char*> allowed) const {
    object("an object");
    for (const auto& [key, v] : value_->items()) {
      bool ok = false;
      for (const char* a : allowed) ok = ok || key == a;
      if (!ok) Field(*file_, pointer_ + "/" + model::escape_pointer_token(key), &v).fail("unknown field: expected only the fields docs/adaptive.md lists");
    }
  }
  void object(const char* what) const {
    if (!value_->is_object()) fail(std::string("expected ") + what + " (a JSON object), found " + type_name(*value_));
  }
  [[nodiscard]] Field field(const std::string& key) const {
    const auto it = value_->find(key);
    return Field(*file_, pointer_ + "/" + model::escape_pointer_token(key), it == value_->end() ? nullptr : &*it);
  }
  [[nodiscard]] Field required(const std::string& key) const {
    Field f = field(key);
    if (!f.present()) f.fail("expected this required field, found nothing");
    return f;
  }
  [[nodiscard]] std::size_t array_size(const char* what) const {
    if (!value_->is_array()) fail(std::string("expected ") + what + " (a JSON array), found " + type_name(*value_));
    return value_->size();
  }
  [[nodiscard]] Field at(std::size_t i) const { return Field(*file_, pointer_ + "/" + std::to_string(i), &(*value_)[i]); }
  [[nodiscard]] std::vector<std::pair<std::string, Field>> members() const {
    std::vector<std::pair<std::string, Field>> out;
    for (const auto& [key, v] : value_->items()) out.emplace_back(key, Field(*file_, pointer_ + "/" + model::escape_pointer_token(key), &v));
    return out;
  }
  [[nodiscard]] std::string string() const {
    if (!value_->is_string()) fail("expected a string, found " + type_name(*value_));
    return value_->get<std::string>();
  }
  [[nodiscard]] bool boolean() const {
    if (!value_->is_boolean()) fail("expected true or false, found " + type_name(*value_));
    return value_->get<bool>();
  }
  // A finite number with lo (<= or <) x (<= or <) hi.
  [[nodiscard]] double number(double lo, bool lo_open, double hi = std::numeric_limits<double>::infinity(), bool hi_open = false) const {
    if (!value_->is_number()) fail("expected a number, found " + type_name(*value_));
    const double x = value_->get<double>();
    const bool low_ok = lo_open ? x > lo : x >= lo;
    const bool high_ok = std::isinf(hi) ? std::isfinite(x) : (hi_open ? x < hi : x <= hi);
    if (!low_ok || !high_ok) {
      std::string range = std::string("expected a number ") + (lo_open ? "> " : ">= ") + number_text(lo);
      if (!std::isinf(hi)) range += std::string(" and ") + (hi_open ? "< " : "<= ") + number_text(hi);
      fail(range + ", found " + number_text(x));
    }
    return x;
  }
  [[nodiscard]] long long integer(long long lo, long long hi) const {
    if (!value_->is_number_integer()) fail("expected an integer, found " + type_name(*value_));
    const long long x = value_->get<long long>();
    if (x < lo || x > hi) fail("expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + ", found " + std::to_string(x));
    return x;
  }
  [[nodiscard]] const std::string& pointer() const { return pointer_; }

 private:
  const std::string* file_;
  std::string pointer_;
  const Json* value_;
};

// {"name": weight, ...}: names looked up in `names`.
std::vector<sim::WeightedChoice> choices(const Field& f, const std::vector<std::string>& names, const char* what) {
  f.object(what);
  std::vector<sim::WeightedChoice> out;
  for (const auto& [key, value] : f.members()) {
    int index = -1;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == key) index = static_cast<int>(i);
    }
    if (index < 0) {
      std::string known;
      for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
      value.fail(std::string("expected the name of one of the scenario's ") + what + " (" + known + "), found \"" + key + "\"");
    }
    out.push_back(sim::WeightedChoice{index, value.number(0.0, true)});
  }
  if (out.empty()) f.fail(std::string("expected at least one of the scenario's ") + what + " with a weight");
  return out;
}

int index_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::string listed(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// One query type (docs/adaptive.md "Query types"): kind, selectivity, groups, the join's other
// table, and the task class of each phase (default: the class named after the kind for the scan
// phase, and the phase's own name for the others).
sim::AdaptiveQueryType load_query_type(const Field& q, const std::vector<std::string>& tables, const std::vector<std::string>& classes,
                                       const std::vector<std::string>& earlier) {
  q.only({"name", "kind", "selectivity", "groups", "join_table", "classes"});
  sim::AdaptiveQueryType type;
  type.name = q.required("name").string();
  if (index_of(earlier, type.name) >= 0 || index_of(classes, type.name) >= 0) {
    q.field("name").fail("expected a query type name used by no other query type or task class, found \"" + type.name + "\"");
  }
  const Field kind = q.required("kind");
  const std::string k = kind.string();
  if (k == "scan") {
    type.kind = sim::AdaptiveQueryKind::kScan;
  } else if (k == "aggregation") {
    type.kind = sim::AdaptiveQueryKind::kAggregation;
  } else if (k == "join") {
    type.kind = sim::AdaptiveQueryKind::kJoin;
  } else {
    kind.fail("expected \"scan\", \"aggregation\" or \"join\", found \"" + k + "\"");
  }
  if (const Field f = q.field("selectivity"); f.present()) type.selectivity = f.number(0.0, false, 1.0);
  if (const Field f = q.field("groups"); f.present()) {
    if (type.kind != sim::AdaptiveQueryKind::kAggregation) f.fail("expected no groups: only an aggregation has groups");
    type.groups = f.number(1.0, false);
  }
  const Field join = q.field("join_table");
  if (type.kind == sim::AdaptiveQueryKind::kJoin) {
    if (!join.present()) q.fail("expected a join_table (the join's other table) for a query type of kind join");
    const std::string name = join.string();
    type.join_table = index_of(tables, name);
    if (type.join_table < 0) join.fail("expected the name of one of the scenario's tables (" + listed(tables) + "), found \"" + name + "\"");
  } else if (join.present()) {
    join.fail("expected no join_table: only a join has another table");
  }
  const Field given = q.field("classes");
  if (given.present()) given.only({"scan", "materialise", "dictionary", "merge", "mapping"});
  for (int ph = 0; ph < sim::kAdaptivePhaseCount; ++ph) {
    const std::string phase = sim::adaptive_phase_name(static_cast<sim::AdaptivePhase>(ph));
    std::string name = ph == 0 ? sim::adaptive_query_kind_name(type.kind) : phase;
    const Field f = given.present() ? given.field(phase) : given;
    if (given.present() && f.present()) name = f.string();
    type.class_of_phase[ph] = index_of(classes, name);
    if (type.class_of_phase[ph] < 0) {
      const Field& where = given.present() && f.present() ? f : q;
      where.fail("expected the task class of the " + phase + " phase among the scenario's task classes (" + listed(classes) + "), found no class \"" +
                 name + "\"");
    }
  }
  return type;
}

}  // namespace

sim::AdaptiveScenario load_adaptive_scenario(const std::filesystem::path& path, int sockets) {
  const std::string file = path.string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw model::InputError(file, "", "cannot open the file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_adaptive_scenario(text, file, sockets);
}

sim::AdaptiveScenario parse_adaptive_scenario(std::string_view text, const std::string& file, int sockets) {
  Json document;
  try {
    document = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw model::InputError(file, "", std::string("not valid JSON: ") + e.what());
  } catch (const Json::exception& e) {  // e.g. a number too large for a double (1e400)
    throw model::InputError(file, "", std::string("unreadable JSON (") + e.what() + "): expected an adaptive scenario");
  }
  const Field root(file, "", &document);
  root.only({"$schema", "name", "description", "topology", "duration_s", "seed", "page_bytes", "task_bytes", "workers_per_socket",
             "costs", "task_classes", "tables", "clients", "placer", "tracking", "placer_enabled", "stealing",
             "stealing_threshold_gbps", "query_types", "mechanisms"});
  sim::AdaptiveScenario sc;
  sc.name = root.required("name").string();
  if (const Field f = root.field("description"); f.present()) sc.description = f.string();
  if (const Field f = root.field("topology"); f.present()) (void)f.string();  // informative: the machine it was written for
  sc.duration_s = root.required("duration_s").number(0.0, true, 86400.0);
  if (const Field f = root.field("seed"); f.present()) sc.seed = static_cast<std::uint64_t>(f.integer(0, std::numeric_limits<long long>::max()));
  if (const Field f = root.field("page_bytes"); f.present()) sc.page_bytes = f.number(1.0, false);
  if (const Field f = root.field("task_bytes"); f.present()) sc.task_bytes = f.number(sc.page_bytes, false);
  if (const Field f = root.field("workers_per_socket"); f.present()) sc.workers_per_socket = static_cast<int>(f.integer(1, 100000));
  if (const Field f = root.field("costs"); f.present()) {
    f.only({"move_us_per_page", "partition_us_per_page", "source"});
    sim::PageCosts costs;
    costs.move_s_per_page = f.required("move_us_per_page").number(0.0, true) * 1e-6;
    costs.partition_s_per_page = f.required("partition_us_per_page").number(0.0, true) * 1e-6;
    costs.source = f.required("source").string();
    sc.costs = costs;
  }
  if (const Field f = root.field("task_classes"); f.present()) {
    const std::size_t n = f.array_size("a list of task classes");
    if (n == 0) f.fail("expected at least one task class");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < n; ++i) {
      const Field c = f.at(i);
      c.only({"name", "cycles_per_byte", "lines_in_flight"});
      sim::AdaptiveTaskClass tc;
      tc.name = c.required("name").string();
      if (!seen.insert(tc.name).second) c.field("name").fail("expected a class name not used before, found \"" + tc.name + "\" again");
      tc.cycles_per_byte = c.required("cycles_per_byte").number(0.0, false);
      if (const Field l = c.field("lines_in_flight"); l.present()) tc.lines_in_flight = l.number(0.0, false);
      sc.classes.push_back(tc);
    }
  } else {
    sc.classes = sim::default_adaptive_task_classes();
    if (root.field("query_types").present()) {
      for (const sim::AdaptiveTaskClass& c : sim::default_adaptive_phase_classes()) sc.classes.push_back(c);
    }
  }
  const Field tables = root.required("tables");
  const std::size_t table_count = tables.array_size("a list of tables");
  if (table_count == 0) tables.fail("expected at least one table");
  std::vector<std::string> table_names;
  for (std::size_t i = 0; i < table_count; ++i) {
    const Field t = tables.at(i);
    t.only({"name", "size_bytes", "socket", "parts", "group", "row_bytes", "distinct_values"});
    sim::AdaptiveTable table;
    table.name = t.required("name").string();
    for (const std::string& other : table_names) {
      if (other == table.name) t.field("name").fail("expected a table name not used before, found \"" + table.name + "\" again");
    }
    table.size_bytes = t.required("size_bytes").number(0.0, true);
    table.socket = static_cast<int>(t.required("socket").integer(0, sockets - 1));
    if (const Field p = t.field("parts"); p.present()) table.parts = static_cast<int>(p.integer(1, 64));
    if (const Field g = t.field("group"); g.present()) {
      table.group = g.string();
      if (table.group.empty()) g.fail("expected a non-empty table group name, found \"\"");
    }
    if (const Field r = t.field("row_bytes"); r.present()) table.row_bytes = r.number(0.0, true);
    if (const Field d = t.field("distinct_values"); d.present()) table.distinct_values = d.number(1.0, false);
    table_names.push_back(table.name);
    sc.tables.push_back(table);
  }
  std::vector<std::string> class_names;
  for (const sim::AdaptiveTaskClass& c : sc.classes) class_names.push_back(c.name);
  if (const Field f = root.field("mechanisms"); f.present()) {
    f.only({"line_bytes", "value_bytes", "hash_entry_bytes"});
    if (const Field x = f.field("line_bytes"); x.present()) sc.mechanisms.line_bytes = x.number(0.0, true);
    if (const Field x = f.field("value_bytes"); x.present()) sc.mechanisms.value_bytes = x.number(0.0, true);
    if (const Field x = f.field("hash_entry_bytes"); x.present()) sc.mechanisms.hash_entry_bytes = x.number(0.0, true);
  }
  std::vector<std::string> type_names;
  if (const Field f = root.field("query_types"); f.present()) {
    const std::size_t n = f.array_size("a list of query types");
    if (n == 0) f.fail("expected at least one query type");
    for (std::size_t i = 0; i < n; ++i) {
      sc.query_types.push_back(load_query_type(f.at(i), table_names, class_names, type_names));
      type_names.push_back(sc.query_types.back().name);
    }
  }
  const Field clients = root.required("clients");
  const std::size_t client_count = clients.array_size("a list of client groups");
  if (client_count == 0) clients.fail("expected at least one client group");
  for (std::size_t i = 0; i < client_count; ++i) {
    const Field c = clients.at(i);
    c.only({"count", "tables", "queries", "start_s", "stop_s"});
    sim::AdaptiveClientGroup g;
    g.count = static_cast<int>(c.required("count").integer(1, 100000));
    g.tables = choices(c.required("tables"), table_names, "tables");
    if (type_names.empty()) {
      g.classes = choices(c.required("queries"), class_names, "task classes");
    } else {
      // Classes and query types share the "queries" object (their names are distinct).
      std::vector<std::string> both = class_names;
      both.insert(both.end(), type_names.begin(), type_names.end());
      for (const sim::WeightedChoice& w : choices(c.required("queries"), both, "task classes or query types")) {
        const int nc = static_cast<int>(class_names.size());
        if (w.index < nc) {
          g.classes.push_back(w);
        } else {
          g.query_types.push_back(sim::WeightedChoice{w.index - nc, w.weight});
        }
      }
    }
    if (const Field f = c.field("start_s"); f.present()) g.start_s = f.number(0.0, false);
    if (const Field f = c.field("stop_s"); f.present()) g.stop_s = f.number(g.start_s, true);
    sc.clients.push_back(g);
  }
  if (const Field f = root.field("placer"); f.present()) {
    f.only({"period_s", "eligibility_divergence", "saturation", "imbalance", "cold_table_cpu"});
    if (const Field x = f.field("period_s"); x.present()) sc.placer.period_s = x.number(0.0, true);
    if (const Field x = f.field("eligibility_divergence"); x.present()) sc.placer.eligibility_divergence = x.number(0.0, false);
    if (const Field x = f.field("saturation"); x.present()) sc.placer.saturation = x.number(0.0, false, 1.0);
    if (const Field x = f.field("imbalance"); x.present()) sc.placer.imbalance = x.number(0.0, false, 1.0);
    if (const Field x = f.field("cold_table_cpu"); x.present()) sc.placer.cold_table_cpu = x.number(0.0, false, 1.0);
  }
  if (const Field f = root.field("tracking"); f.present()) {
    f.only({"sample_period_s", "history_s", "class_ema_weight"});
    if (const Field x = f.field("sample_period_s"); x.present()) sc.tracking.sample_period_s = x.number(0.0, true);
    if (const Field x = f.field("history_s"); x.present()) sc.tracking.history_s = x.number(sc.tracking.sample_period_s, false);
    if (const Field x = f.field("class_ema_weight"); x.present()) sc.tracking.class_ema_weight = x.number(0.0, true, 1.0);
  }
  if (const Field f = root.field("placer_enabled"); f.present()) sc.placer_enabled = f.boolean();
  if (const Field f = root.field("stealing"); f.present()) {
    const std::string mode = f.string();
    if (mode != "allow" && mode != "deny" && mode != "adaptive") f.fail("expected \"allow\", \"deny\" or \"adaptive\", found \"" + mode + "\"");
    sc.stealing = sim::parse_stealing_mode(mode);
  }
  if (const Field f = root.field("stealing_threshold_gbps"); f.present()) sc.stealing_threshold_bytes_per_s = f.number(0.0, true) * 1e9;
  return sc;
}

}  // namespace numatwin::cli
