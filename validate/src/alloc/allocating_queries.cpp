#include "numatwin/validate/alloc/allocating_queries.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "numatwin/validate/kernels/allocating_kernels.hpp"
#include "../run/operator_run_common.hpp"

namespace numatwin::validate {
namespace {

std::uint64_t groups_of(const QuerySpec& q) { return std::max<std::uint64_t>(1, q.rows / 100); }
std::uint64_t build_rows_of(const QuerySpec& q) { return std::max<std::uint64_t>(1, q.rows / 10); }

// The aggregation's input, or S: uniform keys over `groups`.
std::vector<Tuple> probe_tuples(std::uint64_t rows, std::uint64_t groups, std::uint64_t seed) {
  sim::KeySpec keys;
  keys.groups = static_cast<double>(groups);
  const KeyGenerator gen(keys, rows, seed);
  std::vector<Tuple> tuples(rows);
  gen.fill_tuples(0, tuples);
  return tuples;
}

// R: distinct keys (a bijection of [0, rows)) and values, as BuildData.
std::vector<Tuple> build_tuples(std::uint64_t rows, std::uint64_t seed) {
  const UniqueKeys keys(rows, seed + 1);
  std::vector<Tuple> tuples(rows);
  for (std::uint64_t r = 0; r < rows; ++r) tuples[r] = {keys.key(r), generated_value(seed + 1, r)};
  return tuples;
}

QueryResult run_aggregation(const QuerySpec& q) {
  const std::uint64_t groups = groups_of(q);
  const std::vector<Tuple> input = probe_tuples(q.rows, groups, q.seed);
  const std::uint64_t capacity = 2 * groups;
  const std::unique_ptr<TableEntry[]> entries(new TableEntry[capacity]);
  const TableView table{entries.get(), capacity};
  table.clear(0, capacity);
  per_group_append(table, input, false);
  QueryResult result;
  for (std::uint64_t s = 0; s < capacity; ++s)
    result.allocations += table.entries[s].key.load(std::memory_order_relaxed) != kEmptyKey;
  per_group_select_and_free(table, 0, capacity);
  result.aggregation = table_digest(table, 0, capacity);
  return result;
}

QueryResult run_join(const QuerySpec& q) {
  const std::uint64_t nr = build_rows_of(q);
  const std::vector<Tuple> r = build_tuples(nr, q.seed);
  const std::vector<Tuple> s = probe_tuples(q.rows, nr, q.seed);
  ChainedTable table;
  table.bucket_count = chained_bucket_count(nr);
  while ((std::uint64_t{1} << table.bits) < table.bucket_count) ++table.bits;
  const std::unique_ptr<ChainBucket[]> buckets(new ChainBucket[table.bucket_count]);
  table.buckets = buckets.get();
  for (std::uint64_t b = 0; b < table.bucket_count; ++b) {
    buckets[b].state.store(0, std::memory_order_relaxed);
    buckets[b].key = 0;
    buckets[b].value = 0;
    buckets[b].next = nullptr;
  }
  QueryResult result;
  result.allocations = chained_build(table, r, false);
  result.join = chained_probe(table, s);
  const std::uint64_t freed = chained_free(table, 0, table.bucket_count);
  if (freed != result.allocations)
    throw std::runtime_error("the chained join allocated " + std::to_string(result.allocations) +
                             " overflow nodes but freed " + std::to_string(freed));
  return result;
}

}  // namespace

const char* query_kind_name(QueryKind kind) {
  return kind == QueryKind::kAggregation ? "aggregation" : "join";
}

QueryResult run_allocating_query(const QuerySpec& spec) {
  if (spec.rows < 1) throw std::invalid_argument("a query needs at least 1 row");
  return spec.kind == QueryKind::kAggregation ? run_aggregation(spec) : run_join(spec);
}

void verify_query_result(const QuerySpec& spec, const QueryResult& got, const std::string& label) {
  if (spec.kind == QueryKind::kAggregation) {
    const std::vector<Tuple> input = probe_tuples(spec.rows, groups_of(spec), spec.seed);
    check_digest(got.aggregation,
                 reference_aggregation(input.data(), spec.rows, groups_of(spec), true),
                 label.c_str());
  } else {
    const std::uint64_t nr = build_rows_of(spec);
    const std::vector<Tuple> r = build_tuples(nr, spec.seed);
    const std::vector<Tuple> s = probe_tuples(spec.rows, nr, spec.seed);
    check_join(got.join, reference_join(r.data(), nr, s.data(), spec.rows, false), label.c_str());
  }
}

}  // namespace numatwin::validate
