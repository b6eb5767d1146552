// Queries arriving as Durner, Leis and Neumann's benchmark has them ("On the impact of memory
// allocation on high-performance query processing"): exponentially distributed inter-arrival
// times at a rate of lambda queries per second (a Poisson arrival process), at most 10 queries
// in flight; a query that arrives while the limit runs waits, first come first served.
//
//   gap_i      = -ln(1 - u_i) / lambda, u_i = top 53 bits of mix64(seed, i) / 2^53 in [0, 1)
//                (inverse transform; a pure function of (seed, i), so the stream is the same on
//                every machine and library: mean 1 / lambda, standard deviation 1 / lambda)
//   arrival_i  = gap_0 + ... + gap_i seconds after the stream's origin
//
// run_query_stream: the calling thread releases each query at its arrival time into a FIFO
// queue; a pool of max_in_flight threads takes queries from it, so no more than max_in_flight
// run at once and a query's queueing delay is its start minus its arrival. A query's latency is
// its end minus its (scheduled) arrival: a late release counts against the latency too, as an
// open system's clients do not wait for the server.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace numatwin::validate {

inline constexpr int kDefaultMaxQueriesInFlight = 10;

class ArrivalGenerator {
 public:
  // Throws std::invalid_argument for a rate that is not a finite number above 0.
  ArrivalGenerator(double rate_per_second, std::uint64_t seed);
  // The next inter-arrival time, seconds.
  double next_gap_seconds();

 private:
  double rate_per_second_;
  std::uint64_t seed_;
  std::uint64_t index_ = 0;
};

// The first `count` arrival times (seconds after the origin, nondecreasing).
std::vector<double> arrival_times_seconds(double rate_per_second, std::size_t count,
                                          std::uint64_t seed);

struct QueryTiming {  // seconds after the stream's origin
  double arrival_s = 0.0;
  double start_s = 0.0;
  double end_s = 0.0;
};

// Runs query(i) for every i in arrival order, released at origin + arrivals_s[i], at most
// max_in_flight at once (see above). Returns each query's times. When a query throws, no further
// query starts and the first exception is rethrown once the running ones have ended. Throws
// std::invalid_argument for max_in_flight < 1.
std::vector<QueryTiming> run_query_stream(const std::vector<double>& arrivals_s, int max_in_flight,
                                          const std::function<void(std::size_t)>& query,
                                          std::chrono::steady_clock::time_point origin);

}  // namespace numatwin::validate
