#include "numatwin/validate/run/operator_run.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/index_join_kernel.hpp"
#include "numatwin/validate/kernels/operator_data.hpp"
#include "operator_run_common.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "sort_merge_join_run.hpp"

namespace numatwin::validate {
namespace {

using sim::WorkloadKind;

bool is_aggregation(WorkloadKind kind) {
  return kind == WorkloadKind::kCountAggregation || kind == WorkloadKind::kMedianAggregation;
}

}  // namespace

std::uint64_t group_count(const sim::WorkloadSpec& spec) {
  const double g = spec.data.keys.groups;
  if (!std::isfinite(g) || g < 1.0 || g > 1e15)
    throw std::invalid_argument("--groups must be >= 1 (and finite)");
  return static_cast<std::uint64_t>(std::llround(g));
}

namespace {

// Everything that can be wrong with the spec, checked before any allocation.
void check_operator_spec(const sim::WorkloadSpec& spec) {
  switch (spec.kind) {
    case WorkloadKind::kCountAggregation:
    case WorkloadKind::kMedianAggregation:
    case WorkloadKind::kHashJoin:
    case WorkloadKind::kIndexJoin:
    case WorkloadKind::kSortMergeJoin:
      break;
    default:
      throw std::invalid_argument(
          "workload " + sim::workload_kind_name(spec.kind) +
          " has no operator kernel (count, median, hash-join, index-join, sort-merge-join)");
  }
  if (spec.data.tuple_bytes != 16)
    throw std::invalid_argument(
        "--tuple-bytes " + std::to_string(spec.data.tuple_bytes) +
        ": the operator kernels run 16-byte tuples (8-byte key, 8-byte value) only");
  if (spec.threads < 1) throw std::invalid_argument("--threads must be >= 1");
  sim::check_allocation(spec);
  input_rows(spec);
  if (is_aggregation(spec.kind))
    group_count(spec);
  else
    build_rows(spec);
  ProbeData check(spec);  // the key distribution's parameters
  (void)check;
  if (spec.kind == WorkloadKind::kSortMergeJoin) {
    if (spec.algorithm == sim::ShuffleAlgorithm::kScheduled &&
        spec.producer_orders.size() != static_cast<std::size_t>(spec.threads))
      throw std::invalid_argument("--algorithm scheduled needs one producer order per thread (" +
                                  std::to_string(spec.threads) + " threads, " +
                                  std::to_string(spec.producer_orders.size()) + " orders)");
    const double pieces = static_cast<double>(spec.threads) * spec.threads;
    if (spec.data.records < pieces)
      throw std::invalid_argument("--records " + std::to_string(spec.data.records) +
                                  " gives fewer than one record per piece for " +
                                  std::to_string(spec.threads) + " threads");
  }
}

}  // namespace

void add_dataset(std::vector<std::unique_ptr<PlacedDataset>>& sets, const sim::WorkloadSpec& spec,
                 const HostMap& host, const RunOptions& options, const char* name,
                 std::uint64_t elements, std::size_t element_bytes, sim::DatasetKind kind) {
  sets.push_back(std::make_unique<PlacedDataset>(name, static_cast<std::size_t>(elements),
                                                 element_bytes, kind, spec.memory, host,
                                                 options.huge_pages, options.weighted_interleave_by));
}

std::vector<const PlacedDataset*> views(const std::vector<std::unique_ptr<PlacedDataset>>& sets) {
  std::vector<const PlacedDataset*> out;
  for (const auto& s : sets) out.push_back(s.get());
  return out;
}

void fill_probe(ThreadTeam& team, PlacedDataset& data, const ProbeData& gen) {
  Tuple* tuples = data.as<Tuple>();
  data.initialise(team, [&](int, std::size_t b, std::size_t e) {
    gen.fill(b, {tuples + b, e - b});
  });
}

void fill_build(ThreadTeam& team, PlacedDataset& data, const BuildData& gen) {
  Tuple* tuples = data.as<Tuple>();
  data.initialise(team, [&](int, std::size_t b, std::size_t e) {
    gen.fill(b, {tuples + b, e - b});
  });
}

TableView table_view(const PlacedDataset& table) {
  return {table.as<TableEntry>(), static_cast<std::uint64_t>(table.elements())};
}

void clear_table(ThreadTeam& team, TableView table) {
  team.run([&](int w) {
    const auto [b, e] = PlacedDataset::chunk(table.capacity, w, team.size());
    table.clear(b, e);
  });
}

GroupDigest parallel_digest(ThreadTeam& team, TableView table) {
  std::vector<GroupDigest> parts(static_cast<std::size_t>(team.size()));
  team.run([&](int w) {
    const auto [b, e] = PlacedDataset::chunk(table.capacity, w, team.size());
    parts[static_cast<std::size_t>(w)] = table_digest(table, b, e);
  });
  GroupDigest sum;
  for (const GroupDigest& p : parts) {
    sum.groups += p.groups;
    sum.digest += p.digest;
    sum.payload_sum += p.payload_sum;
  }
  return sum;
}

// The result of every repetition must be the same.
void same_result(RealRun& run, std::uint64_t checksum, bool& first) {
  if (first) {
    run.checksum = checksum;
    first = false;
  } else if (checksum != run.checksum) {
    throw std::runtime_error("the operator's result changed between repetitions (checksum " +
                             std::to_string(run.checksum) + " then " + std::to_string(checksum) +
                             ")");
  }
}

namespace {

RealRun run_aggregation(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                        const sim::WorkloadSpec& spec, const RunOptions& options) {
  const bool median = spec.kind == WorkloadKind::kMedianAggregation;
  const std::uint64_t rows = input_rows(spec);
  const std::uint64_t groups = group_count(spec);
  const ProbeData gen(spec);
  std::vector<std::unique_ptr<PlacedDataset>> sets;
  add_dataset(sets, spec, host, options, "input", rows, sizeof(Tuple),
              sim::DatasetKind::kPartitioned);
  add_dataset(sets, spec, host, options, "hash table", 2 * groups, sizeof(TableEntry),
              sim::DatasetKind::kShared);
  if (median) add_dataset(sets, spec, host, options, "values", rows, 8, sim::DatasetKind::kPrivate);
  PlacedDataset& input = *sets[0];
  const TableView table = table_view(*sets[1]);
  fill_probe(team, input, gen);
  sets[1]->initialise(team, [&](int, std::size_t b, std::size_t e) { table.clear(b, e); });
  std::uint64_t* values = median ? sets[2]->as<std::uint64_t>() : nullptr;
  if (median)
    sets[2]->initialise(
        team, [&](int, std::size_t b, std::size_t e) { std::fill(values + b, values + e, 0); });

  const int workers = team.size();
  const bool concurrent = workers > 1;
  const Tuple* tuples = input.as<Tuple>();
  RealRun run;
  bool first = true;
  GroupDigest result;
  std::vector<std::uint64_t> totals(static_cast<std::size_t>(workers), 0);
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    clear_table(team, table);
    std::vector<double> marks(5, 0.0);
    const double t0 = now_seconds();
    team.run([&](int w) {
      const auto [b, e] = PlacedDataset::chunk(rows, w, workers);
      const std::span<const Tuple> chunk(tuples + b, e - b);
      count_aggregate(table, chunk, concurrent);
      if (!median) return;
      const auto [sb, se] = PlacedDataset::chunk(table.capacity, w, workers);
      team.barrier();
      if (w == 0) marks[1] = now_seconds();
      totals[static_cast<std::size_t>(w)] = slice_total(table, sb, se);
      team.barrier();
      std::uint64_t base = 0;
      for (int v = 0; v < w; ++v) base += totals[static_cast<std::size_t>(v)];
      counts_to_offsets(table, sb, se, base);
      team.barrier();
      if (w == 0) marks[2] = now_seconds();
      median_scatter(table, chunk, values, concurrent);
      team.barrier();
      if (w == 0) marks[3] = now_seconds();
      median_select(table, sb, se, base, values);
    });
    const double t1 = now_seconds();
    if (median) {
      phases = {{"count", marks[1] - t0},
                {"offsets", marks[2] - marks[1]},
                {"scatter", marks[3] - marks[2]},
                {"median", t1 - marks[3]}};
    } else {
      phases = {{"aggregate", t1 - t0}};
    }
    result = parallel_digest(team, table);
    same_result(run, result.digest, first);
    return t1 - t0;
  });
  record_observations(plan, team, views(sets), run);
  run.work = static_cast<double>(rows);
  if (options.verify) {
    if (!median && result.payload_sum != rows)
      throw std::runtime_error("COUNT: the counts add up to " + std::to_string(result.payload_sum) +
                               ", not " + std::to_string(rows));
    check_digest(result, reference_aggregation(tuples, rows, groups, median),
                 median ? "MEDIAN" : "COUNT");
    run.verified = true;
    run.verification = std::string("matches the reference (direct-addressed ") +
                       (median ? "values per key, sorted" : "counts per key") +
                       "): " + std::to_string(result.groups) + " groups, digest sum(mix(key) x (" +
                       (median ? "2 x median" : "count") + " + 1))";
  }
  return run;
}

