// Whole simulations. Target (issue: model/simulator): the tight ring shuffle of all 576 threads
// of sgi-uv300h-32s (576 steps) in under 1 s on the development machine.
//   ./build/release/bench/sim_bench --benchmark_filter=Sgi
// Target (issue 17): `predict` on the 4-socket machines with its 90 % interval (64 samples and
// the probe of which costs matter) in under 0.2 s of CPU:
//   ./build/release/bench/sim_bench --benchmark_filter=Interval
// The slowest are the sort-merge joins (64 x 64 merge steps, one drawn cost: the samples share
// one plan, sim/uncertainty/sample_plan.hpp). Measured 2026-11-26 (idle priority on a shared 2-vCPU host,
// old and new binaries alternated, CPU ms): xeon-e7-4850v4-4s 360 -> 181 and 362 -> 182,
// xeon-e7-4880v2-4s 251 -> 104 and 246 -> 101; COUNT 18 -> 16, hash join 51 -> 46, partitioned
// aggregation 39-43 -> 31-32, MEDIAN 62 -> 55.
// Target (issue 14): `numatwin weights` on the 2-socket machines in under 2 s: the searches from
// the three starts, the per-node search and the six compared policies' 64-sample intervals:
//   ./build/release/bench/sim_bench --benchmark_filter=Weights
// Target (issue 15): rank every placement of distinct threads for the subarray filter, all
// 92,378 of 20 threads on skylake-4114-2s in under 10 s and all 462 of 12 threads on
// sandybridge-e5-2630-2s in under 0.5 s, on one core; BM_SubarrayOnePlacement* is the cost of
// one placement's simulation (what a plain loop would pay per placement), for the ratio:
//   ./build/release/bench/sim_bench --benchmark_filter=Subarray
// Target (issue 18): designing the shuffle schedule for all 576 threads of sgi-uv300h-32s in
// under 5 s, for the 8-socket machines in under 0.5 s (the design alone, not the fluid checks):
//   ./build/release/bench/sim_bench --benchmark_filter=ScheduleDesign
// Target (issue 14): `numatwin sweep` of every shuffle variant over 1..all hardware threads of a
// 2 x 96-core NPS4 machine with 4 CXL expanders per socket (16 nodes) in under 10 s. The whole
// sweep is far too long for a benchmark; BM_SweepAmdNps4Cxl is one row of it (the 14 variants
// and the probe of which costs they rest on) at a few thread counts:
//   ./build/release/bench/sim_bench --benchmark_filter=Sweep
#include <benchmark/benchmark.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "numatwin/model/generators.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/search/distinct_placements.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/search/placement_search.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/schedule/shuffle_schedule.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/search/weights_search.hpp"

namespace {

using namespace numatwin;

void run_shuffle(benchmark::State& state, const char* machine, sim::ShuffleAlgorithm algorithm,
                 sim::SyncMode sync, bool timeline) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) /
                                                 (std::string(machine) + ".json"));
  sim::WorkloadSpec spec;
  spec.algorithm = algorithm;
  spec.sync = sync;
  spec.threads = t.total_cores();
  spec.total_bytes = 12.8e9;
  const sim::Plan plan = sim::build_shuffle_plan(t, spec);
  sim::SimulationOptions options;
  options.record_timeline = timeline;
  int events = 0;
  for (auto _ : state) {
    sim::Simulation simulation(t);
    const sim::SimulationResult r = simulation.run(plan, options);
    events = r.events;
    benchmark::DoNotOptimize(r.time_s);
  }
  state.counters["threads"] = spec.threads;
  state.counters["events"] = events;
}

