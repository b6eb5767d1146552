// `numatwin validate allocbench --arrivals RATE`: Durner et al.'s query stream
// (validate/arrival_bench.hpp) under each allocator, one child process per allocator, reported
// as a table (latency percentiles, queries per second, RSS before / peak / end / after idle) or
// JSON with the RSS samples (--json, --out FILE written atomically).
#pragma once

#include <string>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace numatwin::cli {

struct ArrivalCliOptions {
  double rate_per_second = 0.0;
  int queries = 200;
  double query_records = 2e5;
  std::string mix = "both";
  double idle_seconds = 1.0;
  double sample_ms = 10.0;
  int max_in_flight = 10;
  unsigned long long seed = 1;
  CLI::Option* rate_option = nullptr;

  [[nodiscard]] bool given() const;
};

// Adds --arrivals and the stream's options to allocbench.
void add_arrival_options(CLI::App& allocbench, ArrivalCliOptions& options);

struct ArrivalRunContext {
  std::string allocator;  // "all" or one name
  bool json = false;
  std::string out;          // the JSON file to write ("" none)
  std::string result_file;  // internal: a child writes its result here
};

// The parent (one child per allocator, then the report) or, with result_file, the child.
void run_arrivals(const ArrivalCliOptions& options, const ArrivalRunContext& context);

}  // namespace numatwin::cli
