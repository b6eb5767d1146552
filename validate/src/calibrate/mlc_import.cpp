#include "numatwin/validate/calibrate/mlc_import.hpp"

#include <cmath>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "numatwin/model/input_error.hpp"

namespace numatwin::validate {
namespace {

class Lines {
 public:
  Lines(std::string_view text, std::string file) : file_(std::move(file)) {
    std::string current;
    for (char c : text) {
      if (c == '\n') {
        lines_.push_back(current);
        current.clear();
      } else if (c != '\r') {
        current += c;
      }
    }
    if (!current.empty()) lines_.push_back(current);
  }
  [[nodiscard]] bool done() const { return at_ >= lines_.size(); }
  [[nodiscard]] const std::string& peek() const { return lines_[at_]; }
  const std::string& next() { return lines_[at_++]; }
  [[nodiscard]] int line_number() const { return static_cast<int>(at_); }  // 1-based number of the last line read
  [[nodiscard]] model::InputError error(int line, const std::string& expectation) const {
    return model::InputError(file_, "line " + std::to_string(line), expectation);
  }
  [[nodiscard]] model::InputError truncated(const std::string& what, int started, const std::string& detail = "") const {
    return model::InputError(file_, "line " + std::to_string(lines_.size()),
                             "truncated: the file ends inside the " + what + " section started at line " +
                                 std::to_string(started) + detail);
  }