void BM_SgiRingTight576(benchmark::State& state) {
  run_shuffle(state, "sgi-uv300h-32s", sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight, true);
}
BENCHMARK(BM_SgiRingTight576)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_SgiRingTight576NoTimeline(benchmark::State& state) {
  run_shuffle(state, "sgi-uv300h-32s", sim::ShuffleAlgorithm::kRing, sim::SyncMode::kTight, false);
}
BENCHMARK(BM_SgiRingTight576NoTimeline)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_NehalemCompareVariants(benchmark::State& state) {
  run_shuffle(state, "nehalem-ex-4s", sim::ShuffleAlgorithm::kCoordinatedRandom,
              sim::SyncMode::kLoose, true);
}
BENCHMARK(BM_NehalemCompareVariants)->Unit(benchmark::kMillisecond);

// Target (issue: operators and policies): all distinct placements of 12 threads on
// sandybridge-e5-2630-2s evaluated in under 2 s.
void BM_SandyBridgePlacements12(benchmark::State& state) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) /
                                                 "sandybridge-e5-2630-2s.json");
  sim::WorkloadSpec spec;
  spec.kind = sim::WorkloadKind::kHashJoin;
  spec.threads = 12;
  spec.data.records = 1e8;
  spec.data.build_records = 1.6e7;
  double distinct = 0.0;
  for (auto _ : state) {
    const sim::PlacementSearchResult r = sim::search_placements(t, spec);
    distinct = r.distinct_placements;
    benchmark::DoNotOptimize(r.ranked.data());
  }
  state.counters["distinct_placements"] = distinct;
}
BENCHMARK(BM_SandyBridgePlacements12)->Unit(benchmark::kMillisecond)->Iterations(3);

sim::WorkloadSpec subarray_spec(int threads) {
  sim::WorkloadSpec spec;
  spec.kind = sim::WorkloadKind::kSubarray;
  spec.threads = threads;
  spec.data.records = 1e8;  // the CLI's defaults
  return spec;
}

void subarray_placements(benchmark::State& state, const char* machine, int threads) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (std::string(machine) + ".json"));
  const sim::WorkloadSpec spec = subarray_spec(threads);
  sim::DistinctPlacementResult r;
  for (auto _ : state) {
    r = sim::search_distinct_placements(t, spec);
    benchmark::DoNotOptimize(r.ranked.data());
  }
  state.counters["placements"] = r.machine_classes;
  state.counters["classes"] = r.classes;
  state.counters["simulations"] = r.simulations;
}

void BM_SubarrayPlacementsSandyBridge12(benchmark::State& state) { subarray_placements(state, "sandybridge-e5-2630-2s", 12); }
BENCHMARK(BM_SubarrayPlacementsSandyBridge12)->Unit(benchmark::kMillisecond);

void BM_SubarrayPlacementsSkylake20(benchmark::State& state) { subarray_placements(state, "skylake-4114-2s", 20); }
BENCHMARK(BM_SubarrayPlacementsSkylake20)->Unit(benchmark::kMillisecond);

// One placement's simulation: the sparse one (every chunk group split).
void subarray_one(benchmark::State& state, const char* machine, int threads) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (std::string(machine) + ".json"));
  const sim::WorkloadSpec spec = subarray_spec(threads);
  const int per_node = t.nodes[0].cores;
  std::vector<int> cpus;
  for (int w = 0; w < threads; ++w) cpus.push_back((w % 2) * per_node + w / 2);
  for (auto _ : state) benchmark::DoNotOptimize(sim::evaluate_placement(t, spec, cpus).time_s);
}

void BM_SubarrayOnePlacementSandyBridge12(benchmark::State& state) { subarray_one(state, "sandybridge-e5-2630-2s", 12); }
BENCHMARK(BM_SubarrayOnePlacementSandyBridge12)->Unit(benchmark::kMillisecond);

void schedule_design(benchmark::State& state, const char* machine) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) / (std::string(machine) + ".json"));
  const int threads = t.total_cores();
  const std::vector<sim::PlacedThread> placed = sim::place_threads(t, threads, sim::ThreadPlacement{});
  sim::ScheduleDesign d;
  for (auto _ : state) {
    d = sim::design_schedule(t, placed, 12.8e9 / threads / threads);
    benchmark::DoNotOptimize(d.design_estimate_s);
  }
  state.counters["threads"] = threads;
  state.counters["swaps_kept"] = static_cast<double>(d.swaps_kept);
  state.counters["gain_vs_ring"] = d.ring_estimate_s / d.design_estimate_s;
}

