// Durner, Leis and Neumann's view of allocators: a stream of allocating queries
// (allocating_queries.hpp) arriving at exponential intervals, at most 10 in flight
// (query_arrivals.hpp), with the resident set sampled all along (rss_sampler.hpp) and for an idle
// period after the last query, in this process (run one allocator per process).
//
// Reported:
//   latency       end - arrival of each query: p50, p90, p99 (nearest rank: the ceil(p n / 100)-th
//                 smallest of n) and the largest; the mean queueing delay (start - arrival);
//   throughput    queries / (last end - first arrival), queries per second;
//   memory        RSS before the first arrival, the largest sample (every ~10 ms: a peak shorter
//                 than the period can be missed), as the last query ends (the pool's threads
//                 still live), once the pool's threads have exited (their thread caches and
//                 arenas left to the allocator), and after the idle period that follows; returned =
//                 (peak - after idle) / (peak - before), the share of the growth the allocator gave
//                 back to the system.
// Every query's result is verified after the idle period (the references are not timed and do
// not disturb the samples); a wrong result is an error.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "numatwin/validate/alloc/allocating_queries.hpp"
#include "numatwin/validate/alloc/query_arrivals.hpp"
#include "numatwin/validate/host/rss_sampler.hpp"

namespace numatwin::validate {

enum class QueryMix { kAggregation, kJoin, kBoth };  // kBoth: aggregation, join, aggregation, ...

// "aggregation", "join", "both"; throws std::invalid_argument listing them for another name.
QueryMix query_mix_by_name(const std::string& name);
const char* query_mix_name(QueryMix mix);

struct ArrivalBenchOptions {
  double rate_per_second = 0.0;  // lambda (> 0)
  int queries = 200;
  double query_records = 2e5;  // N per query
  QueryMix mix = QueryMix::kBoth;
  double idle_seconds = 1.0;
  double sample_period_ms = 10.0;
  int max_in_flight = kDefaultMaxQueriesInFlight;
  std::uint64_t seed = 1;
};

// Throws std::invalid_argument (one line naming the option) for a rate <= 0, queries < 1,
// query records outside [100, 1e9], idle seconds outside [0, 600], a sampling period outside
// [1, 1000] ms or max_in_flight < 1.
void check_arrival_options(const ArrivalBenchOptions& options);

// The spec of query i: its kind from the mix and seed = options.seed x 1000003 + i.
QuerySpec arrival_query_spec(const ArrivalBenchOptions& options, std::size_t i);

struct LatencySummary {
  double p50_s = 0.0;
  double p90_s = 0.0;
  double p99_s = 0.0;
  double max_s = 0.0;
  double mean_s = 0.0;
  double mean_queueing_s = 0.0;
  double queries_per_second = 0.0;
};

// Throws std::invalid_argument for no queries.
LatencySummary summarise_latencies(const std::vector<QueryTiming>& timings);

struct ArrivalBenchResult {
  std::string allocator;
  ArrivalBenchOptions options;
  LatencySummary latency;
  double rss_before_bytes = 0.0;
  double rss_peak_bytes = 0.0;
  double rss_end_of_queries_bytes = 0.0;      // as the last query ends (its worker still running)
  double rss_after_workers_exit_bytes = 0.0;  // once the pool's threads have exited
  double rss_after_idle_bytes = 0.0;
  double returned_share = 0.0;  // (peak - after idle) / (peak - before); 0 when nothing grew
  double last_query_end_s = 0.0;  // seconds after the stream's origin (as the samples' times)
  double idle_begin_s = 0.0;      // the pool's threads have exited: the idle period begins
  double idle_end_s = 0.0;        // the idle period's end (the last RSS read)
  bool verified = false;
  std::vector<QueryTiming> queries;
  std::vector<QueryKind> kinds;
  std::vector<RssSample> samples;
};

// Throws check_arrival_options' errors before any work, std::runtime_error for a wrong result.
ArrivalBenchResult run_arrival_bench(const ArrivalBenchOptions& options);

nlohmann::ordered_json to_json(const ArrivalBenchResult& result);
ArrivalBenchResult arrival_bench_from_json(const nlohmann::json& json);

}  // namespace numatwin::validate
