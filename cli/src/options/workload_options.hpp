// The command-line form of a WorkloadSpec, shared by predict, compare, sweep and placements.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/cost_basis.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace CLI {
class App;
}

namespace numatwin::cli {

constexpr double kDefaultBytes = 12.8e9;  // Li et al.: 1.6 billion 64-bit integers

// Command-line form of a WorkloadSpec, shared by predict, compare and sweep.
struct WorkloadOptions {
  std::string topology;
  std::string workload = "shuffle";
  // Set by spec() for a migration with --algorithm scheduled: the bound and the times that chose
  // its order (sim/search/migration_schedule.hpp), for the command to report.
  mutable std::optional<sim::MigrationBound> migration_bound;
  std::string algorithm = "ring";
  std::string sync = "tight";
  int threads = 0;  // 0: one per core
  std::string placement = "dense";
  double bytes = kDefaultBytes;
  int element_bytes = 8;
  double cycles_per_element = 1.0;
  double state_bytes = 64.0;
  double migration_overhead_s = 5e-6;
  std::uint64_t seed = 1;
  // Operators and policies.
  std::string memory_policy = "first-touch";
  std::string strategy = "shuffle";
  std::string join_algorithm = "non-partitioned";
  std::string allocation = "preallocated";
  // Whose costs a spec that allocates uses (the topology's /allocator_costs entry, else the
  // defaults); `validate run` sets it from its own --allocator, predict from add_allocator().
  std::string allocator = "glibc";
  std::string sort_merge_phases = "merge";
  // The page setting (model/tlb.hpp): on, off or madvise; predict, compare and sweep take it from
  // add_huge_pages(), `validate run` from its own --huge-pages as the system recorded it.
  std::string huge_pages = "on";
  double records = 1e8;
  double build_records = 1.6e7;
  int tuple_bytes = 16;
  double groups = 1e6;
  int chunks = sim::DataSpec{}.chunks;
  int threads_per_chunk = sim::DataSpec{}.threads_per_chunk;
  double selectivity = sim::DataSpec{}.selectivity;
  std::string keys = "uniform";
  double os_move_probability = 0.1;
  std::vector<std::optional<double>> given_costs;  // per model::operator_cost_table() entry

  void add_common(CLI::App* app);
  void add_algorithm(CLI::App* app);
  void add_allocator(CLI::App* app);  // --allocator, for commands that only predict
  void add_huge_pages(CLI::App* app);  // --huge-pages, for commands that only predict
  [[nodiscard]] sim::WorkloadSpec spec(const model::Topology& t, int thread_count) const;
  // The costs the spec's OperatorCosts come from: the machine's, with the given ones marked.
  [[nodiscard]] sim::CostBasis cost_basis(const model::Topology& t) const;
};

}  // namespace numatwin::cli