void BM_ScheduleDesignSgi576(benchmark::State& state) { schedule_design(state, "sgi-uv300h-32s"); }
BENCHMARK(BM_ScheduleDesignSgi576)->Unit(benchmark::kMillisecond)->Iterations(1);
void BM_ScheduleDesignNehalem8s(benchmark::State& state) { schedule_design(state, "nehalem-ex-8s"); }
BENCHMARK(BM_ScheduleDesignNehalem8s)->Unit(benchmark::kMillisecond);
void BM_ScheduleDesignXeon8s(benchmark::State& state) { schedule_design(state, "xeon-e7-8880v2-8s"); }
BENCHMARK(BM_ScheduleDesignXeon8s)->Unit(benchmark::kMillisecond);
void BM_ScheduleDesignTwistedLadder(benchmark::State& state) { schedule_design(state, "opteron-8220-8s-twisted-ladder"); }
BENCHMARK(BM_ScheduleDesignTwistedLadder)->Unit(benchmark::kMillisecond);

void BM_SubarrayOnePlacementSkylake20(benchmark::State& state) { subarray_one(state, "skylake-4114-2s", 20); }
BENCHMARK(BM_SubarrayOnePlacementSkylake20)->Unit(benchmark::kMillisecond);

}  // namespace

// What `numatwin predict` does with intervals on (the default): the point prediction, then
// sim::prediction_uncertainty with 64 samples, on the machine's cost basis (defaults: every cost
// uncertain).
void predict_with_interval(benchmark::State& state, const char* machine, sim::WorkloadKind kind,
                           int threads) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) /
                                                 (std::string(machine) + ".json"));
  sim::WorkloadSpec spec;
  spec.kind = kind;
  spec.threads = threads;
  spec.total_bytes = 12.8e9;
  const sim::CostBasis basis = sim::machine_cost_basis(t);
  spec.costs = sim::operator_costs_of(basis);
  const auto rate = [](const sim::WorkloadSpec&, const sim::SimulationResult& r) {
    return 1.0 / r.time_s;
  };
  std::size_t uncertain = 0;
  for (auto _ : state) {
    const sim::SimulationResult point = sim::Simulation(t).run(sim::build_plan(t, spec));
    const sim::PredictionUncertainty u = sim::prediction_uncertainty(t, spec, basis, 64, rate);
    uncertain = u.uncertain.size();
    benchmark::DoNotOptimize(point.time_s);
    benchmark::DoNotOptimize(u.time_s.median);
  }
  state.counters["uncertain_costs"] = static_cast<double>(uncertain);
}

void BM_IntervalCountXeon4s60(benchmark::State& state) {
  predict_with_interval(state, "xeon-e7-4880v2-4s", sim::WorkloadKind::kCountAggregation, 60);
}
BENCHMARK(BM_IntervalCountXeon4s60)->Unit(benchmark::kMillisecond);

void BM_IntervalHashJoinXeon4s60(benchmark::State& state) {
  predict_with_interval(state, "xeon-e7-4880v2-4s", sim::WorkloadKind::kHashJoin, 60);
}
BENCHMARK(BM_IntervalHashJoinXeon4s60)->Unit(benchmark::kMillisecond);

void BM_IntervalPartitionedNehalem4s32(benchmark::State& state) {
  predict_with_interval(state, "nehalem-ex-4s", sim::WorkloadKind::kPartitionedAggregation, 32);
}
BENCHMARK(BM_IntervalPartitionedNehalem4s32)->Unit(benchmark::kMillisecond);