 private:
  std::string file_;
  std::vector<std::string> lines_;
  std::size_t at_ = 0;
};

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool parse_number(const std::string& text, double& value) {
  try {
    std::size_t used = 0;
    value = std::stod(text, &used);
    return used == text.size() && std::isfinite(value);
  } catch (const std::exception&) {
    return false;
  }
}

bool parse_int(const std::string& text, int& value) {
  double d = 0.0;
  if (!parse_number(text, d) || d != std::floor(d) || d < 0 || d > 1e9) return false;
  value = static_cast<int>(d);
  return true;
}

bool blank(const std::string& line) { return words(line).empty(); }
bool starts_section(const std::string& line) {
  return line.rfind("$", 0) == 0 || line.find("Intel(R) Memory Latency Checker") != std::string::npos;
}

// The header "Numa node  0  1 ...": the columns, every memory node.
void read_matrix_header(Lines& lines, const std::string& what, int started, std::vector<int>& columns) {
  while (true) {
    if (lines.done()) throw lines.truncated(what, started);
    const std::string& line = lines.next();
    if (starts_section(line)) throw lines.error(lines.line_number(), "expected the " + what + " matrix header \"Numa node 0 1 ...\" before the next command");
    const std::vector<std::string> w = words(line);
    if (w.size() >= 3 && w[0] == "Numa" && w[1] == "node") {
      for (std::size_t i = 2; i < w.size(); ++i) {
        int node = 0;
        if (!parse_int(w[i], node)) {
          throw lines.error(lines.line_number(), "expected node numbers in the " + what + " matrix header, found \"" + w[i] + "\"");
        }
        if (mlc_index_of(columns, node) >= 0) {
          throw lines.error(lines.line_number(), "expected each node once in the " + what + " matrix header, found node " + w[i] + " twice");
        }
        columns.push_back(node);
      }
      return;
    }
  }
}

// One row "i  v_i0  v_i1 ...": its node must be a column after the previous row's node.
std::vector<double> read_matrix_row(const Lines& lines, const std::string& what, const std::vector<std::string>& w, double scale,
                                    const std::vector<int>& columns, std::vector<int>& rows) {
  const int number = lines.line_number();
  const std::size_t n = columns.size();
  const int after = rows.empty() ? -1 : mlc_index_of(columns, rows.back());
  int node = 0;
  const int at = parse_int(w[0], node) ? mlc_index_of(columns, node) : -1;
  if (at < 0 || at <= after) {
    throw lines.error(number, "expected a row of the " + what + " matrix starting with a node of its header" +
                                  (rows.empty() ? std::string() : " after node " + std::to_string(rows.back())) +
                                  " (one row per node with CPUs), found \"" + w[0] + "\"");
  }
  if (w.size() != n + 1) {
    throw lines.error(number, "expected " + std::to_string(n) + " values in the " + what + " matrix row of node " +
                                  std::to_string(node) + ", found " + std::to_string(w.size() - 1));
  }
  std::vector<double> row;
  for (std::size_t j = 1; j < w.size(); ++j) {
    double value = 0.0;
    if (!parse_number(w[j], value) || value <= 0.0) {
      throw lines.error(number, "expected a positive number in the " + what + " matrix, found \"" + w[j] + "\"");
    }
    row.push_back(value * scale);
  }
  rows.push_back(node);
  return row;
}

// A matrix section: the header, then one row per node with CPUs up to a blank line or the next
// section (mlc_import.hpp).
void read_matrix(Lines& lines, const std::string& what, int started, double scale, std::vector<int>& columns,
                 std::vector<int>& rows, std::vector<std::vector<double>>& matrix) {
  read_matrix_header(lines, what, started, columns);
  while (true) {
    if (lines.done()) {
      // mlc ends a matrix with a blank line; the end of the file is its end only when every
      // column had its row.
      if (rows.size() == columns.size()) return;
      throw lines.truncated(what, started, " (" + std::to_string(rows.size()) + " of " + std::to_string(columns.size()) +
                                               " rows, and no blank line after them)");
    }
    const std::string& line = lines.peek();
    if (blank(line) || starts_section(line)) {
      if (rows.empty()) {
        throw lines.error(lines.line_number() + 1, "expected at least one row of the " + what + " matrix after its header");
      }
      return;
    }
    lines.next();
    matrix.push_back(read_matrix_row(lines, what, words(line), scale, columns, rows));
  }
}

// "ALL Reads        :  215733.9" lines until a blank line or the next command.
void read_ratios(Lines& lines, const std::string& what, int started, std::map<std::string, double>& out) {
  while (!lines.done()) {
    const std::string& line = lines.peek();
    if (starts_section(line)) break;
    lines.next();
    const auto colon = line.find(':');
    if (line.find("Reads") == std::string::npos && line.find("triad") == std::string::npos) {
      if (out.empty()) continue;  // preamble
      if (blank(line)) break;
      continue;
    }
    // "3:1 Reads-Writes :  182141.9": the value follows the last colon.
    const auto last = line.rfind(':');
    if (colon == std::string::npos || last == std::string::npos) {
      throw lines.error(lines.line_number(), "expected \"<traffic> : <MB/sec>\" in the " + what + " section");
    }
    std::string key = line.substr(0, last);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    const std::vector<std::string> w = words(line.substr(last + 1));
    double value = 0.0;
    if (w.size() != 1 || !parse_number(w[0], value) || value <= 0.0) {
      throw lines.error(lines.line_number(), "expected one positive MB/sec value after \"" + key + " :\" in the " + what + " section");
    }
    out[key] = value / 1000.0;
  }
  if (out.empty()) throw lines.truncated(what, started);
}

void read_loaded_latency(Lines& lines, int started, MlcResults& results) {
  while (true) {
    if (lines.done()) throw lines.truncated("loaded latency", started);
    const std::string& line = lines.next();
    if (line.find("traffic type") != std::string::npos) {
      results.loaded_latency_traffic = line.substr(line.find("Using") == 0 ? 6 : 0);
    }
    if (line.rfind("=====", 0) == 0) break;
    if (starts_section(line)) throw lines.error(lines.line_number(), "expected the loaded latency table (a \"=====\" line)");
  }
  while (!lines.done()) {
    const std::string& line = lines.peek();
    if (blank(line) || starts_section(line)) break;
    lines.next();
    const std::vector<std::string> w = words(line);
    MlcLoadedLatencyPoint point;
    point.line = lines.line_number();
    if (w.size() != 3 || !parse_int(w[0], point.inject_delay) || !parse_number(w[1], point.latency_ns) ||
        !parse_number(w[2], point.bandwidth_gbps) || point.latency_ns <= 0.0 || point.bandwidth_gbps <= 0.0) {
      throw lines.error(point.line, "expected \"<inject delay> <latency ns> <MB/sec>\" in the loaded latency table, found \"" + line + "\"");
    }
    point.bandwidth_gbps /= 1000.0;
    results.loaded_latency.push_back(point);
  }
  if (results.loaded_latency.empty()) throw lines.truncated("loaded latency", started);
}

}  // namespace

MlcResults parse_mlc_output(std::string_view text, const std::string& file) {
  Lines lines(text, file);
  MlcResults results;
  results.file = file;
  static const std::regex version(R"(Intel\(R\) Memory Latency Checker - (v[0-9.]+[a-z]*))");  // v3.5, v3.11b
  static const std::regex idle(R"(Each iteration took\s+([0-9.]+)\s+core clocks\s*\(\s*([0-9.]+)\s*ns\))");
  bool any = false;
  while (!lines.done()) {
    const std::string& line = lines.next();
    const int number = lines.line_number();
    std::smatch match;
    if (std::regex_search(line, match, version)) {
      results.version = match[1].str();
    } else if (line.find("Measuring Memory Bandwidths between nodes") != std::string::npos) {
      if (!results.bandwidth_matrix_gbps.empty()) throw lines.error(number, "expected one bandwidth matrix, found a second");
      read_matrix(lines, "bandwidth", number, 1.0 / 1000.0, results.bandwidth_nodes, results.bandwidth_cpu_nodes,
                  results.bandwidth_matrix_gbps);
      any = true;
    } else if (line.find("Measuring idle latencies") != std::string::npos) {
      // --latency_matrix prints a matrix; --idle_latency prints "Each iteration took ...".
      while (!lines.done() && blank(lines.peek())) lines.next();
      if (lines.done()) throw lines.truncated("idle latency", number);
      if (lines.peek().find("Numa node") != std::string::npos) {
        if (!results.latency_matrix_ns.empty()) throw lines.error(number, "expected one latency matrix, found a second");
        read_matrix(lines, "latency", number, 1.0, results.latency_nodes, results.latency_cpu_nodes, results.latency_matrix_ns);
        any = true;
      }
    } else if (line.find("Each iteration took") != std::string::npos) {
      double ns = 0.0;
      if (!std::regex_search(line, match, idle) || !parse_number(match[2].str(), ns) || ns <= 0.0) {
        throw lines.error(number, "expected \"Each iteration took <clocks> core clocks ( <ns> ns)\" with a latency > 0 ns, found \"" + line + "\"");
      }
      results.idle_latency_ns = ns;
      any = true;
    } else if (line.find("Measuring Peak Injection Memory Bandwidths") != std::string::npos) {
      read_ratios(lines, "peak injection bandwidth", number, results.peak_injection_gbps);
      any = true;
    } else if (line.find("Measuring Maximum Memory Bandwidths") != std::string::npos) {
      read_ratios(lines, "maximum bandwidth", number, results.max_bandwidth_gbps);
      any = true;
    } else if (line.find("Measuring Loaded Latencies") != std::string::npos) {
      read_loaded_latency(lines, number, results);
      any = true;
    }
  }
  if (!any) {
    throw model::InputError(file, "", "expected Intel mlc output (a bandwidth or latency matrix, idle or loaded latency, "
                                      "or peak injection bandwidths), found none");
  }
  if (!results.bandwidth_nodes.empty() && !results.latency_nodes.empty() &&
      (results.bandwidth_nodes != results.latency_nodes || results.bandwidth_cpu_nodes != results.latency_cpu_nodes)) {
    throw model::InputError(file, "", "expected the bandwidth and latency matrices over the same NUMA nodes (columns) and "
                                      "the same nodes with CPUs (rows)");
  }
  return results;
}

int mlc_index_of(const std::vector<int>& nodes, int node) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] == node) return static_cast<int>(i);
  }
  return -1;
}

MlcResults load_mlc_output(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw model::InputError(path.string(), "", "cannot read the file");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_mlc_output(text, path.string());
}

}  // namespace numatwin::validate
