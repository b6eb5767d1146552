// The database operator kernels on generated data (operator_data.hpp): COUNT and MEDIAN over 1e7
// tuples with 1e6 uniform groups, the hash join (shared table, and radix-partitioned) of
// 1e6 x 1e7 tuples, the index join probing 1e7 tuples into an index over 1e6 keys, at 1 and 2
// worker threads; the sort-merge join's merge phase and the whole join (1e7 facts, 1e6 dimension tuples, naive and
// ring order, tight) through run_operator_workload (each iteration is one run: its median
// repetition's seconds; no CPU counter) (pinned to the first allowed CPUs, unpinned when there are
// fewer). Manual time: only the kernel; clearing the table between iterations is not timed. Counter
// items_per_second = input tuples per second (R + S for the hash joins).
//
// Counter cpu_ns_per_tuple: CPU time of the whole process (all workers) per input tuple over the
// timed parts, which stays meaningful when other processes share the CPUs (wall time does not).
//
// Run: build/release/bench/operator_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "numatwin/validate/kernels/aggregation_kernels.hpp"
#include "numatwin/validate/kernels/hash_join_kernels.hpp"
#include "numatwin/validate/kernels/index_join_kernel.hpp"
#include "numatwin/validate/kernels/operator_data.hpp"
#include "numatwin/validate/run/operator_run.hpp"
#include "numatwin/validate/run/placed_dataset.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "this_machine.hpp"

namespace {

namespace nv = numatwin::validate;
namespace sim = numatwin::sim;

constexpr double kRecords = 1e7;
constexpr double kGroups = 1e6;
constexpr double kBuild = 1e6;

double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Wall and process CPU time of the timed part of one iteration.
class Timer {
 public:
  Timer() : wall_(nv::now_seconds()), cpu_(process_cpu_seconds()) {}
  void stop(benchmark::State& state, double& cpu_total) const {
    state.SetIterationTime(nv::now_seconds() - wall_);
    cpu_total += process_cpu_seconds() - cpu_;
  }

 private:
  double wall_;
  double cpu_;
};

void report(benchmark::State& state, double cpu_total, std::size_t tuples) {
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tuples));
  state.counters["cpu_ns_per_tuple"] =
      1e9 * cpu_total / (static_cast<double>(state.iterations()) * static_cast<double>(tuples));
}

std::vector<int> team_cpus(int threads) {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> allowed;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) allowed.push_back(c);
  if (static_cast<int>(allowed.size()) < threads)
    return std::vector<int>(static_cast<std::size_t>(threads), nv::kUnpinned);
  allowed.resize(static_cast<std::size_t>(threads));
  return allowed;
}

sim::WorkloadSpec spec_for(sim::WorkloadKind kind) {
  sim::WorkloadSpec spec;
  spec.kind = kind;
  spec.data.records = kRecords;
  spec.data.build_records = kBuild;
  spec.data.keys.groups = kGroups;
  spec.seed = 42;
  return spec;
}

std::vector<nv::Tuple> tuples(const sim::WorkloadSpec& spec, bool build) {
  std::vector<nv::Tuple> t(build ? nv::build_rows(spec) : nv::input_rows(spec));
  if (build)
    nv::BuildData(spec).fill(0, t);
  else
    nv::ProbeData(spec).fill(0, t);
  return t;
}

struct Table {
  explicit Table(std::uint64_t capacity)
      : entries(std::make_unique<nv::TableEntry[]>(capacity)), view{entries.get(), capacity} {}
  std::unique_ptr<nv::TableEntry[]> entries;
  nv::TableView view;
};

void clear(nv::ThreadTeam& team, nv::TableView table) {
  team.run([&](int w) {
    const auto [b, e] = nv::PlacedDataset::chunk(table.capacity, w, team.size());
    table.clear(b, e);
  });
}

void Aggregation(benchmark::State& state, bool median) {
  const int threads = static_cast<int>(state.range(0));
  static const std::vector<nv::Tuple> input =
      tuples(spec_for(sim::WorkloadKind::kCountAggregation), false);
  nv::ThreadTeam team(team_cpus(threads));
  Table table(static_cast<std::uint64_t>(2 * kGroups));
  std::vector<std::uint64_t> values(median ? input.size() : 0);
  std::vector<std::uint64_t> totals(static_cast<std::size_t>(threads));
  const bool concurrent = threads > 1;
  double cpu = 0.0;
  for (auto _ : state) {
    clear(team, table.view);
    const Timer timer;
    team.run([&](int w) {
      const auto [b, e] = nv::PlacedDataset::chunk(input.size(), w, threads);
      const std::span<const nv::Tuple> chunk(input.data() + b, e - b);
      nv::count_aggregate(table.view, chunk, concurrent);
      if (!median) return;
      const auto [sb, se] = nv::PlacedDataset::chunk(table.view.capacity, w, threads);
      team.barrier();
      totals[static_cast<std::size_t>(w)] = nv::slice_total(table.view, sb, se);
      team.barrier();
      std::uint64_t base = 0;
      for (int v = 0; v < w; ++v) base += totals[static_cast<std::size_t>(v)];
      nv::counts_to_offsets(table.view, sb, se, base);
      team.barrier();
      nv::median_scatter(table.view, chunk, values.data(), concurrent);
      team.barrier();
      nv::median_select(table.view, sb, se, base, values.data());
    });
    timer.stop(state, cpu);
  }
  report(state, cpu, input.size());
}