// The slowest 4-socket predictions: the sort-merge join's 64 x 64 merge steps and MEDIAN on the
// 64-core Broadwell machine.
void BM_IntervalSortMergeXeon4850v4(benchmark::State& state) {
  predict_with_interval(state, "xeon-e7-4850v4-4s", sim::WorkloadKind::kSortMergeJoin, 64);
}
BENCHMARK(BM_IntervalSortMergeXeon4850v4)->Unit(benchmark::kMillisecond);

void BM_IntervalSortMergeXeon4880v2(benchmark::State& state) {
  predict_with_interval(state, "xeon-e7-4880v2-4s", sim::WorkloadKind::kSortMergeJoin, 60);
}
BENCHMARK(BM_IntervalSortMergeXeon4880v2)->Unit(benchmark::kMillisecond);

void BM_IntervalMedianXeon4850v4(benchmark::State& state) {
  predict_with_interval(state, "xeon-e7-4850v4-4s", sim::WorkloadKind::kMedianAggregation, 64);
}
BENCHMARK(BM_IntervalMedianXeon4850v4)->Unit(benchmark::kMillisecond);

// What `numatwin weights` does (sim::answer_weights), on every core of a 2-socket machine: default
// costs, 64-sample intervals; the radix hash join unless a workload is named.
void weights_answer(benchmark::State& state, const char* machine,
                    sim::WorkloadKind kind = sim::WorkloadKind::kHashJoin) {
  const model::Topology t = model::load_topology(std::filesystem::path(NUMATWIN_TOPOLOGY_DIR) /
                                                 (std::string(machine) + ".json"));
  sim::WorkloadSpec spec;
  spec.kind = kind;
  spec.join_algorithm = sim::JoinAlgorithm::kRadix;
  spec.threads = t.total_cores();
  const sim::CostBasis basis = sim::machine_cost_basis(t);
  spec.costs = sim::operator_costs_of(basis);
  int simulations = 0;
  for (auto _ : state) {
    const sim::WeightsAnswer a =
        sim::answer_weights(t, spec, basis, {}, sim::kLinuxLargestWeight, 64);
    simulations = a.search_simulations;
    benchmark::DoNotOptimize(a.rows.front().time_s);
  }
  state.counters["search_simulations"] = simulations;
  state.counters["threads"] = spec.threads;
}

void BM_WeightsSkylake2s(benchmark::State& state) { weights_answer(state, "skylake-4114-2s"); }
BENCHMARK(BM_WeightsSkylake2s)->Unit(benchmark::kMillisecond);

void BM_WeightsSandyBridge2s(benchmark::State& state) {
  weights_answer(state, "sandybridge-e5-2630-2s");
}
BENCHMARK(BM_WeightsSandyBridge2s)->Unit(benchmark::kMillisecond);

