// The stationary fluid plan of a loose shuffle (bench/loose_fluid_check.cpp has the model): one
// spread transfer per thread. Shared by the two loose-shuffle experiments.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::bench {

// A loose shuffle of `bytes` in the order named "naive", "ring" or "random".
inline sim::WorkloadSpec loose_shuffle(const std::string& order, double bytes) {
  sim::WorkloadSpec spec;
  spec.kind = sim::WorkloadKind::kShuffle;
  spec.sync = sim::SyncMode::kLoose;
  spec.algorithm = order == "naive"  ? sim::ShuffleAlgorithm::kNaive
                   : order == "ring" ? sim::ShuffleAlgorithm::kRing
                                     : sim::ShuffleAlgorithm::kCoordinatedRandom;
  spec.total_bytes = bytes;
  return spec;
}

inline sim::Plan fluid_plan(const model::Topology& t, const sim::WorkloadSpec& spec, const sim::Plan& exact) {
  const std::vector<sim::PlacedThread> placed = sim::place_threads(t, spec.threads, spec.placement);
  std::map<model::NodeIndex, int> producers;
  for (const sim::PlacedThread& p : placed) ++producers[p.node];
  std::vector<model::NodeShare> spread;
  for (const auto& [node, count] : producers) spread.push_back({node, static_cast<double>(count) / spec.threads});
  sim::Plan fluid;
  fluid.threads.resize(exact.threads.size());
  for (std::size_t th = 0; th < exact.threads.size(); ++th) {
    fluid.threads[th].core = exact.threads[th].core;
    sim::Transfer tr = std::get<sim::Transfer>(exact.threads[th].ops.front());  // the first piece's costs
    tr.read_node = -1;
    tr.step = -1;
    tr.read_spread = spread;
    tr.bytes = spec.total_bytes / spec.threads;
    fluid.threads[th].ops.emplace_back(std::move(tr));
  }
  return fluid;
}

}  // namespace numatwin::bench