// The non-partitioned join (no radix_bits) or the radix join on 2^radix_bits partitions.
RealRun run_hash_join(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                      const sim::WorkloadSpec& spec, const RunOptions& options,
                      std::optional<int> radix_bits) {
  const bool radix = radix_bits.has_value();
  const std::uint64_t nr = build_rows(spec);
  const std::uint64_t ns = input_rows(spec);
  const BuildData build_gen(spec);
  const ProbeData probe_gen(spec);
  std::vector<std::unique_ptr<PlacedDataset>> sets;
  add_dataset(sets, spec, host, options, "R", nr, sizeof(Tuple), sim::DatasetKind::kPartitioned);
  add_dataset(sets, spec, host, options, "S", ns, sizeof(Tuple), sim::DatasetKind::kPartitioned);
  if (radix) {
    add_dataset(sets, spec, host, options, "R partitions", nr, sizeof(Tuple),
                sim::DatasetKind::kShared);
    add_dataset(sets, spec, host, options, "S partitions", ns, sizeof(Tuple),
                sim::DatasetKind::kShared);
  } else {
    add_dataset(sets, spec, host, options, "hash table", 2 * nr, sizeof(TableEntry),
                sim::DatasetKind::kShared);
  }
  fill_build(team, *sets[0], build_gen);
  fill_probe(team, *sets[1], probe_gen);
  const Tuple* r = sets[0]->as<Tuple>();
  const Tuple* s = sets[1]->as<Tuple>();
  TableView table;
  if (radix) {
    for (std::size_t i = 2; i < 4; ++i) {
      Tuple* out = sets[i]->as<Tuple>();
      sets[i]->initialise(team, [&](int, std::size_t b, std::size_t e) {
        std::fill(out + b, out + e, Tuple{0, 0});
      });
    }
  } else {
    table = table_view(*sets[2]);
    sets[2]->initialise(team, [&](int, std::size_t b, std::size_t e) { table.clear(b, e); });
  }
  const int workers = team.size();
  const bool concurrent = workers > 1;
  RealRun run;
  bool first = true;
  JoinTotals result;
  std::vector<JoinTotals> parts(static_cast<std::size_t>(workers));
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    if (radix) {
      const double t0 = now_seconds();
      result = radix_hash_join(team, {r, nr}, {s, ns}, sets[2]->as<Tuple>(), sets[3]->as<Tuple>(),
                               *radix_bits, &phases);
      const double t1 = now_seconds();
      same_result(run, result.checksum, first);
      return t1 - t0;
    }
    clear_table(team, table);
    double built = 0.0;
    const double t0 = now_seconds();
    team.run([&](int w) {
      const auto [rb, re] = PlacedDataset::chunk(nr, w, workers);
      hash_join_build(table, {r + rb, re - rb}, concurrent);
      team.barrier();
      if (w == 0) built = now_seconds();
      const auto [sb, se] = PlacedDataset::chunk(ns, w, workers);
      parts[static_cast<std::size_t>(w)] = hash_join_probe(table, {s + sb, se - sb});
    });
    const double t1 = now_seconds();
    phases = {{"build", built - t0}, {"probe", t1 - built}};
    result = JoinTotals{};
    for (const JoinTotals& p : parts) result += p;
    same_result(run, result.checksum, first);
    return t1 - t0;
  });
  record_observations(plan, team, views(sets), run);
  run.work = static_cast<double>(nr + ns);
  if (options.verify) {
    check_join(result, reference_join(r, nr, s, ns, false),
               radix ? "the radix hash join" : "the hash join");
    run.verified = true;
    run.verification = "matches the reference (R's value per key, direct-addressed): " +
                       std::to_string(result.matches) + " matches, checksum sum(r.value + s.value)";
    if (radix)
      run.verification += "; radix join on 2^" + std::to_string(*radix_bits) + " partitions";
  }
  return run;
}

