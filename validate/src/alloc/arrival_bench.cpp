#include "numatwin/validate/alloc/arrival_bench.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "numatwin/validate/kernels/allocator.hpp"

namespace numatwin::validate {
namespace {

double nearest_rank(const std::vector<double>& sorted, double percent) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(percent / 100.0 * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

void require(bool ok, const char* what, double got) {
  if (ok) return;
  std::ostringstream text;
  text << what << " (got " << got << ")";
  throw std::invalid_argument(text.str());
}

}  // namespace

QueryMix query_mix_by_name(const std::string& name) {
  if (name == "aggregation") return QueryMix::kAggregation;
  if (name == "join") return QueryMix::kJoin;
  if (name == "both") return QueryMix::kBoth;
  throw std::invalid_argument("--mix \"" + name + "\": expected aggregation, join or both");
}

const char* query_mix_name(QueryMix mix) {
  switch (mix) {
    case QueryMix::kAggregation:
      return "aggregation";
    case QueryMix::kJoin:
      return "join";
    case QueryMix::kBoth:
      break;
  }
  return "both";
}

void check_arrival_options(const ArrivalBenchOptions& o) {
  (void)ArrivalGenerator(o.rate_per_second, o.seed);  // the rate's message
  require(o.queries >= 1, "--queries must be >= 1", o.queries);
  require(std::isfinite(o.query_records) && o.query_records >= 100 && o.query_records <= 1e9,
          "--query-records must be in [100, 1e9]", o.query_records);
  require(std::isfinite(o.idle_seconds) && o.idle_seconds >= 0 && o.idle_seconds <= 600,
          "--idle-seconds must be in [0, 600]", o.idle_seconds);
  require(
      std::isfinite(o.sample_period_ms) && o.sample_period_ms >= 1 && o.sample_period_ms <= 1000,
      "--sample-ms must be in [1, 1000]", o.sample_period_ms);
  require(o.max_in_flight >= 1, "--max-in-flight must be >= 1", o.max_in_flight);
}

QuerySpec arrival_query_spec(const ArrivalBenchOptions& o, std::size_t i) {
  QuerySpec q;
  q.kind = o.mix == QueryMix::kJoin || (o.mix == QueryMix::kBoth && i % 2 == 1)
               ? QueryKind::kJoin
               : QueryKind::kAggregation;
  q.rows = static_cast<std::uint64_t>(std::llround(o.query_records));
  q.seed = o.seed * 1000003 + i;
  return q;
}

LatencySummary summarise_latencies(const std::vector<QueryTiming>& timings) {
  if (timings.empty()) throw std::invalid_argument("no queries to summarise");
  std::vector<double> latencies;
  latencies.reserve(timings.size());
  LatencySummary s;
  double first_arrival = timings.front().arrival_s;
  double last_end = timings.front().end_s;
  for (const QueryTiming& t : timings) {
    latencies.push_back(t.end_s - t.arrival_s);
    s.mean_queueing_s += t.start_s - t.arrival_s;
    first_arrival = std::min(first_arrival, t.arrival_s);
    last_end = std::max(last_end, t.end_s);
  }
  const auto n = static_cast<double>(timings.size());
  s.mean_queueing_s /= n;
  std::sort(latencies.begin(), latencies.end());
  s.p50_s = nearest_rank(latencies, 50);
  s.p90_s = nearest_rank(latencies, 90);
  s.p99_s = nearest_rank(latencies, 99);
  s.max_s = latencies.back();
  for (const double l : latencies) s.mean_s += l / n;
  s.queries_per_second = last_end > first_arrival ? n / (last_end - first_arrival) : 0.0;
  return s;
}

ArrivalBenchResult run_arrival_bench(const ArrivalBenchOptions& o) {
  check_arrival_options(o);
  const auto count = static_cast<std::size_t>(o.queries);
  std::vector<QuerySpec> specs(count);
  for (std::size_t i = 0; i < count; ++i) specs[i] = arrival_query_spec(o, i);
  std::vector<QueryResult> results(count);
  const std::vector<double> arrivals = arrival_times_seconds(o.rate_per_second, count, o.seed);

  ArrivalBenchResult r;
  r.allocator = active_allocator();
  r.options = o;
  const auto origin = std::chrono::steady_clock::now();
  RssSampler sampler(origin, o.sample_period_ms);
  r.rss_before_bytes = current_rss_bytes();
  std::atomic<std::size_t> done{0};
  r.queries = run_query_stream(
      arrivals, o.max_in_flight,
      [&](std::size_t i) {
        results[i] = run_allocating_query(specs[i]);
        if (done.fetch_add(1) + 1 == count) {  // the last query to end: the workers still live
          r.rss_end_of_queries_bytes = current_rss_bytes();
          r.last_query_end_s =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
        }
      },
      origin);
  const auto since_origin_s = [&origin] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin).count();
  };
  r.rss_after_workers_exit_bytes = current_rss_bytes();
  r.idle_begin_s = since_origin_s();
  std::this_thread::sleep_for(std::chrono::duration<double>(o.idle_seconds));
  r.rss_after_idle_bytes = current_rss_bytes();
  r.idle_end_s = since_origin_s();
  r.samples = sampler.stop();

