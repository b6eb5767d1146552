#include "numatwin/model/corpus_json.hpp"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/model/input_json.hpp"
#include "numatwin/model/spec_sheet_json.hpp"

namespace numatwin::model {

namespace {

using Json = nlohmann::json;

constexpr const char* kNoCoreToCore =
    "the model has no core-to-core transfer latency (issue 35 item 2's core-to-core mechanism is not built)";

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// "NN% reads ..." (Mess): the write share of the bytes, 1 - NN/100; -1 when the text is not that.
double mess_write_fraction(const std::string& mix) {
  const std::size_t percent = mix.find("% reads");
  if (percent == std::string::npos || percent == 0) return -1.0;
  char* end = nullptr;
  const std::string number = mix.substr(0, percent);
  const double reads = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size() || reads < 0.0 || reads > 100.0) return -1.0;
  return 1.0 - reads / 100.0;
}

// mlc's mixes as write shares of the bytes; -1 for a name mlc does not print.
double mlc_write_fraction(const std::string& mix) {
  if (mix == "ALL Reads" || mix == "read-only" || mix == "Using Read-only traffic type") return 0.0;
  if (mix == "3:1 Reads-Writes") return 0.25;
  if (mix == "2:1 Reads-Writes") return 1.0 / 3.0;
  if (mix == "1:1 Reads-Writes") return 0.5;
  if (mix == "Stream-triad like") return 1.0 / 3.0;
  return -1.0;
}

bool is_mess(const JsonReader& m) {
  return m.has("tool") && starts_with(m.field("tool").string(false), "Mess");
}

int node_number(const JsonReader& r) { return static_cast<int>(r.integer(0, 4095)); }

double positive(const JsonReader& r, const char* what) {
  const double v = r.number();
  if (!(v > 0.0)) r.fail(std::string("expected ") + what + " above zero");
  return v;
}

class MachineReader {
 public:
  MachineReader(const Json& doc, const std::string& file) : root_(doc, "", file) { m_.file = file; }

  MeasuredMachine read() {
    root_.expect_object("a corpus machine {\"id\", \"machine\", \"spec\", \"measurements\", ...}");
    m_.id = root_.field("id").string(true);
    const JsonReader list = root_.field("measurements");
    list.expect_array("the list of measurements");
    for (std::size_t i = 0; i < list.size(); ++i) measurement(list.element(i));
    return std::move(m_);
  }

 private:
  void unpredicted(FigureClass c, const JsonReader& r, std::string what, int count, std::string reason) {
    m_.unpredicted.push_back(UnpredictedFigure{c, r.pointer(), std::move(what), count, std::move(reason)});
  }

  void measurement(const JsonReader& r) {
    r.expect_object("a measurement {\"figure\", ...}");
    const std::string figure = r.field("figure").string(true);
    if (figure == "idle_latency_ns") return idle_latency(r);
    if (figure == "bandwidth_gbps") return bandwidth(r);
    if (figure == "peak_injection_gbps") return peak_injection(r);
    if (figure == "loaded_latency") return loaded_latency(r);
    if (figure == "c2c_latency_ns") {
      const std::string kind = r.has("kind") ? r.field("kind").string(false) : "";
      return unpredicted(FigureClass::kCoreToCore, r, "core-to-core " + kind, 1, kNoCoreToCore);
    }
    r.field("figure").fail("expected idle_latency_ns, bandwidth_gbps, peak_injection_gbps, loaded_latency or "
                           "c2c_latency_ns, got \"" + figure + "\"");
  }

  // A matrix entry has node numbers; mlc --idle_latency and Mess's unloaded point are a core
  // reading its own node's memory: node 0 to node 0.
  void idle_latency(const JsonReader& r) {
    if (!r.has("value")) {
      return unpredicted(FigureClass::kIdleLatency, r, "idle latency without a value", 1,
                         "the corpus gives no value (only a published text)");
    }
    const double v = positive(r.field("value"), "a latency in ns");
    const JsonReader from = r.field("from_node");
    if (from.json().is_number_integer()) {
      m_.idle_latency_ns.push_back({node_number(from), node_number(r.field("to_node")), v, r.pointer()});
      return;
    }
    const std::string text = from.string(true);
    if (starts_with(text, "socket 0") || starts_with(text, "default")) {
      m_.idle_latency_ns.push_back({0, 0, v, r.pointer()});
      return;
    }
    unpredicted(FigureClass::kIdleLatency, r, "idle latency from " + text, 1, "no node to predict it for");
  }

  void bandwidth(const JsonReader& r) {
    const JsonReader from = r.field("from_node");
    if (!from.json().is_number_integer()) {
      const int n = r.has("points") ? static_cast<int>(r.field("points").size()) : 1;
      return unpredicted(FigureClass::kBandwidth, r, "bandwidth by core count (" + from.string(false).substr(0, 40) + ")",
                         n, "per-core-count likwid-bench scaling of one socket: the model predicts mlc's all-threads "
                            "node-to-node matrix, and no spec sheet was written for these kerncraft entries");
    }
    const std::string mix = r.has("mix") ? r.field("mix").string(false) : "read-only";
    if (mlc_write_fraction(mix) != 0.0) {
      return unpredicted(FigureClass::kBandwidth, r, "bandwidth matrix entry, mix " + mix, 1,
                         "only read-only bandwidth matrices are predicted");
    }
    m_.bandwidth_gbps.push_back({node_number(from), node_number(r.field("to_node")),
                                 positive(r.field("value"), "a bandwidth in GB/s"), r.pointer()});
  }

