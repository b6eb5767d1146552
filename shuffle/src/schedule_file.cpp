#include "numatwin/shuffle/schedule_file.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

namespace numatwin::shuffle {
namespace {

using Json = nlohmann::json;

std::string compose(const std::string& file, const std::string& pointer, const std::string& expectation) {
  std::string text = file.empty() ? std::string("<input>") : file;
  if (!pointer.empty()) text.append(": ").append(pointer);
  return text.append(": ").append(expectation);
}

std::string type_name(const Json& j) {
  if (j.is_number_integer()) return "an integer";
  if (j.is_number()) return "a number";
  if (j.is_string()) return "a string";
  if (j.is_boolean()) return "a boolean";
  if (j.is_array()) return "an array";
  if (j.is_object()) return "an object";
  return "null";
}

std::string shown(const Json& j) {
  if (j.is_number() || j.is_boolean() || j.is_string()) return j.dump();
  return type_name(j);
}

// A value of the document and its JSON pointer.
class Node {
 public:
  Node(const Json& value, std::string pointer, const std::string& file) : value_(value), pointer_(std::move(pointer)), file_(file) {}

  [[noreturn]] void fail(const std::string& expectation) const { throw ScheduleFileError(file_, pointer_, expectation); }

  [[nodiscard]] bool has(const char* key) const { return value_.contains(key); }
  [[nodiscard]] Node field(const char* key) const {
    const std::string pointer = pointer_ + "/" + key;
    if (!value_.contains(key)) throw ScheduleFileError(file_, pointer, "missing; expected a value here");
    return Node(value_.at(key), pointer, file_);
  }
  [[nodiscard]] Node element(std::size_t i) const { return Node(value_.at(i), pointer_ + "/" + std::to_string(i), file_); }
  [[nodiscard]] std::size_t size() const { return value_.size(); }

  void expect_array(std::size_t length, const std::string& what) const {
    if (!value_.is_array()) fail("expected " + what + ", found " + type_name(value_));
    if (value_.size() != length)
      fail("expected " + what + " (" + std::to_string(length) + " entries), found " + std::to_string(value_.size()) + " entries");
  }
  [[nodiscard]] long long integer(long long low, long long high, const std::string& what) const {
    const std::string expected = "expected " + what + " " + std::to_string(low) + ".." + std::to_string(high);
    if (!value_.is_number_integer()) fail(expected + ", found " + shown(value_));
    const long long v = value_.is_number_unsigned() && value_.get<std::uint64_t>() > static_cast<std::uint64_t>(high)
                            ? high + 1
                            : value_.get<long long>();
    if (v < low || v > high) fail(expected + ", found " + value_.dump());
    return v;
  }
  // `low` is a whole number (it is printed as one).
  [[nodiscard]] double number_at_least(double low, bool strict, const std::string& what) const {
    const std::string expected = "expected " + what + (strict ? " > " : " >= ") + std::to_string(static_cast<long long>(low));
    if (!value_.is_number()) fail(expected + ", found " + shown(value_));
    const double v = value_.get<double>();
    if (!std::isfinite(v) || (strict ? !(v > low) : !(v >= low))) fail(expected + ", found " + value_.dump());
    return v;
  }
  [[nodiscard]] std::string string(const std::string& what) const {
    if (!value_.is_string()) fail("expected " + what + ", found " + shown(value_));
    return value_.get<std::string>();
  }
  [[nodiscard]] bool boolean() const {
    if (!value_.is_boolean()) fail("expected true or false, found " + shown(value_));
    return value_.get<bool>();
  }
  [[nodiscard]] const Json& json() const { return value_; }