  r.rss_peak_bytes = std::max({r.rss_before_bytes, r.rss_end_of_queries_bytes,
                               r.rss_after_workers_exit_bytes, r.rss_after_idle_bytes});
  for (const RssSample& s : r.samples) r.rss_peak_bytes = std::max(r.rss_peak_bytes, s.rss_bytes);
  const double growth = r.rss_peak_bytes - r.rss_before_bytes;
  r.returned_share = growth > 0 ? (r.rss_peak_bytes - r.rss_after_idle_bytes) / growth : 0.0;
  r.latency = summarise_latencies(r.queries);
  for (std::size_t i = 0; i < count; ++i) {
    r.kinds.push_back(specs[i].kind);
    verify_query_result(specs[i], results[i],
                        "query " + std::to_string(i) + " (" + query_kind_name(specs[i].kind) +
                            ", seed " + std::to_string(specs[i].seed) + ")");
  }
  r.verified = true;
  return r;
}

nlohmann::ordered_json to_json(const ArrivalBenchResult& r) {
  nlohmann::ordered_json queries = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.queries.size(); ++i)
    queries.push_back({{"kind", query_kind_name(r.kinds.at(i))},
                       {"arrival_s", r.queries[i].arrival_s},
                       {"start_s", r.queries[i].start_s},
                       {"end_s", r.queries[i].end_s}});
  nlohmann::ordered_json samples = nlohmann::ordered_json::array();
  for (const RssSample& s : r.samples) samples.push_back({s.seconds, s.rss_bytes});
  const ArrivalBenchOptions& o = r.options;
  const LatencySummary& l = r.latency;
  return {{"allocator", r.allocator},
          {"rate_per_second", o.rate_per_second},
          {"queries", o.queries},
          {"query_records", o.query_records},
          {"mix", query_mix_name(o.mix)},
          {"idle_seconds", o.idle_seconds},
          {"sample_period_ms", o.sample_period_ms},
          {"max_in_flight", o.max_in_flight},
          {"seed", o.seed},
          {"latency_s",
           {{"p50", l.p50_s},
            {"p90", l.p90_s},
            {"p99", l.p99_s},
            {"max", l.max_s},
            {"mean", l.mean_s}}},
          {"mean_queueing_s", l.mean_queueing_s},
          {"queries_per_second", l.queries_per_second},
          {"rss_bytes",
           {{"before", r.rss_before_bytes},
            {"peak", r.rss_peak_bytes},
            {"end_of_queries", r.rss_end_of_queries_bytes},
            {"after_workers_exit", r.rss_after_workers_exit_bytes},
            {"after_idle", r.rss_after_idle_bytes}}},
          {"returned_share", r.returned_share},
          {"last_query_end_s", r.last_query_end_s},
          {"idle_begin_s", r.idle_begin_s},
          {"idle_end_s", r.idle_end_s},
          {"verified", r.verified},
          {"query_times", queries},
          {"rss_samples", {{"columns", {"seconds", "rss_bytes"}}, {"rows", samples}}}};
}

ArrivalBenchResult arrival_bench_from_json(const nlohmann::json& j) {
  ArrivalBenchResult r;
  r.allocator = j.at("allocator").get<std::string>();
  ArrivalBenchOptions& o = r.options;
  o.rate_per_second = j.at("rate_per_second").get<double>();
  o.queries = j.at("queries").get<int>();
  o.query_records = j.at("query_records").get<double>();
  o.mix = query_mix_by_name(j.at("mix").get<std::string>());
  o.idle_seconds = j.at("idle_seconds").get<double>();
  o.sample_period_ms = j.at("sample_period_ms").get<double>();
  o.max_in_flight = j.at("max_in_flight").get<int>();
  o.seed = j.at("seed").get<std::uint64_t>();
  const nlohmann::json& l = j.at("latency_s");
  r.latency = {l.at("p50").get<double>(),
               l.at("p90").get<double>(),
               l.at("p99").get<double>(),
               l.at("max").get<double>(),
               l.at("mean").get<double>(),
               j.at("mean_queueing_s").get<double>(),
               j.at("queries_per_second").get<double>()};
  const nlohmann::json& rss = j.at("rss_bytes");
  r.rss_before_bytes = rss.at("before").get<double>();
  r.rss_peak_bytes = rss.at("peak").get<double>();
  r.rss_end_of_queries_bytes = rss.at("end_of_queries").get<double>();
  r.rss_after_workers_exit_bytes = rss.at("after_workers_exit").get<double>();
  r.rss_after_idle_bytes = rss.at("after_idle").get<double>();
  r.returned_share = j.at("returned_share").get<double>();
  r.last_query_end_s = j.at("last_query_end_s").get<double>();
  r.idle_begin_s = j.at("idle_begin_s").get<double>();
  r.idle_end_s = j.at("idle_end_s").get<double>();
  r.verified = j.at("verified").get<bool>();
  for (const nlohmann::json& q : j.at("query_times")) {
    r.kinds.push_back(q.at("kind").get<std::string>() == "join" ? QueryKind::kJoin
                                                                : QueryKind::kAggregation);
    r.queries.push_back({q.at("arrival_s").get<double>(), q.at("start_s").get<double>(),
                         q.at("end_s").get<double>()});
  }
  for (const nlohmann::json& s : j.at("rss_samples").at("rows"))
    r.samples.push_back({s.at(0).get<double>(), s.at(1).get<double>()});
  return r;
}

}  // namespace numatwin::validate