RealRun run_index_join(ThreadTeam& team, const TeamPlan& plan, const HostMap& host,
                       const sim::WorkloadSpec& spec, const RunOptions& options) {
  const std::uint64_t nr = build_rows(spec);
  const std::uint64_t ns = input_rows(spec);
  const ProbeData probe_gen(spec);
  const IndexShape shape = index_shape(nr);
  std::vector<std::unique_ptr<PlacedDataset>> sets;
  add_dataset(sets, spec, host, options, "S", ns, sizeof(Tuple), sim::DatasetKind::kPartitioned);
  add_dataset(sets, spec, host, options, "index", shape.nodes, sizeof(IndexNode),
              sim::DatasetKind::kShared);
  fill_probe(team, *sets[0], probe_gen);
  // R exists only to build the index (untimed, ordinary memory).
  std::vector<Tuple> r(nr);
  BuildData(spec).fill(0, r);
  std::vector<std::uint64_t> sorted(nr);
  for (std::uint64_t i = 0; i < nr; ++i) sorted[i] = r[i].key;
  std::sort(sorted.begin(), sorted.end());
  IndexNode* nodes = sets[1]->as<IndexNode>();
  sets[1]->initialise(team, [&](int, std::size_t b, std::size_t e) {
    write_index_nodes(shape, sorted.data(), nodes, b, e);
  });
  const Tuple* s = sets[0]->as<Tuple>();
  const int workers = team.size();
  RealRun run;
  bool first = true;
  JoinTotals result;
  std::vector<JoinTotals> parts(static_cast<std::size_t>(workers));
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    const double t0 = now_seconds();
    team.run([&](int w) {
      const auto [sb, se] = PlacedDataset::chunk(ns, w, workers);
      parts[static_cast<std::size_t>(w)] = index_join_probe(shape, nodes, {s + sb, se - sb});
    });
    const double t1 = now_seconds();
    phases = {{"probe", t1 - t0}};
    result = JoinTotals{};
    for (const JoinTotals& p : parts) result += p;
    same_result(run, result.checksum, first);
    return t1 - t0;
  });
  record_observations(plan, team, views(sets), run);
  run.work = static_cast<double>(ns);
  if (options.verify) {
    check_join(result, reference_join(r.data(), nr, s, ns, true), "the index join");
    run.verified = true;
    run.verification = "matches the reference (R's rank per key, direct-addressed): " +
                       std::to_string(result.matches) + " matches, checksum sum(rank + s.value)";
  }
  return run;
}

}  // namespace

