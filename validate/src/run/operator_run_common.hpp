// Helpers the operator runs share (operator_run.cpp, allocating_operator_run.cpp): datasets,
// generation, table clearing and digests, and the single-threaded references the results are
// verified against. Private to validate/src.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "numatwin/sim/workload/workload_spec.hpp"
#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/discover/host_map.hpp"
#include "numatwin/validate/kernels/operator_data.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/host/thread_team.hpp"

namespace numatwin::validate {

std::uint64_t group_count(const sim::WorkloadSpec& spec);
void add_dataset(std::vector<std::unique_ptr<PlacedDataset>>& sets, const sim::WorkloadSpec& spec, const HostMap& host,
                 const RunOptions& options, const char* name, std::uint64_t elements, std::size_t element_bytes,
                 sim::DatasetKind kind);
std::vector<const PlacedDataset*> views(const std::vector<std::unique_ptr<PlacedDataset>>& sets);
void fill_probe(ThreadTeam& team, PlacedDataset& data, const ProbeData& gen);
void fill_build(ThreadTeam& team, PlacedDataset& data, const BuildData& gen);
TableView table_view(const PlacedDataset& table);
void clear_table(ThreadTeam& team, TableView table);
GroupDigest parallel_digest(ThreadTeam& team, TableView table);
// The result of every repetition must be the same (throws std::runtime_error).
void same_result(RealRun& run, std::uint64_t checksum, bool& first);
GroupDigest reference_aggregation(const Tuple* input, std::uint64_t rows, std::uint64_t groups, bool median);
void check_digest(const GroupDigest& got, const GroupDigest& want, const char* what);
JoinTotals reference_join(const Tuple* r, std::uint64_t nr, const Tuple* s, std::uint64_t ns, bool rank);
void check_join(const JoinTotals& got, const JoinTotals& want, const char* what);

// The allocating variants (allocating_operator_run.cpp): MEDIAN per group, the chained join.
RealRun run_per_group_median(ThreadTeam& team, const TeamPlan& plan, const HostMap& host, const sim::WorkloadSpec& spec,
                             const RunOptions& options);
RealRun run_chained_hash_join(ThreadTeam& team, const TeamPlan& plan, const HostMap& host, const sim::WorkloadSpec& spec,
                              const RunOptions& options);

}  // namespace numatwin::validate