 private:
  const Json& value_;
  std::string pointer_;
  const std::string& file_;
};

// One reference token of a JSON pointer (RFC 6901).
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

constexpr long long kMaxThreads = 1 << 20;

const std::set<std::string>& known_fields() {
  static const std::set<std::string> fields{"format", "format_version", "workload", "topology", "threads", "cpus",
                                            "piece_bytes", "designed", "estimate_s", "bound_s", "steps"};
  return fields;
}

Schedule read_steps(const Node& steps, int n) {
  steps.expect_array(static_cast<std::size_t>(n), "one step per thread");
  Schedule s;
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::vector<int>> read_at(un, std::vector<int>(un, -1));  // read_at[c][p]: the step c read p
  for (std::size_t k = 0; k < un; ++k) {
    const Node step = steps.element(k);
    step.expect_array(un, "the producer each consumer reads in this step, one per thread");
    std::vector<int> row(un);
    std::vector<int> reader(un, -1);  // reader[p]: the consumer reading p in this step
    for (std::size_t c = 0; c < un; ++c) {
      const Node entry = step.element(c);
      const int p = static_cast<int>(entry.integer(0, n - 1, "a producer thread"));
      const auto up = static_cast<std::size_t>(p);
      if (reader[up] >= 0)
        entry.fail("expected every producer once per step, found producer " + std::to_string(p) + " again (consumer " +
                   std::to_string(reader[up]) + " reads it in this step)");
      if (read_at[c][up] >= 0)
        entry.fail("expected consumer " + std::to_string(c) + " to read every producer once, found producer " + std::to_string(p) +
                   " again (it read it in step " + std::to_string(read_at[c][up]) + ")");
      reader[up] = static_cast<int>(c);
      read_at[c][up] = static_cast<int>(k);
      row[c] = p;
    }
    s.steps.push_back(std::move(row));
  }
  return s;
}

}  // namespace

ScheduleFileError::ScheduleFileError(std::string file, std::string json_pointer, std::string expectation)
    : std::runtime_error(compose(file, json_pointer, expectation)),
      file_(std::move(file)),
      json_pointer_(std::move(json_pointer)),
      expectation_(std::move(expectation)) {}

ScheduleFile parse_schedule_file(const std::string& json_text, const std::string& source_name) {
  Json document;
  try {
    document = Json::parse(json_text);
  } catch (const Json::parse_error& e) {
    throw ScheduleFileError(source_name, "", "not valid JSON (byte " + std::to_string(e.byte) + "): expected a shuffle schedule");
  } catch (const Json::exception& e) {
    throw ScheduleFileError(source_name, "", std::string("unreadable JSON (") + e.what() + "): expected a shuffle schedule");
  }
  const Node root(document, "", source_name);
  if (!document.is_object()) root.fail("expected a shuffle schedule object at the top level, found " + type_name(document));
  for (const auto& item : document.items())
    if (known_fields().count(item.key()) == 0)
      Node(item.value(), "/" + pointer_token(item.key()), source_name)
          .fail("unknown field; expected one of format, format_version, workload, topology, threads, cpus, piece_bytes, "
                "designed, estimate_s, bound_s, steps");
  const Node format = root.field("format");
  if (format.string("\"" + std::string(kScheduleFormat) + "\"") != kScheduleFormat)
    format.fail("expected \"" + std::string(kScheduleFormat) + "\", found " + format.json().dump());
  const Node version = root.field("format_version");
  if (!version.json().is_number_integer() || version.json().get<long long>() != kScheduleFormatVersion)
    version.fail("expected format_version " + std::to_string(kScheduleFormatVersion) + " (the only version this reader knows), found " +
                 shown(version.json()));

  ScheduleFile out;
  if (root.has("workload")) {
    const Node workload = root.field("workload");
    const std::string names = "\"shuffle\", \"migration\" or \"migration-copy\"";
    if (!parse_workload(workload.string(names), out.workload)) workload.fail("expected " + names + ", found " + workload.json().dump());
  }
  if (root.has("topology")) out.topology = root.field("topology").string("the topology's name (a string)");
  out.threads = static_cast<int>(root.field("threads").integer(1, kMaxThreads, "a thread count"));
  if (root.has("cpus")) {
    const Node cpus = root.field("cpus");
    cpus.expect_array(static_cast<std::size_t>(out.threads), "one CPU per thread");
    for (std::size_t t = 0; t < cpus.size(); ++t)
      out.cpus.push_back(static_cast<int>(cpus.element(t).integer(0, std::numeric_limits<int>::max(), "a CPU index")));
  }
  if (root.has("piece_bytes")) out.piece_bytes = root.field("piece_bytes").number_at_least(0.0, true, "a piece size in bytes");
  if (root.has("designed")) out.designed = root.field("designed").boolean();
  if (root.has("estimate_s")) out.estimate_s = root.field("estimate_s").number_at_least(0.0, false, "seconds");
  if (root.has("bound_s")) out.bound_s = root.field("bound_s").number_at_least(0.0, false, "seconds");
  out.schedule = read_steps(root.field("steps"), out.threads);
  return out;
}

std::string schedule_file_text(const ScheduleFile& file) {
  check_schedule(file.schedule, file.threads);
  if (!file.schedule.is_latin_square())
    throw std::invalid_argument("a version 1 schedule file holds a Latin square: some step reads a producer twice");
  if (!file.cpus.empty() && file.cpus.size() != static_cast<std::size_t>(file.threads))
    throw std::invalid_argument("schedule file: " + std::to_string(file.cpus.size()) + " CPUs for " + std::to_string(file.threads) +
                                " threads");
  nlohmann::ordered_json j;
  j["format"] = kScheduleFormat;
  j["format_version"] = kScheduleFormatVersion;
  if (file.workload != Workload::kShuffle) j["workload"] = workload_name(file.workload);  // absent: a shuffle
  if (!file.topology.empty()) j["topology"] = file.topology;
  j["threads"] = file.threads;
  if (!file.cpus.empty()) j["cpus"] = file.cpus;
  if (file.piece_bytes > 0) j["piece_bytes"] = file.piece_bytes;
  j["designed"] = file.designed;
  if (file.estimate_s > 0) j["estimate_s"] = file.estimate_s;
  if (file.bound_s > 0) j["bound_s"] = file.bound_s;
  j["steps"] = file.schedule.steps;
  return j.dump(1) + "\n";
}

ScheduleFile read_schedule_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScheduleFileError(path, "", "cannot open the file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw ScheduleFileError(path, "", "cannot read the file");
  return parse_schedule_file(text.str(), path);
}

}  // namespace numatwin::shuffle
