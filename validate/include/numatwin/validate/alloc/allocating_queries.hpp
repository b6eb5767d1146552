// The queries of the arrival benchmark (query_arrivals.hpp): one worker thread runs a whole query
// on data of its own, every byte of it from the process's allocator (malloc / operator new), as a
// query engine's operators allocate their state and intermediates:
//   aggregation  MEDIAN per group (allocating_kernels.hpp): N generated tuples (uniform keys over
//                G = max(1, N / 100) groups, as Memarzia et al.'s 100 values per group), a table
//                of 2 G entries, each group's values in a block of its own grown by realloc;
//   join         the chained hash join: |S| = N tuples probe |R| = max(1, N / 10) distinct keys,
//                an overflow node malloc'd per tuple beyond a bucket's first.
// Everything is freed before the query returns. The result (digest / matches and checksum) is
// checked afterwards against the single-threaded references the kernels use, on the same data
// regenerated from the query's seed.
#pragma once

#include <cstdint>
#include <string>

#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"

namespace numatwin::validate {

enum class QueryKind { kAggregation, kJoin };

const char* query_kind_name(QueryKind kind);  // "aggregation", "join"

struct QuerySpec {
  QueryKind kind = QueryKind::kAggregation;
  std::uint64_t rows = 200000;  // N (>= 1)
  std::uint64_t seed = 1;
};

struct QueryResult {
  GroupDigest aggregation;        // kAggregation
  JoinTotals join;                // kJoin
  std::uint64_t allocations = 0;  // groups' first blocks, or overflow nodes
};

// Runs the query; throws std::bad_alloc when the allocator fails and std::runtime_error when the
// join freed a different number of nodes than it allocated.
QueryResult run_allocating_query(const QuerySpec& spec);

// Throws std::runtime_error naming the query (`label`) when `got` differs from the reference.
void verify_query_result(const QuerySpec& spec, const QueryResult& got, const std::string& label);

}  // namespace numatwin::validate