int radix_join_bits(const model::Topology& topology, const sim::WorkloadSpec& spec) {
  const std::vector<sim::PlacedThread> threads =
      sim::place_threads(topology, spec.threads, spec.placement);
  const model::Node& node = topology.nodes.at(static_cast<std::size_t>(threads.front().node));
  return sim::radix_partition_bits(static_cast<double>(build_rows(spec)),
                                   sim::private_cache_bytes(node), spec.costs.entry_bytes);
}

double operator_memory_bytes(const sim::WorkloadSpec& spec) {
  const double n = spec.data.records;
  const double r = spec.data.build_records;
  const double g = spec.data.keys.groups;
  const double tuple = 16.0;
  switch (spec.kind) {
    case WorkloadKind::kCountAggregation:
      // input, table, reference counts
      return n * tuple + 2.0 * g * tuple + g * 8.0;
    case WorkloadKind::kMedianAggregation:
      // per group: input, table, blocks (at most twice the values, plus headers and the
      // allocator's share, taken as 3 x), reference
      if (spec.allocation == sim::Allocation::kPerGroup) return n * tuple + 2.0 * g * tuple + 3.0 * n * 8.0 + 3.0 * g * 8.0 + n * 8.0;
      // input, table, values; reference: counts, starts, cursors, values
      return n * tuple + 2.0 * g * tuple + n * 8.0 + 3.0 * g * 8.0 + n * 8.0;
    case WorkloadKind::kHashJoin:
      // R, S, the partitioned copies (radix; its per-partition tables are cache-sized) or the
      // shared table, the reference
      if (spec.join_algorithm == sim::JoinAlgorithm::kRadix) return 2.0 * (n + r) * tuple + r * 9.0;
      // per bucket: R, S, at most |R| buckets of 32 B, at most |R| nodes of 32 B (and the allocator's share), reference
      if (spec.allocation == sim::Allocation::kPerBucket) return (n + r) * tuple + 32.0 * r + 2.0 * 32.0 * r + r * 9.0;
      return (n + r) * tuple + 2.0 * r * tuple + r * 9.0;
    case WorkloadKind::kIndexJoin:
      // S, index; R and its sorted keys; reference: ranks, presence, sorted keys
      return n * tuple + r * 64.0 / 7.0 + r * (tuple + 8.0) + r * (8.0 + 1.0 + 8.0);
    case WorkloadKind::kSortMergeJoin:
      return sort_merge_join_memory_bytes(spec);
    default:
      return 0.0;
  }
}

