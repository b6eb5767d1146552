// Speed of the real kernels of validate/ on this machine: the shuffle family (shuffle naive and
// ring, migration ring; tight and loose) at 1 and 2 threads (dense placement, first-touch
// buffers, the streaming consumer of shuffle_kernels.hpp), and partitioned aggregation per
// strategy. Each benchmark runs the workload once through run_shuffle_workload with
// `repetitions` timed repetitions after a warm-up and reports the median as the iteration time
// (manual time), so bytes_per_second (items_per_second for aggregation) is the kernel's rate.
//
// Sizes: NUMATWIN_SHUFFLE_BYTES (default 2 GiB, well above the last-level cache) and
// NUMATWIN_AGGREGATION_RECORDS (default 2^25); NUMATWIN_KERNEL_REPETITIONS (default 5);
// NUMATWIN_HUGE_PAGES=1 asks for transparent huge pages on every dataset (default: off).
// Run: build/release/bench/kernel_bench --benchmark_filter='shuffle/ring/tight'
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "numatwin/validate/discover/machine_discovery.hpp"
#include "numatwin/validate/host/memory_placement.hpp"
#include "numatwin/validate/run/shuffle_run.hpp"
#include "numatwin/validate/discover/topology_skeleton.hpp"

namespace {

namespace nv = numatwin::validate;
namespace sim = numatwin::sim;

double env_or(const char* name, double fallback) {
  const char* text = std::getenv(name);
  return text != nullptr && *text != '\0' ? std::strtod(text, nullptr) : fallback;
}

struct Machine {
  numatwin::model::Topology topology;
  nv::HostMap host;
};

const Machine& this_machine() {
  static const Machine machine = [] {
    const nv::DiscoveredMachine discovered = nv::discover_machine();
    const nv::ThreadPinner pinner;
    std::vector<std::vector<int>> cpus;
    for (const nv::DiscoveredNode& node : discovered.nodes) cpus.push_back(pinner.node_cpus(node.os_index));
    numatwin::model::Topology topology = nv::make_topology_skeleton(discovered, "this machine").topology;
    nv::HostMap host = nv::map_host(topology, discovered, cpus);
    return Machine{std::move(topology), std::move(host)};
  }();
  return machine;
}

void run_spec(benchmark::State& state, const sim::WorkloadSpec& spec) {
  nv::RunOptions options;
  options.repetitions = static_cast<int>(env_or("NUMATWIN_KERNEL_REPETITIONS", 5));
  options.huge_pages = env_or("NUMATWIN_HUGE_PAGES", 0) != 0;
  for (auto _ : state) {
    try {
      const nv::RealRun run = nv::run_shuffle_workload(this_machine().topology, this_machine().host, spec, options);
      state.SetIterationTime(run.seconds);
      if (run.work_unit == "bytes") {
        state.SetBytesProcessed(static_cast<std::int64_t>(run.work));
        state.counters["gbps"] = run.work / run.seconds / 1e9;
      } else {
        state.SetItemsProcessed(static_cast<std::int64_t>(run.work));
      }
      state.counters["verified"] = run.verified ? 1.0 : 0.0;
    } catch (const std::exception& e) {
      state.SkipWithError(e.what());
      break;
    }
  }
}

void register_all() {
  const double bytes = env_or("NUMATWIN_SHUFFLE_BYTES", 2.0 * 1024 * 1024 * 1024);
  struct Kind {
    const char* name;
    sim::WorkloadKind kind;
    sim::ShuffleAlgorithm algorithm;
  };
  const Kind kinds[] = {{"shuffle/naive", sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kNaive},
                        {"shuffle/ring", sim::WorkloadKind::kShuffle, sim::ShuffleAlgorithm::kRing},
                        {"migration/ring", sim::WorkloadKind::kMigration, sim::ShuffleAlgorithm::kRing},
                        {"migration-copy/ring", sim::WorkloadKind::kMigrationAndCopy, sim::ShuffleAlgorithm::kRing}};
  for (const Kind& k : kinds)
    for (sim::SyncMode sync : {sim::SyncMode::kTight, sim::SyncMode::kLoose})
      for (int threads : {1, 2}) {
        sim::WorkloadSpec spec;
        spec.kind = k.kind;
        spec.algorithm = k.algorithm;
        spec.sync = sync;
        spec.threads = threads;
        spec.placement = sim::parse_placement("dense");
        spec.total_bytes = bytes;
        const std::string name = std::string(k.name) + "/" + sim::sync_name(sync) + "/threads:" + std::to_string(threads);
        benchmark::RegisterBenchmark(name.c_str(), [spec](benchmark::State& s) { run_spec(s, spec); })
            ->UseManualTime()
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond);
      }
  const double records = env_or("NUMATWIN_AGGREGATION_RECORDS", 33554432.0);
  for (sim::PartitionStrategy strategy :
       {sim::PartitionStrategy::kShuffle, sim::PartitionStrategy::kMigration, sim::PartitionStrategy::kMigrationAndCopy})
    for (int threads : {1, 2}) {
      sim::WorkloadSpec spec;
      spec.kind = sim::WorkloadKind::kPartitionedAggregation;
      spec.strategy = strategy;
      spec.algorithm = sim::ShuffleAlgorithm::kRing;
      spec.sync = sim::SyncMode::kTight;
      spec.threads = threads;
      spec.placement = sim::parse_placement("dense");
      spec.data.records = records;
      spec.data.keys.groups = 1e5;
      const std::string name = "aggregation/" + sim::strategy_name(strategy) + "/ring/tight/threads:" + std::to_string(threads);
      benchmark::RegisterBenchmark(name.c_str(), [spec](benchmark::State& s) { run_spec(s, spec); })
          ->UseManualTime()
          ->Iterations(1)
          ->Unit(benchmark::kMillisecond);
    }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
