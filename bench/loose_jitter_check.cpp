// loose_jitter_check: how much of the exact loose shuffle's time is its perfect lock step
// (issue 14, docs/simulation-speed.md). An experiment, not a shipped model.
//
// The exact simulation of a loose shuffle gives every piece exactly B / n^2 bytes and starts
// every thread at t = 0. Its threads then run at nearly one rate and stay near the same step
// (docs/simulation-speed.md), and its time moves by tens of per cent with one thread more. A real
// loose shuffle is not that even:
//   - piece sizes: hashing N tuples into n^2 pieces gives multinomial sizes, relative standard
//     deviation about 1 / sqrt(N / n^2) (0.5 % for 12.8 GB of 8-byte tuples at 193 threads);
//   - start times: threads leave a start barrier some microseconds apart.
// This tool runs the exact simulation on plans perturbed that way (each thread's pieces scaled
// by 1 + sd * z, z standard normal, then renormalised so that the thread still reads B / n bytes;
// each thread first waits U(0, skew) seconds), several seeds, and prints the exact time without
// perturbation, the perturbed times (mean, min, max over the seeds) and the stationary fluid
// time of bench/loose_fluid_check.cpp.
//
// Usage: loose_jitter_check TOPOLOGY.json ring|random BYTES PIECE_SD SKEW_S SEEDS N [N...]
#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "numatwin/model/topology_json.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "loose_fluid_plan.hpp"

namespace {

using namespace numatwin;

sim::Plan perturbed(const sim::Plan& exact, double piece_sd, double skew_s, std::uint64_t seed) {
  sim::Plan p = exact;
  std::mt19937_64 random(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::uniform_real_distribution<double> start(0.0, skew_s);
  for (sim::ThreadPlan& tp : p.threads) {
    double before = 0.0;
    double after = 0.0;
    for (sim::Op& op : tp.ops) {
      if (auto* tr = std::get_if<sim::Transfer>(&op)) {
        before += tr->bytes;
        tr->bytes *= std::max(0.0, 1.0 + piece_sd * z(random));
        after += tr->bytes;
      }
    }
    for (sim::Op& op : tp.ops) {
      if (auto* tr = std::get_if<sim::Transfer>(&op)) tr->bytes *= before / after;
    }
    if (skew_s > 0.0) tp.ops.insert(tp.ops.begin(), sim::Compute{start(random), sim::Phase::kOther});
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 8) {
    std::fprintf(stderr, "usage: loose_jitter_check TOPOLOGY.json ring|random BYTES PIECE_SD SKEW_S SEEDS N [N...]\n");
    return 2;
  }
  const model::Topology t = model::load_topology(argv[1]);
  sim::WorkloadSpec spec = bench::loose_shuffle(argv[2], std::stod(argv[3]));
  const double piece_sd = std::stod(argv[4]);
  const double skew_s = std::stod(argv[5]);
  const int seeds = std::stoi(argv[6]);
  const sim::SimulationOptions options{.record_timeline = false, .time_only = true};
  std::printf("threads,exact_s,perturbed_mean_s,perturbed_min_s,perturbed_max_s,fluid_s,mean_vs_exact_pct,fluid_vs_mean_pct\n");
  for (int i = 7; i < argc; ++i) {
    spec.threads = std::stoi(argv[i]);
    const sim::Plan exact = sim::build_shuffle_plan(t, spec);
    const double e = sim::Simulation(t).run(exact, options).time_s;
    const double f = sim::Simulation(t).run(bench::fluid_plan(t, spec, exact), options).time_s;
    double sum = 0.0;
    double lo = 1e300;
    double hi = 0.0;
    for (int s = 0; s < seeds; ++s) {
      const double x = sim::Simulation(t).run(perturbed(exact, piece_sd, skew_s, 1000 + s), options).time_s;
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    const double mean = sum / seeds;
    std::printf("%d,%.6g,%.6g,%.6g,%.6g,%.6g,%+.2f,%+.2f\n", spec.threads, e, mean, lo, hi, f, 100.0 * (mean / e - 1.0),
                100.0 * (f / mean - 1.0));
    std::fflush(stdout);
  }
  return 0;
}