  void peak_injection(const JsonReader& r) {
    const std::string mix = r.field("mix").string(true);
    const bool mess = is_mess(r);
    const double w = mess ? mess_write_fraction(mix) : mlc_write_fraction(mix);
    if (w < 0.0) {
      r.field("mix").fail("expected an mlc mix (ALL Reads, 3:1 Reads-Writes, 2:1 Reads-Writes, 1:1 Reads-Writes, "
                          "Stream-triad like) or a Mess \"NN% reads\", got \"" + mix + "\"");
    }
    m_.peak_injection.push_back({mix, w, mess ? FigureScope::kOneSocket : FigureScope::kWholeMachine,
                                 positive(r.field("value"), "a bandwidth in GB/s"), r.pointer()});
  }

  void loaded_latency(const JsonReader& r) {
    const std::string mix = r.field("mix").string(true);
    const bool mess = is_mess(r);
    const double w = mess ? mess_write_fraction(mix) : mlc_write_fraction(mix);
    if (w < 0.0) r.field("mix").fail("expected read-only (mlc) or \"NN% reads\" (Mess), got \"" + mix + "\"");
    const std::vector<std::string> columns = r.field("columns").string_list();
    const auto column = [&](const char* a, const char* b) {
      for (std::size_t i = 0; i < columns.size(); ++i) {
        if (columns[i] == a || columns[i] == b) return static_cast<int>(i);
      }
      r.field("columns").fail(std::string("expected a column ") + a + " or " + b);
    };
    const int bw = column("bandwidth_MBps", "bandwidth_mean_GBps");
    const int lat = column("latency_ns", "latency_mean_ns");
    const double bw_scale = columns[static_cast<std::size_t>(bw)] == "bandwidth_MBps" ? 1e-3 : 1.0;
    LoadedLatencyCurve curve{mix, w, mess ? FigureScope::kOneSocket : FigureScope::kWholeMachine, {}, r.pointer()};
    const JsonReader points = r.field("points");
    points.expect_array("the curve's points");
    for (std::size_t i = 0; i < points.size(); ++i) {
      const JsonReader p = points.element(i);
      p.expect_array("a point [one number per column]");
      if (p.size() != columns.size()) p.fail("expected " + std::to_string(columns.size()) + " numbers, one per column");
      const double b = p.element(static_cast<std::size_t>(bw)).number();
      if (b < 0.0) p.element(static_cast<std::size_t>(bw)).fail("expected a bandwidth of zero or more");
      curve.points.push_back({b * bw_scale, positive(p.element(static_cast<std::size_t>(lat)), "a latency in ns")});
    }
    if (curve.points.empty()) points.fail("expected at least one point");
    m_.loaded_latency.push_back(std::move(curve));
  }

  JsonReader root_;
  MeasuredMachine m_;
};

}  // namespace

std::string figure_class_name(FigureClass c) {
  switch (c) {
    case FigureClass::kIdleLatency:
      return "idle_latency_ns";
    case FigureClass::kBandwidth:
      return "bandwidth_gbps";
    case FigureClass::kPeakInjection:
      return "peak_injection_gbps";
    case FigureClass::kLoadedLatency:
      return "loaded_latency";
    case FigureClass::kCoreToCore:
      return "c2c_latency_ns";
  }
  return "?";
}

MeasuredMachine parse_corpus_machine(std::string_view json_text, const std::string& source_name) {
  Json doc;
  try {
    doc = Json::parse(json_text);
  } catch (const Json::exception& e) {  // a parse error, or a number too large for a double (1e400)
    throw InputError(source_name, "", std::string("expected JSON (") + e.what() + ")");
  }
  return MachineReader(doc, source_name).read();
}

std::vector<MeasuredMachine> load_corpus(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) throw InputError(dir.string(), "", "expected a folder of corpus machines");
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(dir.string(), "", "expected at least one corpus machine (*.json)");
  std::vector<MeasuredMachine> machines;
  for (const auto& path : files) {
    MeasuredMachine m = parse_corpus_machine(read_input_file(path), path.string());
    const std::filesystem::path spec = dir / "specs" / (m.id + ".json");
    if (std::filesystem::exists(spec, ec)) {
      m.spec = load_spec_sheet(spec);
      m.spec_file = spec.string();
    } else {
      m.no_spec_reason = "no spec sheet in our format (" + (std::filesystem::path("specs") / (m.id + ".json")).string() +
                         "): the corpus entry does not give the memory system, or the vendor has no rules";
    }
    for (const MeasuredMachine& other : machines) {
      if (other.id == m.id) throw InputError(path.string(), "/id", "expected an id no other corpus file has (" + other.file + ")");
    }
    machines.push_back(std::move(m));
  }
  return machines;
}

}  // namespace numatwin::model