void BM_Count(benchmark::State& state) { Aggregation(state, false); }
void BM_Median(benchmark::State& state) { Aggregation(state, true); }

const std::vector<nv::Tuple>& build_side() {
  static const std::vector<nv::Tuple> r = tuples(spec_for(sim::WorkloadKind::kHashJoin), true);
  return r;
}
const std::vector<nv::Tuple>& probe_side() {
  static const std::vector<nv::Tuple> s = tuples(spec_for(sim::WorkloadKind::kHashJoin), false);
  return s;
}

void BM_HashJoin(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto& r = build_side();
  const auto& s = probe_side();
  nv::ThreadTeam team(team_cpus(threads));
  Table table(2 * r.size());
  std::vector<nv::JoinTotals> parts(static_cast<std::size_t>(threads));
  double cpu = 0.0;
  for (auto _ : state) {
    clear(team, table.view);
    const Timer timer;
    team.run([&](int w) {
      const auto [rb, re] = nv::PlacedDataset::chunk(r.size(), w, threads);
      nv::hash_join_build(table.view, {r.data() + rb, re - rb}, threads > 1);
      team.barrier();
      const auto [sb, se] = nv::PlacedDataset::chunk(s.size(), w, threads);
      parts[static_cast<std::size_t>(w)] =
          nv::hash_join_probe(table.view, {s.data() + sb, se - sb});
    });
    timer.stop(state, cpu);
    benchmark::DoNotOptimize(parts);
  }
  report(state, cpu, r.size() + s.size());
}

void BM_RadixHashJoin(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto& r = build_side();
  const auto& s = probe_side();
  nv::ThreadTeam team(team_cpus(threads));
  std::vector<nv::Tuple> r_out(r.size());
  std::vector<nv::Tuple> s_out(s.size());
  // The partition count of the spec-selected radix join on this machine.
  static const numatwin::bench::ThisMachine machine = numatwin::bench::this_machine();
  sim::WorkloadSpec spec = spec_for(sim::WorkloadKind::kHashJoin);
  spec.join_algorithm = sim::JoinAlgorithm::kRadix;
  spec.threads = threads;
  if (threads > machine.topology.total_cores()) spec.placement.kind = sim::PlacementKind::kNone;
  const int bits = nv::radix_join_bits(machine.topology, spec);
  double cpu = 0.0;
  for (auto _ : state) {
    const Timer timer;
    benchmark::DoNotOptimize(
        nv::radix_hash_join(team, r, s, r_out.data(), s_out.data(), bits, nullptr));
    timer.stop(state, cpu);
  }
  report(state, cpu, r.size() + s.size());
}

void BM_IndexJoin(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const auto& r = build_side();
  const auto& s = probe_side();
  std::vector<std::uint64_t> sorted;
  for (const nv::Tuple& t : r) sorted.push_back(t.key);
  std::sort(sorted.begin(), sorted.end());
  const nv::IndexShape shape = nv::index_shape(sorted.size());
  std::vector<nv::IndexNode> nodes(shape.nodes);
  nv::write_index_nodes(shape, sorted.data(), nodes.data(), 0, shape.nodes);
  nv::ThreadTeam team(team_cpus(threads));
  std::vector<nv::JoinTotals> parts(static_cast<std::size_t>(threads));
  double cpu = 0.0;
  for (auto _ : state) {
    const Timer timer;
    team.run([&](int w) {
      const auto [sb, se] = nv::PlacedDataset::chunk(s.size(), w, threads);
      parts[static_cast<std::size_t>(w)] =
          nv::index_join_probe(shape, nodes.data(), {s.data() + sb, se - sb});
    });
    timer.stop(state, cpu);
    benchmark::DoNotOptimize(parts);
  }
  report(state, cpu, s.size());
}

// The sort-merge join at range(0) threads, naive (range(1) == 0) or ring: the merge phase alone
// or the whole join (all four P-MPSM phases).
void sort_merge_join(benchmark::State& state, sim::SortMergePhases phases) {
  static const numatwin::bench::ThisMachine machine = numatwin::bench::this_machine();
  sim::WorkloadSpec spec = spec_for(sim::WorkloadKind::kSortMergeJoin);
  spec.sort_merge_phases = phases;
  spec.threads = static_cast<int>(state.range(0));
  spec.algorithm =
      state.range(1) == 0 ? sim::ShuffleAlgorithm::kNaive : sim::ShuffleAlgorithm::kRing;
  if (spec.threads > machine.topology.total_cores())
    spec.placement.kind = sim::PlacementKind::kNone;
  nv::RunOptions options;
  options.verify = false;
  for (auto _ : state)
    state.SetIterationTime(
        nv::run_operator_workload(machine.topology, machine.host, spec, options).seconds);
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(kRecords + kBuild));
  state.SetLabel(state.range(1) == 0 ? "naive" : "ring");
}

void BM_SortMergeJoin(benchmark::State& state) { sort_merge_join(state, sim::SortMergePhases::kMerge); }
void BM_SortMergeJoinAllPhases(benchmark::State& state) { sort_merge_join(state, sim::SortMergePhases::kAll); }

BENCHMARK(BM_Count)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Median)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HashJoin)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RadixHashJoin)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IndexJoin)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SortMergeJoin)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->Iterations(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SortMergeJoinAllPhases)
    ->ArgsProduct({{1, 2}, {0, 1}})
    ->Iterations(2)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
