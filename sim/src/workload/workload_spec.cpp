#include "numatwin/sim/workload/workload_spec.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace numatwin::sim {
namespace {

template <typename E, std::size_t N>
E parse_name(const std::string& text, const char* what, const std::pair<const char*, E> (&names)[N]) {
  std::string accepted;
  for (const auto& [name, value] : names) {
    if (text == name) return value;
    accepted += (accepted.empty() ? "" : ", ") + std::string(name);
  }
  throw std::invalid_argument("unknown " + std::string(what) + " \"" + text + "\"; expected one of: " + accepted);
}

template <typename E, std::size_t N>
std::string name_of(E value, const std::pair<const char*, E> (&names)[N]) {
  for (const auto& [name, v] : names) {
    if (v == value) return name;
  }
  return "?";
}

constexpr std::pair<const char*, WorkloadKind> kKinds[] = {
    {"shuffle", WorkloadKind::kShuffle},
    {"migration", WorkloadKind::kMigration},
    {"migration-copy", WorkloadKind::kMigrationAndCopy},
    {"median", WorkloadKind::kMedianAggregation},
    {"count", WorkloadKind::kCountAggregation},
    {"hash-join", WorkloadKind::kHashJoin},
    {"index-join", WorkloadKind::kIndexJoin},
    {"partitioned-aggregation", WorkloadKind::kPartitionedAggregation},
    {"sort-merge-join", WorkloadKind::kSortMergeJoin},
    {"subarray", WorkloadKind::kSubarray}};
constexpr std::pair<const char*, PartitionStrategy> kStrategies[] = {
    {"shuffle", PartitionStrategy::kShuffle},
    {"migration", PartitionStrategy::kMigration},
    {"migration-copy", PartitionStrategy::kMigrationAndCopy}};
constexpr std::pair<const char*, JoinAlgorithm> kJoinAlgorithms[] = {
    {"non-partitioned", JoinAlgorithm::kNonPartitioned}, {"radix", JoinAlgorithm::kRadix}};
constexpr std::pair<const char*, Allocation> kAllocations[] = {
    {"preallocated", Allocation::kPreallocated}, {"per-group", Allocation::kPerGroup}, {"per-bucket", Allocation::kPerBucket}};
constexpr std::pair<const char*, SortMergePhases> kSortMergePhases[] = {{"merge", SortMergePhases::kMerge},
                                                                       {"all", SortMergePhases::kAll}};
constexpr std::pair<const char*, ShuffleAlgorithm> kAlgorithms[] = {
    {"naive", ShuffleAlgorithm::kNaive}, {"ring", ShuffleAlgorithm::kRing}, {"random", ShuffleAlgorithm::kCoordinatedRandom},
    {"scheduled", ShuffleAlgorithm::kScheduled}};
constexpr std::pair<const char*, SyncMode> kSyncs[] = {{"tight", SyncMode::kTight}, {"loose", SyncMode::kLoose}};

// Throws when `value` (what `what` names) is not a number numatwin can count (kMaxCountable).
void check_countable(double value, const std::string& what) {
  if (std::isnan(value) || value <= kMaxCountable) return;  // NaN and negatives: the range checks name them
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  throw std::invalid_argument(what + " is " + text + ", beyond what numatwin can count (at most 2^53 = 9.007e15)");
}

}  // namespace

