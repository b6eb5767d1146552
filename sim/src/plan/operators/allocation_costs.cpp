#include "numatwin/sim/plan/allocation_costs.hpp"

#include <algorithm>
#include <cmath>

namespace numatwin::sim {
namespace {

constexpr double kFirstBlockBytes = 32.0;
constexpr double kOverflowNodeBytes = 24.0;

const model::AllocatorCosts* costs_of(const WorkloadSpec& spec) {
  return spec.allocator_costs ? &*spec.allocator_costs : nullptr;
}

// A free by one of T workers of an object any of them allocated, in an order unrelated to the
// allocation (both kernels free in table or bucket order): what taking objects out of order costs
// over the in-order free (scattered_free_ns - free_ns, when measured) comes on top.
double free_ns(const model::AllocatorCostAt& c, int workers) {
  const double remote = static_cast<double>(workers - 1) / workers;
  return (1.0 - remote) * c.free_ns + remote * c.remote_free_ns + std::max(0.0, c.scattered_free_ns - c.free_ns);
}

// Calls visit(k, P(k)) for k = 1, 2, ... under Poisson(lambda), the size of a group under uniform
// keys (N / G values a group on average), until less than 1e-12 of the mass remains (P(k) in logs,
// where e^-lambda underflows).
template <typename Visit>
void for_each_group_size(double lambda, Visit&& visit) {
  const double top = lambda + 12.0 * std::sqrt(lambda) + 30.0;
  double remaining = 1.0 - std::exp(-lambda);
  for (double k = 1.0; k <= top && remaining > 1e-12; k += 1.0) {
    const double p = std::exp(k * std::log(lambda) - lambda - std::lgamma(k + 1.0));
    remaining -= p;
    visit(k, p);
  }
}

// The allocator's time for one group of k values: its malloc, reallocs and free.
struct GroupCost {
  double allocate_ns = 0.0;
  double free_ns = 0.0;
  double calls = 0.0;
  double bytes = 0.0;  // the last block's
};

GroupCost group_cost(const model::AllocatorCosts* costs, int workers, double k) {
  GroupCost g;
  g.allocate_ns = model::allocator_cost_at(costs, workers, kFirstBlockBytes).malloc_ns;
  g.calls = 1.0;
  const int r = group_reallocs(k);
  for (int j = 1; j <= r; ++j) {
    // The table is shared by the workers: a block is grown by whichever appends when it is full.
    g.allocate_ns += model::allocator_cost_at(costs, workers, kFirstBlockBytes * std::ldexp(1.0, j)).shared_realloc_ns;
    g.calls += 1.0;
  }
  g.bytes = kFirstBlockBytes * std::ldexp(1.0, r);
  g.free_ns = free_ns(model::allocator_cost_at(costs, workers, kFirstBlockBytes * std::ldexp(1.0, r)), workers);
  return g;
}

}  // namespace

int group_reallocs(double values) {
  const double k = std::max(1.0, values);
  return std::max(0, static_cast<int>(std::ceil(std::log2((k + 1.0) / 4.0) - 1e-12)));
}

AllocationSeconds per_group_allocation(const WorkloadSpec& spec, int workers) {
  const model::AllocatorCosts* costs = costs_of(spec);
  const double n = spec.data.records;
  const double groups = spec.data.keys.groups;
  const double lambda = n / groups;
  AllocationSeconds out;
  out.rests_on_defaults = costs == nullptr || costs->points.empty();
  if (spec.data.keys.distribution == KeyDistribution::kUniform) {
    for_each_group_size(lambda, [&](double k, double p) {
      const GroupCost g = group_cost(costs, workers, k);
      out.allocate_s += groups * p * g.allocate_ns * 1e-9;
      out.free_s += groups * p * g.free_ns * 1e-9;
      out.allocations += groups * p * g.calls;
      out.frees += groups * p;
      out.bytes_held += groups * p * g.bytes;
    });
  } else {
    const double k = std::max(1.0, std::round(lambda));
    const GroupCost g = group_cost(costs, workers, k);
    out.allocate_s = groups * g.allocate_ns * 1e-9;
    out.free_s = groups * g.free_ns * 1e-9;
    out.allocations = groups * g.calls;
    out.frees = groups;
    out.bytes_held = groups * g.bytes;
  }
  return out;
}

double chained_bucket_count(double build_records) {
  double b = 1.0;
  while (2.0 * b < build_records) b *= 2.0;
  return b;
}

double expected_overflow_nodes(double build_records) {
  const double b = chained_bucket_count(build_records);
  const double lambda = build_records / b;
  return b * (lambda - 1.0 + std::exp(-lambda));
}

double dependent_node_visits(double build_records) {
  const double lambda = build_records / chained_bucket_count(build_records);
  return ((lambda * lambda - 2.0 * lambda + 2.0) / 2.0 - std::exp(-lambda)) / lambda;
}

double probes_with_deeper_nodes(double build_records) {
  const double lambda = build_records / chained_bucket_count(build_records);
  const double e = std::exp(-lambda);
  return std::max(0.0, lambda - 2.0 + 2.0 * e + lambda * e) / lambda;
}

std::optional<GridMiss> grid_miss(const std::optional<model::DependentMissGrid>& grid, double items_per_miss, double work_units) {
  if (!grid || grid->points.empty()) return std::nullopt;
  const double k = std::max(1.0, items_per_miss);
  const double w = std::max(0.0, work_units);
  return GridMiss{model::dependent_miss_ns(*grid, k, w), model::dependent_second_miss_ns(*grid, k, w)};
}

std::optional<SplitNodes> split_node_cost(const WorkloadSpec& spec, const std::optional<model::DependentMissGrid>& grid,
                                          double build_records, double work_units) {
  if (!grid || grid->points.empty() || !spec.allocator_costs) return std::nullopt;
  const model::LineSplitPoint* split = model::line_split_at(&*spec.allocator_costs, static_cast<std::int64_t>(kOverflowNodeBytes));
  if (split == nullptr) return std::nullopt;
  const double w = std::max(0.0, work_units);
  const double q = probes_with_deeper_nodes(build_records);
  const double k = std::max(1.0, 1.0 / std::max(1e-9, q));
  const std::optional<double> split_miss = model::dependent_split_miss_ns(*grid, k, w);
  if (!split_miss || !model::dependent_split_head_ns(*grid, k, w)) return std::nullopt;  // the grid has not measured them
  SplitNodes out{split->low_share, split->high_share, 0.5 * (split->low_share + split->high_share), 0.0};
  if (out.share <= 0.0) return out;
  const double first_visits = expected_overflow_nodes(build_records) / std::max(1.0, build_records);
  const double split_head = *model::dependent_split_head_ns(*grid, std::max(1.0, 1.0 / (out.share * first_visits)), w);
  const std::optional<double> second = model::dependent_second_miss_ns(*grid, k, w);
  const double behind = second ? std::max(0.0, *second - model::dependent_miss_ns(*grid, k, w)) : 0.0;
  out.ns_per_probe = out.share * (first_visits * split_head + dependent_node_visits(build_records) * *split_miss + q * behind);
  return out;
}

double share_beyond_header_line(const WorkloadSpec& spec) {
  constexpr double kInHeaderLine = 7.0;
  const double lambda = spec.data.records / spec.data.keys.groups;
  if (spec.data.keys.distribution != KeyDistribution::kUniform) {
    const double k = std::max(1.0, std::round(lambda));
    return std::max(0.0, k - kInHeaderLine) / k;
  }
  // E[max(0, X - 7)] = lambda - sum_{k < 7} k P(k) - 7 P(X >= 7)
  double below = 0.0;
  double tail = 1.0;
  double p = std::exp(-lambda);
  for (int k = 0; k < 7; ++k) {
    below += k * p;
    tail -= p;
    p *= lambda / (k + 1);
  }
  return std::max(0.0, lambda - below - kInHeaderLine * tail) / lambda;
}

DependentCost tail_write_cost(const WorkloadSpec& spec, int workers) {
  const model::AllocatorCosts* costs = costs_of(spec);
  const double k = std::max(1.0, std::round(spec.data.records / spec.data.keys.groups));
  DependentCost out;
  if (k <= 7.0) {
    out.measured = model::allocator_cost_at(costs, workers, kFirstBlockBytes).has_dependent;
    return out;
  }
  double sum = 0.0;
  for (double i = 7.0; i < k; i += 1.0) {
    const model::AllocatorCostAt c = model::allocator_cost_at(costs, workers, kFirstBlockBytes * std::ldexp(1.0, group_reallocs(i + 1.0)));
    out.measured = c.has_dependent;
    // With more than one worker the kernel locks the group's slot per append: the next lock waits
    // for this write's miss (locked_write_ns, 0 when not measured).
    sum += c.dependent_write_ns + (workers > 1 ? c.locked_write_ns : 0.0);
  }
  out.ns = sum / (k - 7.0);
  return out;
}

DependentCost node_read_cost(const WorkloadSpec& spec, int workers) {
  const model::AllocatorCostAt c = model::allocator_cost_at(costs_of(spec), workers, kOverflowNodeBytes);
  return DependentCost{c.has_dependent, c.dependent_read_ns};
}

DependentCost block_read_cost(const WorkloadSpec& spec, int workers) {
  const model::AllocatorCosts* costs = costs_of(spec);
  const auto at = [&](double k) {
    return model::allocator_cost_at(costs, workers, kFirstBlockBytes * std::ldexp(1.0, group_reallocs(k)));
  };
  const double lambda = spec.data.records / spec.data.keys.groups;
  DependentCost out;
  out.measured = at(std::max(1.0, std::round(lambda))).has_block_read;
  if (!out.measured) return out;
  if (spec.data.keys.distribution != KeyDistribution::kUniform) {
    out.ns = at(std::max(1.0, std::round(lambda))).block_read_ns;
    return out;
  }
  // The mean over the groups that hold a value: Poisson(lambda) given k >= 1, as per_group_allocation.
  const double nonempty = 1.0 - std::exp(-lambda);
  for_each_group_size(lambda, [&](double k, double p) { out.ns += p / nonempty * at(k).block_read_ns; });
  return out;
}

AllocationSeconds per_bucket_allocation(const WorkloadSpec& spec, int workers) {
  const model::AllocatorCosts* costs = costs_of(spec);
  const double nodes = expected_overflow_nodes(spec.data.build_records);
  const model::AllocatorCostAt c = model::allocator_cost_at(costs, workers, kOverflowNodeBytes);
  AllocationSeconds out;
  out.rests_on_defaults = costs == nullptr || costs->points.empty();
  // The nodes are freed at the end of the join (the previous query's, for the next): a build
  // takes them back from what the allocator kept of those frees (reuse_malloc_ns where measured).
  out.allocate_s = nodes * c.reuse_malloc_ns * 1e-9;
  out.free_s = nodes * free_ns(c, workers) * 1e-9;
  out.allocations = nodes;
  out.frees = nodes;
  out.bytes_held = nodes * 32.0;  // the 32-byte class
  return out;
}

}  // namespace numatwin::sim
