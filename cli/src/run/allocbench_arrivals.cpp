#include "run/allocbench_arrivals.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "run/allocator_exec.hpp"
#include "numatwin/model/file_io.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/alloc/arrival_bench.hpp"
#include "report/text_table.hpp"

namespace numatwin::cli {
namespace {

validate::ArrivalBenchOptions bench_options(const ArrivalCliOptions& o) {
  validate::ArrivalBenchOptions b;
  b.rate_per_second = o.rate_per_second;
  b.queries = o.queries;
  b.query_records = o.query_records;
  b.mix = validate::query_mix_by_name(o.mix);
  b.idle_seconds = o.idle_seconds;
  b.sample_period_ms = o.sample_ms;
  b.max_in_flight = o.max_in_flight;
  b.seed = o.seed;
  validate::check_arrival_options(b);
  return b;
}

std::vector<std::string> child_arguments(const ArrivalCliOptions& o, const std::string& allocator,
                                         const std::string& file) {
  return {own_arguments().front(),
          "validate",
          "allocbench",
          "--allocator",
          allocator,
          "--arrivals",
          fmt::format("{:.17g}", o.rate_per_second),
          "--queries",
          std::to_string(o.queries),
          "--query-records",
          fmt::format("{:.17g}", o.query_records),
          "--mix",
          o.mix,
          "--idle-seconds",
          fmt::format("{:.17g}", o.idle_seconds),
          "--sample-ms",
          fmt::format("{:.17g}", o.sample_ms),
          "--max-in-flight",
          std::to_string(o.max_in_flight),
          "--seed",
          std::to_string(o.seed),
          "--result-file",
          file};
}

std::string mib(double bytes) { return fmt::format("{:.1f}", bytes / 1048576.0); }
std::string ms(double seconds) { return fmt::format("{:.1f}", seconds * 1e3); }

void print_table(const validate::ArrivalBenchOptions& b,
                 const std::vector<validate::ArrivalBenchResult>& results) {
  std::cout << fmt::format(
      "{} queries ({}, {:g} records each) arriving at {:g} per second (exponential), at most {} in "
      "flight, "
      "{:g} s idle after the last\n",
      b.queries, validate::query_mix_name(b.mix), b.query_records, b.rate_per_second,
      b.max_in_flight, b.idle_seconds);
  TextTable table({"allocator", "p50 ms", "p90 ms", "p99 ms", "max ms", "mean queue ms",
                   "queries/s", "RSS before MiB", "peak MiB", "end of queries MiB",
                   "threads exited MiB", "after idle MiB", "returned", "verified"});
  for (const auto& r : results) {
    const validate::LatencySummary& l = r.latency;
    table.add_row({r.allocator, ms(l.p50_s), ms(l.p90_s), ms(l.p99_s), ms(l.max_s),
                   ms(l.mean_queueing_s), fmt::format("{:.1f}", l.queries_per_second),
                   mib(r.rss_before_bytes), mib(r.rss_peak_bytes), mib(r.rss_end_of_queries_bytes),
                   mib(r.rss_after_workers_exit_bytes), mib(r.rss_after_idle_bytes),
                   fmt::format("{:.0f} %", 100 * r.returned_share), r.verified ? "yes" : "NO"});
  }
  std::cout << table.render();
  std::cout << fmt::format(
      "latency = end - arrival (nearest rank); RSS sampled every {:g} ms from /proc/self/statm; "
      "returned = (peak - after idle) / (peak - before)\n",
      b.sample_period_ms);
}

}  // namespace

bool ArrivalCliOptions::given() const { return rate_option != nullptr && rate_option->count() > 0; }

void add_arrival_options(CLI::App& cmd, ArrivalCliOptions& o) {
  o.rate_option = cmd.add_option("--arrivals", o.rate_per_second,
                                 "Durner et al.'s query stream: queries (MEDIAN per group, chained "
                                 "join) arriving at this rate per "
                                 "second, exponential gaps, at most --max-in-flight at once; "
                                 "latency and RSS over time per allocator");
  cmd.add_option("--queries", o.queries, "With --arrivals: queries in the stream")
      ->capture_default_str();
  cmd.add_option("--query-records", o.query_records,
                 "With --arrivals: records per query (aggregation input, join probe side)")
      ->capture_default_str();
  cmd.add_option("--mix", o.mix, "With --arrivals: aggregation, join or both (alternating)")
      ->capture_default_str();
  cmd.add_option("--idle-seconds", o.idle_seconds,
                 "With --arrivals: seconds sampled after the last query ends")
      ->capture_default_str();
  cmd.add_option("--sample-ms", o.sample_ms, "With --arrivals: RSS sampling period, ms")
      ->capture_default_str();
  cmd.add_option("--max-in-flight", o.max_in_flight,
                 "With --arrivals: queries running at once at most")
      ->capture_default_str();
  cmd.add_option("--seed", o.seed,
                 "With --arrivals: seed of the arrival times and the queries' data")
      ->capture_default_str();
}

void run_arrivals(const ArrivalCliOptions& o, const ArrivalRunContext& c) {
  const validate::ArrivalBenchOptions b = bench_options(o);  // bad input: one line, before any work
  if (!c.result_file.empty()) {  // a child: one allocator, result to the file
    ensure_allocator(c.allocator);
    model::write_file_atomically(c.result_file,
                                 validate::to_json(validate::run_arrival_bench(b)).dump() + "\n");
    return;
  }
  std::vector<std::string> names;
  if (c.allocator == "all") {
    for (const validate::AllocatorInfo& a : validate::known_allocators()) names.push_back(a.name);
  } else {
    names.push_back(validate::allocator_by_name(c.allocator).name);
  }
  for (const std::string& name : names)
    (void)validate::require_allocator_library(validate::allocator_by_name(name));
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / fmt::format("numatwin-arrivals-{}", ::getpid());
  std::filesystem::create_directories(dir);
  std::vector<validate::ArrivalBenchResult> results;
  nlohmann::ordered_json all = nlohmann::ordered_json::array();
  for (const std::string& name : names) {
    std::cerr << "numatwin: " << name << ": " << b.queries << " queries at " << b.rate_per_second
              << " per second\n";
    const std::string file = (dir / (name + ".json")).string();
    const int status =
        run_in_child(name, child_arguments(o, name, file));  // a fresh process: its own RSS
    if (status != 0) {
      std::filesystem::remove_all(dir);
      throw std::runtime_error("the " + name + " query stream failed (exit status " +
                               std::to_string(status) + ")");
    }
    std::ifstream in(file);
    const nlohmann::json parsed =
        nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
    results.push_back(validate::arrival_bench_from_json(parsed));
    all.push_back(validate::to_json(results.back()));
  }
  std::filesystem::remove_all(dir);
  const std::string text = all.dump(2) + "\n";
  if (!c.out.empty()) model::write_file_atomically(c.out, text);
  if (c.json) {
    std::cout << text;
    return;
  }
  print_table(b, results);
  if (!c.out.empty()) std::cout << "samples written to " << c.out << "\n";
}

}  // namespace numatwin::cli