RealRun run_operator_workload(const model::Topology& topology, const HostMap& host,
                              const sim::WorkloadSpec& spec, const RunOptions& options) {
  check_operator_spec(spec);
  check_free_memory(operator_memory_bytes(spec), options);
  const TeamPlan plan = plan_team(topology, host, spec);
  ThreadTeam team(plan.os_cpus);
  RealRun run;
  switch (spec.kind) {
    case WorkloadKind::kCountAggregation:
    case WorkloadKind::kMedianAggregation:
      run = spec.allocation == sim::Allocation::kPerGroup ? run_per_group_median(team, plan, host, spec, options)
                                                          : run_aggregation(team, plan, host, spec, options);
      break;
    case WorkloadKind::kHashJoin:
      if (spec.allocation == sim::Allocation::kPerBucket) {
        run = run_chained_hash_join(team, plan, host, spec, options);
        break;
      }
      run = run_hash_join(team, plan, host, spec, options,
                          spec.join_algorithm == sim::JoinAlgorithm::kRadix
                              ? std::optional<int>(radix_join_bits(topology, spec))
                              : std::nullopt);
      break;
    case WorkloadKind::kIndexJoin:
      run = run_index_join(team, plan, host, spec, options);
      break;
    case WorkloadKind::kSortMergeJoin:
      run = run_sort_merge_join(team, plan, host, spec, options);
      break;
    default:
      break;
  }
  run.work_unit = "tuples";
  run.huge_pages = options.huge_pages;
  return run;
}

}  // namespace numatwin::validate
