#include "numatwin/validate/alloc/query_arrivals.hpp"

#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "numatwin/validate/kernels/data_generator.hpp"

namespace numatwin::validate {

ArrivalGenerator::ArrivalGenerator(double rate_per_second, std::uint64_t seed)
    : rate_per_second_(rate_per_second), seed_(seed) {
  if (!std::isfinite(rate_per_second) || rate_per_second <= 0.0) {
    std::ostringstream text;
    text << "--arrivals must be a rate above 0 queries per second (got " << rate_per_second << ")";
    throw std::invalid_argument(text.str());
  }
}

double ArrivalGenerator::next_gap_seconds() {
  const double u =
      static_cast<double>(mix64(seed_, index_++, 0x41525256) >> 11) * 0x1.0p-53;  // [0, 1)
  return -std::log1p(-u) / rate_per_second_;
}

std::vector<double> arrival_times_seconds(double rate_per_second, std::size_t count,
                                          std::uint64_t seed) {
  ArrivalGenerator gen(rate_per_second, seed);
  std::vector<double> times(count);
  double t = 0.0;
  for (double& time : times) {
    t += gen.next_gap_seconds();
    time = t;
  }
  return times;
}

std::vector<QueryTiming> run_query_stream(const std::vector<double>& arrivals_s, int max_in_flight,
                                          const std::function<void(std::size_t)>& query,
                                          std::chrono::steady_clock::time_point origin) {
  if (max_in_flight < 1)
    throw std::invalid_argument("at most " + std::to_string(max_in_flight) +
                                " queries in flight: must be >= 1");
  using Clock = std::chrono::steady_clock;
  const auto since_origin = [origin] {
    return std::chrono::duration<double>(Clock::now() - origin).count();
  };
  std::vector<QueryTiming> timings(arrivals_s.size());
  std::mutex mutex;
  std::condition_variable ready;
  std::condition_variable stopped;  // the dispatcher's: a query failed
  std::deque<std::size_t> waiting;
  bool released_all = false;
  bool failed = false;
  std::exception_ptr first_error;
  const auto work = [&] {
    for (;;) {
      std::size_t i = 0;
      {
        std::unique_lock lock(mutex);
        ready.wait(lock, [&] { return !waiting.empty() || released_all || failed; });
        if (failed || waiting.empty()) return;
        i = waiting.front();
        waiting.pop_front();
      }
      timings[i].start_s = since_origin();
      try {
        query(i);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!failed) first_error = std::current_exception();
        failed = true;
        ready.notify_all();
        stopped.notify_all();
        return;
      }
      timings[i].end_s = since_origin();
    }
  };
  const std::size_t pool = std::min(arrivals_s.size(), static_cast<std::size_t>(max_in_flight));
  std::vector<std::jthread> threads;
  threads.reserve(pool);
  for (std::size_t t = 0; t < pool; ++t) threads.emplace_back(work);
  for (std::size_t i = 0; i < arrivals_s.size(); ++i) {
    const auto at = origin + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(arrivals_s[i]));
    std::unique_lock lock(mutex);
    if (stopped.wait_until(lock, at, [&] { return failed; })) break;
    timings[i].arrival_s = arrivals_s[i];
    waiting.push_back(i);
    ready.notify_one();
  }
  {
    const std::lock_guard lock(mutex);
    released_all = true;
    ready.notify_all();
  }
  threads.clear();  // joins
  if (first_error) std::rethrow_exception(first_error);
  return timings;
}

}  // namespace numatwin::validate
