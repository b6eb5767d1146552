#include "numatwin/model/operator_costs.hpp"

#include <array>
#include <limits>
#include <stdexcept>
#include <string>

namespace numatwin::model {
namespace {

constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Defaults are the values the model used before costs belonged to machines (calibrated nowhere);
// their ranges are assumptions: wide enough to hold what server cores of 2008-2024 plausibly
// show, judged from instruction counts of the loops, vendor latency figures (an L2 hit of 12-16
// cycles, an LLC hit of 40-70 cycles, LOCK-prefixed updates of 18-20 cycles per Agner Fog's
// instruction tables) and the values `validate suite` fitted on two hosts (docs/validation.md).
constexpr std::array kTable = {
    OperatorCostInfo{"scan_cycles_per_tuple", "cycles", "core work per tuple of a streaming scan",
                     2.0, 1.0, 8.0, 0.0, kUnbounded},
    OperatorCostInfo{"hash_cycles_per_tuple", "cycles",
                     "COUNT / MEDIAN: hash, compare, update a shared entry", 20.0, 2.0, 40.0, 0.0,
                     kUnbounded},
    OperatorCostInfo{"join_cycles_per_tuple", "cycles",
                     "hash join build / probe", 20.0, 3.0, 40.0, 0.0,
                     kUnbounded},
    OperatorCostInfo{"group_cycles_per_tuple", "cycles",
                     "partitioned aggregation: update a private entry", 20.0, 3.0, 40.0, 0.0,
                     kUnbounded},
    OperatorCostInfo{"random_lines_in_flight", "lines",
                     "independent misses a hash or probe loop keeps in flight", 4.0, 2.0, 16.0, 1.0,
                     kUnbounded},
    OperatorCostInfo{"llc_hit_ns", "ns", "a random access that hits the last-level cache", 20.0,
                     8.0, 50.0, 0.0, kUnbounded},
    OperatorCostInfo{"private_hit_ns", "ns",
                     "a random access that hits the core's own cache (L2 or L1)", 5.0, 0.5, 8.0,
                     0.0, kUnbounded},
    OperatorCostInfo{"merge_cycles_per_tuple", "cycles", "sort-merge join: merge one fact tuple",
                     10.0, 2.0, 30.0, 0.0, kUnbounded},
    OperatorCostInfo{"partition_cycles_per_tuple", "cycles",
                     "radix join scatter: hash, cursor, line buffer; sort-merge join's range scatter", 6.0, 2.0, 20.0, 0.0,
                     kUnbounded},
    OperatorCostInfo{"partition_join_cycles_per_tuple", "cycles",
                     "radix join: build / probe a partition's cached table", 10.0, 1.0, 30.0, 0.0,
                     kUnbounded},
    // The default: what llvm-mca-14 reads off the index join's inner-level loop on the shipped
    // cores (5.2 on Zen 3 to 8.6 on Nehalem, topologies/cores/loop-cycles-llvm-mca-14.json), rounded
    // up; the range covers that spread and the analyser's band (x0.55..x2.1).
    OperatorCostInfo{"index_cycles_per_level", "cycles",
                     "index join: descend one level of the B+-tree (a branch-free search of a 64-byte node, the child's prefetch)",
                     8.0, 3.0, 20.0, 0.0, kUnbounded},
    OperatorCostInfo{"sort_cycles_per_comparison", "cycles",
                     "sort-merge join: one comparison of a run's sort", 4.0, 2.0, 12.0, 0.0,
                     kUnbounded},
    // The default: the old model's 4 cycles a comparison at log2 16 comparisons a value (a group
    // of 16 values); the range from 2 comparisons of 2 cycles to 8 of 8.
    OperatorCostInfo{"select_cycles_per_value", "cycles",
                     "MEDIAN: select a group's median, per value (insertion sort or nth_element: linear)", 16.0, 4.0, 64.0,
                     0.0, kUnbounded},
    OperatorCostInfo{"shared_line_transfer_ns", "ns",
                     "a line moving from another core's private cache (HitM)", 60.0, 20.0, 200.0,
                     0.0, kUnbounded},
    OperatorCostInfo{
        "llc_usable_share", "share",
        "share of the last-level cache that a random-access table keeps (the rest: other data, "
        "replacement, other tenants of a shared cache)",
        1.0, 0.5, 1.0, 0.01, 1.0},
    OperatorCostInfo{"atomic_update_ns", "ns",
                     "a locked read-modify-write on a line the core holds", 7.0, 3.0, 15.0, 0.0,
                     kUnbounded},
    OperatorCostInfo{"filter_cycles_per_cell", "cycles",
                     "subarray: test one cell against the range and keep it when inside (the scan's default)", 2.0, 1.0, 8.0,
                     0.0, kUnbounded},
    // The default range: from a quarter of the miss buffers (a loop whose loads wait behind its
    // own work) to all of them (the bandwidth microbenchmark's plain reads). This project's build
    // VM measured 0.19 for COUNT's loop and 0.13 for the filter (of 99 buffers, a calibrated M).
    OperatorCostInfo{"table_stream_share", "share",
                     "share of the core's miss buffers a table loop's input stream keeps in flight",
                     1.0, 0.25, 1.0, 0.001, 1.0},
    OperatorCostInfo{"filter_stream_share", "share",
                     "share of the core's miss buffers the array filter's (subarray) input stream keeps in flight",
                     1.0, 0.25, 1.0, 0.001, 1.0},
};

}  // namespace

const char* cost_origin_name(CostOrigin origin) {
  switch (origin) {
    case CostOrigin::kMeasured:
      return "measured";
    case CostOrigin::kCalibrated:
      return "calibrated";
    case CostOrigin::kTransferred:
      return "transferred";
    case CostOrigin::kDerived:
      return "derived";
    case CostOrigin::kDefault:
      return "default";
  }
  return "default";
}

std::optional<CostOrigin> parse_cost_origin(std::string_view text) {
  for (CostOrigin o : {CostOrigin::kMeasured, CostOrigin::kCalibrated, CostOrigin::kTransferred, CostOrigin::kDerived,
                       CostOrigin::kDefault}) {
    if (text == cost_origin_name(o)) return o;
  }
  return std::nullopt;
}

std::span<const OperatorCostInfo> operator_cost_table() { return kTable; }

const OperatorCostInfo* find_operator_cost(std::string_view name) {
  for (const OperatorCostInfo& info : kTable) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

CostValue cost_or_default(const std::vector<NamedCost>& costs, std::string_view name) {
  for (const NamedCost& c : costs) {
    if (c.name == name) return c.cost;
  }
  const OperatorCostInfo* info = find_operator_cost(name);
  if (info == nullptr) throw std::invalid_argument("unknown operator cost " + std::string(name));
  return CostValue{info->default_value, info->default_low, info->default_high, CostOrigin::kDefault,
                   "default: calibrated nowhere (range assumed, model/operator_costs.cpp)"};
}

}  // namespace numatwin::model