void check_sizes(const WorkloadSpec& spec) {
  const DataSpec& d = spec.data;
  check_countable(spec.total_bytes, "--bytes");
  check_countable(spec.state_bytes, "--state-bytes");
  if (is_shuffle_family(spec.kind)) return;  // the data below are the operators'
  check_countable(d.records, "--records");
  check_countable(d.build_records, "--build-records");
  check_countable(d.keys.groups, "--groups");
  const double tuple = std::max(1, d.tuple_bytes);
  const double entry = std::max(1, spec.costs.entry_bytes);
  const double element = std::max(1, spec.element_bytes);
  check_countable(d.records * tuple, "--records x --tuple-bytes (the input's bytes)");
  check_countable(d.build_records * tuple, "--build-records x --tuple-bytes (the build side's bytes)");
  check_countable(d.records * element, "--records x --element-bytes (the subarray's bytes)");
  // The hash tables: 2 entries per group or build record (half full). Other datasets are checked
  // where they are placed (MemoryPlacer::place).
  check_countable(2.0 * d.keys.groups * entry, "2 x --groups x --entry-bytes (the hash table's bytes)");
  check_countable(2.0 * d.build_records * entry, "2 x --build-records x --entry-bytes (the hash table's bytes)");
}

void check_allocation(const WorkloadSpec& spec) {
  switch (spec.allocation) {
    case Allocation::kPreallocated:
      return;
    case Allocation::kPerGroup:
      if (spec.kind != WorkloadKind::kMedianAggregation)
        throw std::invalid_argument("--allocation per-group: only the median aggregation keeps values per group (workload " +
                                    workload_kind_name(spec.kind) + ")");
      return;
    case Allocation::kPerBucket:
      if (spec.kind != WorkloadKind::kHashJoin || spec.join_algorithm != JoinAlgorithm::kNonPartitioned)
        throw std::invalid_argument(
            "--allocation per-bucket: only the non-partitioned hash join allocates bucket overflow nodes (workload " +
            workload_kind_name(spec.kind) + ")");
      return;
  }
}

void check_workload(const model::Topology& topology, const WorkloadSpec& spec) {
  check_sizes(spec);
  place_threads(topology, spec.threads, spec.placement);  // throws for bad counts and CPUs
  if (!(spec.placement.os_move_probability >= 0.0 && spec.placement.os_move_probability <= 1.0)) {
    throw std::invalid_argument("--os-move-probability must be in [0, 1]");
  }
  check_allocation(spec);
  if (!is_shuffle_family(spec.kind)) return;  // operators check their data in operator_plan
  if (!(spec.total_bytes > 0.0) || !std::isfinite(spec.total_bytes)) {
    throw std::invalid_argument("--bytes must be > 0");
  }
  if (spec.element_bytes < 1) throw std::invalid_argument("--element-bytes must be >= 1");
  if (!(spec.cycles_per_element >= 0.0)) throw std::invalid_argument("--cycles-per-element must be >= 0");
  if (!(spec.state_bytes >= 0.0)) throw std::invalid_argument("--state-bytes must be >= 0");
  if (!(spec.migration_overhead_seconds >= 0.0)) throw std::invalid_argument("--migration-overhead-s must be >= 0");
  const double pieces = static_cast<double>(spec.threads) * spec.threads;
  if (spec.total_bytes / pieces < spec.element_bytes) {
    throw std::invalid_argument("--bytes " + std::to_string(spec.total_bytes) + " gives pieces smaller than one element for " +
                                std::to_string(spec.threads) + " threads (" + std::to_string(spec.threads) + "^2 pieces)");
  }
  // Each thread's buffer (total / N) lives on its node: it must fit there.
  std::vector<double> on_node(topology.nodes.size(), 0.0);
  for (const PlacedThread& t : place_threads(topology, spec.threads, spec.placement)) {
    on_node[t.node] += spec.total_bytes / spec.threads;
  }
  for (std::size_t n = 0; n < on_node.size(); ++n) {
    if (on_node[n] > static_cast<double>(topology.nodes[n].memory_capacity_bytes)) {
      throw std::invalid_argument("--bytes: the buffers of the threads on node " + topology.nodes[n].id + " need " +
                                  std::to_string(on_node[n]) + " bytes but it has " +
                                  std::to_string(topology.nodes[n].memory_capacity_bytes));
    }
  }
}

