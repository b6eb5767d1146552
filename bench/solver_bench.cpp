// Speed of MaxMinSolver (one full solve) on random systems of 1e3, 1e4 and 1e5 flows over 1000
// resources, on a 576-thread ring-shuffle step of a 32-socket machine, and of SimGrid 3.32 on the
// same random systems (one engine step that re-solves the whole system), for the speed ratio.
//
// SimGrid side: one engine for the whole process (3.32 allows one), one full routing zone holding
// the three systems: resource -> SHARED link of latency 0, flow -> mailbox comm between its own
// ordered host pair (route = its links), rate bound -> Comm::set_rate (a variable bound in lmm, as
// in tests/simgrid). Each host has one sending and one receiving actor that post their comms at
// once and then block. Before timing, each system runs 100 simulated seconds untouched and its
// measured rates are compared with ours (counter max_rel_diff). A timed iteration then toggles
// the bandwidth of one link by 1e-9 relative and advances the engine by 1 ms: random systems are
// one connected component, so SimGrid's selective update re-solves all of it, then updates every
// comm's completion date. SimGrid_IdleStep toggles a link no flow uses instead: the engine's
// per-step overhead, to subtract.
//
// Run: build-rel/bench/solver_bench --benchmark_min_time=1
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "numatwin/model/maxmin_solver.hpp"