// Target (issue 14): `weights` answers in under 2 s on the 2-socket machines of today (memory
// tiers: HBM in flat mode, CXL expanders). COUNT is the command's default workload; MEDIAN reads
// its weighted-interleaved values per batch (the slowest of the operators there).
//   ./build/release/bench/sim_bench --benchmark_filter='Weights(XeonMax|SprCxl)'
void BM_WeightsXeonMax2sCount(benchmark::State& state) {
  weights_answer(state, "xeon-max-9462-2s", sim::WorkloadKind::kCountAggregation);
}
BENCHMARK(BM_WeightsXeonMax2sCount)->Unit(benchmark::kMillisecond);
void BM_WeightsXeonMax2sMedian(benchmark::State& state) {
  weights_answer(state, "xeon-max-9462-2s", sim::WorkloadKind::kMedianAggregation);
}
BENCHMARK(BM_WeightsXeonMax2sMedian)->Unit(benchmark::kMillisecond);
void BM_WeightsXeonMax2sRadixJoin(benchmark::State& state) { weights_answer(state, "xeon-max-9462-2s"); }
BENCHMARK(BM_WeightsXeonMax2sRadixJoin)->Unit(benchmark::kMillisecond);
void BM_WeightsSprCxl2sCount(benchmark::State& state) {
  weights_answer(state, "spr-cxl-2s", sim::WorkloadKind::kCountAggregation);
}
BENCHMARK(BM_WeightsSprCxl2sCount)->Unit(benchmark::kMillisecond);
void BM_WeightsSprCxl2sMedian(benchmark::State& state) {
  weights_answer(state, "spr-cxl-2s", sim::WorkloadKind::kMedianAggregation);
}
BENCHMARK(BM_WeightsSprCxl2sMedian)->Unit(benchmark::kMillisecond);
void BM_WeightsSprCxl2sRadixJoin(benchmark::State& state) { weights_answer(state, "spr-cxl-2s"); }
BENCHMARK(BM_WeightsSprCxl2sRadixJoin)->Unit(benchmark::kMillisecond);
// The two that were still over 2 s (docs/simulation-speed.md): the sort-merge join (threads^2
// merge steps) and the partitioned aggregation (threads^2 pieces).
//   ./build/release/bench/sim_bench --benchmark_filter='Weights.*(SortMerge|Partitioned)'
void BM_WeightsXeonMax2sSortMerge(benchmark::State& state) {
  weights_answer(state, "xeon-max-9462-2s", sim::WorkloadKind::kSortMergeJoin);
}
BENCHMARK(BM_WeightsXeonMax2sSortMerge)->Unit(benchmark::kMillisecond);
void BM_WeightsSprCxl2sSortMerge(benchmark::State& state) {
  weights_answer(state, "spr-cxl-2s", sim::WorkloadKind::kSortMergeJoin);
}
BENCHMARK(BM_WeightsSprCxl2sSortMerge)->Unit(benchmark::kMillisecond);
void BM_WeightsSprCxl2sPartitioned(benchmark::State& state) {
  weights_answer(state, "spr-cxl-2s", sim::WorkloadKind::kPartitionedAggregation);
}
BENCHMARK(BM_WeightsSprCxl2sPartitioned)->Unit(benchmark::kMillisecond);

// The machine of `numatwin topo generate amd-nps --nps 4 --sockets 2 --cores-per-socket 96
// --ccds-per-socket 12 --cxl-per-socket 4`. One thread count of the sweep: what `numatwin sweep --workload shuffle` does per row (a
// shuffle reads no operator cost, so no interval is drawn).
void BM_SweepAmdNps4Cxl(benchmark::State& state) {
  model::GeneratorParams params;
  params.family = model::TopologyFamily::kAmdNps;
  params.socket = model::socket_family_defaults(model::TopologyFamily::kAmdNps, 4);
  params.socket.sockets = 2;
  params.socket.cores_per_socket = 96;
  params.socket.ccds_per_socket = 12;
  params.socket.cxl.per_socket = 4;
  params.coherence.protocol = model::CoherenceProtocol::kDirectory;  // as `topo generate` makes a socket family
  params.coherence.directory_probe_fraction = 0.1;
  const model::Topology t = model::generate_topology(params);
  sim::WorkloadSpec base;
  base.threads = static_cast<int>(state.range(0));
  base.total_bytes = 12.8e9;
  int events = 0;
  for (auto _ : state) {
    events = 0;
    for (const sim::WorkloadSpec& s : sim::algorithm_variants(base)) {
      benchmark::DoNotOptimize(sim::costs_depended_on(t, s));
      const sim::SimulationResult r = sim::Simulation(t).run(sim::build_plan(t, s));
      events += r.events;
      benchmark::DoNotOptimize(r.time_s);
    }
  }
  state.counters["events"] = events;
}
// 192 threads fill one hardware thread of every core, each node alike; 193 puts one more on
// node 0, and the loose variants' events jump (ring loose: 192 -> 16,599): the threads' producer
// orders are no longer rotations of a periodic ring, no two threads are alike, and every piece
// ends at its own time (docs/simulation-speed.md).
BENCHMARK(BM_SweepAmdNps4Cxl)->Arg(16)->Arg(32)->Arg(64)->Arg(192)->Arg(193)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