WorkloadKind parse_workload_kind(const std::string& text) { return parse_name(text, "workload", kKinds); }
ShuffleAlgorithm parse_algorithm(const std::string& text) { return parse_name(text, "algorithm", kAlgorithms); }
SyncMode parse_sync(const std::string& text) { return parse_name(text, "sync mode", kSyncs); }
std::string workload_kind_name(WorkloadKind kind) { return name_of(kind, kKinds); }
std::string algorithm_name(ShuffleAlgorithm algorithm) { return name_of(algorithm, kAlgorithms); }
std::string sync_name(SyncMode sync) { return name_of(sync, kSyncs); }
PartitionStrategy parse_strategy(const std::string& text) { return parse_name(text, "strategy", kStrategies); }
std::string strategy_name(PartitionStrategy strategy) { return name_of(strategy, kStrategies); }
JoinAlgorithm parse_join_algorithm(const std::string& text) { return parse_name(text, "join algorithm", kJoinAlgorithms); }
std::string join_algorithm_name(JoinAlgorithm algorithm) { return name_of(algorithm, kJoinAlgorithms); }
Allocation parse_allocation(const std::string& text) { return parse_name(text, "--allocation", kAllocations); }
std::string allocation_name(Allocation allocation) { return name_of(allocation, kAllocations); }

SortMergePhases parse_sort_merge_phases(const std::string& text) {
  return parse_name(text, "--sort-merge-phases value", kSortMergePhases);
}
std::string sort_merge_phases_name(SortMergePhases phases) { return name_of(phases, kSortMergePhases); }

std::vector<WorkloadSpec> algorithm_variants(const WorkloadSpec& base) {
  std::vector<WorkloadSpec> out;
  const ShuffleAlgorithm naive_ring[] = {ShuffleAlgorithm::kNaive, ShuffleAlgorithm::kRing};
  if (is_shuffle_family(base.kind)) {
    for (WorkloadKind kind : {WorkloadKind::kShuffle, WorkloadKind::kMigration, WorkloadKind::kMigrationAndCopy}) {
      for (ShuffleAlgorithm algorithm : {ShuffleAlgorithm::kNaive, ShuffleAlgorithm::kRing, ShuffleAlgorithm::kCoordinatedRandom}) {
        if (kind != WorkloadKind::kShuffle && algorithm == ShuffleAlgorithm::kCoordinatedRandom) continue;
        for (SyncMode sync : {SyncMode::kTight, SyncMode::kLoose}) {
          WorkloadSpec s = base;
          s.kind = kind;
          s.algorithm = algorithm;
          s.sync = sync;
          out.push_back(s);
        }
      }
    }
  } else if (base.kind == WorkloadKind::kPartitionedAggregation) {
    for (PartitionStrategy strategy : {PartitionStrategy::kShuffle, PartitionStrategy::kMigration, PartitionStrategy::kMigrationAndCopy}) {
      for (ShuffleAlgorithm algorithm : naive_ring) {
        WorkloadSpec s = base;
        s.strategy = strategy;
        s.algorithm = algorithm;
        out.push_back(s);
      }
    }
  } else if (base.kind == WorkloadKind::kHashJoin) {
    for (JoinAlgorithm algorithm : {JoinAlgorithm::kNonPartitioned, JoinAlgorithm::kRadix}) {
      WorkloadSpec s = base;
      s.join_algorithm = algorithm;
      out.push_back(s);
    }
  } else if (base.kind == WorkloadKind::kSortMergeJoin) {
    for (ShuffleAlgorithm algorithm : naive_ring) {
      WorkloadSpec s = base;
      s.algorithm = algorithm;
      out.push_back(s);
    }
  } else {
    out.push_back(base);
  }
  return out;
}

bool is_shuffle_family(WorkloadKind kind) {
  return kind == WorkloadKind::kShuffle || kind == WorkloadKind::kMigration || kind == WorkloadKind::kMigrationAndCopy;
}

}  // namespace numatwin::sim