namespace {

using numatwin::model::MaxMinProblem;
using numatwin::model::MaxMinSolver;
using numatwin::model::ResourceUse;
namespace sg4 = simgrid::s4u;

constexpr int kResources = 1000;
constexpr int kFlowCounts[] = {1000, 10000, 100000};

// Coefficient-1, weight-1 flows over 2..6 distinct resources; capacities U(1, 100); 20% of the
// flows bounded, U(0.05, 20). The seed depends on the size only, so every binary sees the same.
MaxMinProblem random_problem(int flows) {
  std::mt19937_64 rng(static_cast<std::uint64_t>(flows) * 1000003U);
  std::uniform_real_distribution<double> capacity(1.0, 100.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> resource(0, kResources - 1);
  std::uniform_int_distribution<int> terms(2, 6);
  std::uniform_real_distribution<double> bound(0.05, 20.0);
  MaxMinProblem problem;
  problem.reserve(kResources, flows, flows * 4);
  for (int r = 0; r < kResources; ++r) problem.add_resource(capacity(rng));
  std::vector<ResourceUse> uses;
  for (int f = 0; f < flows; ++f) {
    uses.clear();
    const int count = terms(rng);
    while (static_cast<int>(uses.size()) < count) {
      const int r = resource(rng);
      if (std::none_of(uses.begin(), uses.end(),
                       [&](const ResourceUse& u) { return u.resource == r; })) {
        uses.push_back({r, 1.0});
      }
    }
    problem.add_flow(uses, unit(rng) < 0.2 ? bound(rng) : MaxMinProblem::kUnbounded);
  }
  return problem;
}

// ── numatwin ────────────────────────────────────────────────────────────────────────────────

void BM_MaxMinSolver_Solve(benchmark::State& state) {
  const MaxMinProblem problem = random_problem(static_cast<int>(state.range(0)));
  MaxMinSolver solver;
  solver.solve(problem);  // warm the buffers, as in a running simulation
  for (auto _ : state) {
    benchmark::DoNotOptimize(solver.solve(problem).rates.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.counters["terms"] = problem.term_count();
}
BENCHMARK(BM_MaxMinSolver_Solve)->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMicrosecond);

void BM_MaxMinSolver_RefillAndSolve(benchmark::State& state) {
  // What a simulator that rebuilds its problem at every event pays: clear, add every flow, solve.
  const MaxMinProblem source = random_problem(static_cast<int>(state.range(0)));
  MaxMinProblem problem = source;
  MaxMinSolver solver;
  for (auto _ : state) {
    problem.clear_flows();
    for (int f = 0; f < source.flow_count(); ++f) {
      problem.add_flow(source.uses(f), source.rate_bound(f), source.weight(f));
    }
    benchmark::DoNotOptimize(solver.solve(problem).rates.data());
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_MaxMinSolver_RefillAndSolve)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMicrosecond);

void BM_MaxMinSolver_RingShuffleStep(benchmark::State& state) {
  // 32 sockets on a bidirectional ring (64 directed links of 40 GB/s), one memory controller of
  // 100 GB/s per socket, 18 threads per socket = 576 flows. In step k every thread of socket s
  // reads from socket (s + k) mod 32 along the shorter way round (up to 16 hops) and is bound to
  // 8 GB/s by its outstanding misses. One iteration = one solve; a ring shuffle of 576 threads
  // has 31 such steps per round (576 steps = ~19 rounds), each with a few rate changes.
  constexpr int kSockets = 32;
  constexpr int kThreadsPerSocket = 18;
  std::vector<MaxMinProblem> steps;
  for (int k = 1; k < kSockets; ++k) {
    MaxMinProblem problem;
    for (int l = 0; l < 2 * kSockets; ++l) problem.add_resource(40.0);  // 2s: s->s+1, 2s+1: s+1->s
    for (int s = 0; s < kSockets; ++s) problem.add_resource(100.0);     // memory controllers
    std::vector<ResourceUse> uses;
    for (int s = 0; s < kSockets; ++s) {
      for (int t = 0; t < kThreadsPerSocket; ++t) {
        uses.clear();
        const int target = (s + k) % kSockets;
        const bool forward = k <= kSockets / 2;
        const int hops = forward ? k : kSockets - k;
        for (int h = 0, at = s; h < hops; ++h) {
          if (forward) {
            uses.push_back({2 * at, 1.0});
            at = (at + 1) % kSockets;
          } else {
            const int prev = (at + kSockets - 1) % kSockets;
            uses.push_back({2 * prev + 1, 1.0});
            at = prev;
          }
        }
        uses.push_back({2 * kSockets + target, 1.0});
        problem.add_flow(uses, 8.0);
      }
    }
    steps.push_back(std::move(problem));
  }
  MaxMinSolver solver;
  std::size_t k = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(solver.solve(steps[k]).rates.data());
    k = (k + 1) % steps.size();
  }
  state.SetItemsProcessed(state.iterations() * kSockets * kThreadsPerSocket);
}
BENCHMARK(BM_MaxMinSolver_RingShuffleStep)->Unit(benchmark::kMicrosecond);

// ── SimGrid ─────────────────────────────────────────────────────────────────────────────────

constexpr double kCheckTimeS = 100.0;  // untouched run used to measure SimGrid's rates
constexpr double kStepTimeS = 1e-3;    // simulated time per timed iteration
constexpr std::uint64_t kPayloadBytes = std::uint64_t{1} << 30;  // never completes in the bench

struct SimGridSystem {
  MaxMinProblem problem;
  std::vector<sg4::Host*> hosts;
  std::vector<std::vector<int>> sent_from;    // per host: the flows it sends
  std::vector<std::vector<int>> received_at;  // per host: the flows it receives
  std::vector<sg4::Link*> links;              // per resource
  std::vector<sg4::CommPtr> comms;            // per flow, sender side
  std::vector<sg4::CommPtr> receptions;       // per flow, receiver side (freed once cancelled)
  std::vector<void*> received;                // per flow, receiver's buffer
  sg4::SemaphorePtr release;
  int actors = 0;
};

struct SimGridBench {
  std::unique_ptr<sg4::Engine> engine;
  std::vector<std::unique_ptr<SimGridSystem>> systems;
  sg4::Link* idle_link = nullptr;
};

int hosts_for(int flows) {
  int hosts = 2;
  while (static_cast<long long>(hosts) * (hosts - 1) < flows) ++hosts;
  return hosts;
}

void build_simgrid_platform(SimGridBench& bench) {
  sg4::NetZone* zone = sg4::create_full_zone("world");
  bench.idle_link = zone->create_link("idle", 1.0)->set_latency(0.0)->seal();
  for (const int flows : kFlowCounts) {
    auto system = std::make_unique<SimGridSystem>();
    system->problem = random_problem(flows);
    std::string prefix =
        std::to_string(flows);  // (not "s" + ...: GCC 12 -Wrestrict false positive)
    prefix.insert(0, 1, 's');
    prefix += '_';
    const int host_count = hosts_for(flows);
    for (int h = 0; h < host_count; ++h) {
      system->hosts.push_back(zone->create_host(prefix + "h" + std::to_string(h), 1e9)->seal());
    }
    system->sent_from.resize(static_cast<std::size_t>(host_count));
    system->received_at.resize(static_cast<std::size_t>(host_count));
    for (int r = 0; r < kResources; ++r) {
      system->links.push_back(
          zone->create_link(prefix + "r" + std::to_string(r), system->problem.capacity(r))
              ->set_sharing_policy(sg4::Link::SharingPolicy::SHARED)
              ->set_latency(0.0)
              ->seal());
    }
    for (int f = 0, src = 0, dst = 1; f < flows; ++f) {
      std::vector<sg4::LinkInRoute> route;
      for (const ResourceUse& use : system->problem.uses(f)) {
        route.emplace_back(system->links[use.resource]);
      }
      zone->add_route(system->hosts[src]->get_netpoint(), system->hosts[dst]->get_netpoint(),
                      nullptr, nullptr, route, /*symmetrical=*/false);
      system->sent_from[src].push_back(f);
      system->received_at[dst].push_back(f);
      if (++dst == src) ++dst;
      if (dst == host_count) {
        ++src;
        dst = src == 0 ? 1 : 0;
      }
    }
    bench.systems.push_back(std::move(system));
  }
  zone->seal();
}

// Starts every comm of `system` (actors that then block on a semaphore); returns once the comms
// have run kCheckTimeS untouched, with the largest relative difference to our rates.
double start_system(SimGridSystem& system) {
  static int dummy_payload = 0;
  const auto flows = static_cast<std::size_t>(system.problem.flow_count());
  system.release = sg4::Semaphore::create(0);
  system.comms.assign(flows, nullptr);
  system.receptions.assign(flows, nullptr);
  system.received.assign(flows, nullptr);
  system.actors = 0;
  for (std::size_t h = 0; h < system.hosts.size(); ++h) {
    if (!system.sent_from[h].empty()) {
      ++system.actors;
      sg4::Actor::create("send", system.hosts[h], [&system, h] {
        for (const int f : system.sent_from[h]) {
          sg4::CommPtr comm = sg4::Mailbox::by_name("flow" + std::to_string(f))
                                  ->put_init(&dummy_payload, kPayloadBytes);
          const double bound = system.problem.rate_bound(f);
          if (!std::isinf(bound)) comm->set_rate(bound);
          comm->start();
          system.comms[f] = comm;
        }
        system.release->acquire();
        for (const int f : system.sent_from[h]) system.comms[f]->cancel();
      });
    }
    if (!system.received_at[h].empty()) {
      ++system.actors;
      sg4::Actor::create("receive", system.hosts[h], [&system, h] {
        for (const int f : system.received_at[h]) {
          system.receptions[f] =
              sg4::Mailbox::by_name("flow" + std::to_string(f))->get_async(&system.received[f]);
        }
        system.release->acquire();
      });
    }
  }
  const sg4::Engine* engine = sg4::Engine::get_instance();
  engine->run_until(sg4::Engine::get_clock() + kCheckTimeS);

  MaxMinSolver solver;
  const std::vector<double>& ours = solver.solve(system.problem).rates;
  double worst = 0.0;
  for (std::size_t f = 0; f < flows; ++f) {
    const double elapsed_s = sg4::Engine::get_clock() - system.comms[f]->get_start_time();
    const double theirs =
        (static_cast<double>(kPayloadBytes) - system.comms[f]->get_remaining()) / elapsed_s;
    worst = std::max(worst, std::abs(theirs - ours[f]) / ours[f]);
  }
  return worst;
}

void stop_system(SimGridSystem& system) {
  for (int a = 0; a < system.actors; ++a) system.release->release();
  sg4::Engine::get_instance()->run_until(sg4::Engine::get_clock() + kStepTimeS);
  system.comms.clear();  // after the senders cancelled them: SimGrid complains of running ones
  system.receptions.clear();
}

void BM_SimGrid_Step(benchmark::State& state, SimGridBench& bench, std::size_t index, bool idle) {
  SimGridSystem& system = *bench.systems[index];
  const double max_rel_diff = start_system(system);
  sg4::Link* toggled = idle ? bench.idle_link : system.links[0];
  const double base = toggled->get_bandwidth();
  bool up = false;
  const sg4::Engine* engine = sg4::Engine::get_instance();
  for (auto _ : state) {
    up = !up;
    toggled->set_bandwidth(up ? base * (1 + 1e-9) : base);
    engine->run_until(sg4::Engine::get_clock() + kStepTimeS);
  }
  toggled->set_bandwidth(base);
  stop_system(system);
  state.SetItemsProcessed(state.iterations() * system.problem.flow_count());
  state.counters["max_rel_diff"] = max_rel_diff;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  SimGridBench bench;
  std::vector<std::string> arguments{"solver_bench",
                                     "--cfg=network/model:CM02",
                                     "--cfg=network/crosstraffic:0",
                                     "--cfg=network/weight-S:0",
                                     "--cfg=network/TCP-gamma:0",
                                     "--cfg=network/latency-factor:1",
                                     "--cfg=network/bandwidth-factor:1",
                                     "--cfg=maxmin/precision:1e-13",
                                     "--cfg=surf/precision:1e-13",
                                     "--log=root.thres:critical"};
  std::vector<char*> engine_argv;
  for (std::string& argument : arguments) engine_argv.push_back(argument.data());
  engine_argv.push_back(nullptr);
  int engine_argc = static_cast<int>(arguments.size());
  bench.engine = std::make_unique<sg4::Engine>(&engine_argc, engine_argv.data());
  build_simgrid_platform(bench);

  for (std::size_t i = 0; i < bench.systems.size(); ++i) {
    const std::string flows = std::to_string(bench.systems[i]->problem.flow_count());
    benchmark::RegisterBenchmark(
        ("BM_SimGrid_Step/" + flows).c_str(),
        [&bench, i](benchmark::State& state) { BM_SimGrid_Step(state, bench, i, false); })
        ->Unit(benchmark::kMicrosecond)
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark(
      "BM_SimGrid_IdleStep/1000",
      [&bench](benchmark::State& state) { BM_SimGrid_Step(state, bench, 0, true); })
      ->Unit(benchmark::kMicrosecond)
      ->UseRealTime();

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  bench.engine->run();  // nothing left to do: lets the engine finish cleanly
  return 0;
}
