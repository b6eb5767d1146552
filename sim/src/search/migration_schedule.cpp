#include "numatwin/sim/search/migration_schedule.hpp"

#include <algorithm>
#include <stdexcept>

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/sim/plan/shuffle_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"

namespace numatwin::sim {
namespace {

double simulated_s(const model::Topology& t, const WorkloadSpec& spec) {
  Simulation simulation(t);
  SimulationOptions quiet;
  quiet.record_timeline = false;
  return simulation.run(build_shuffle_plan(t, spec), quiet).time_s;
}

bool is_migration(WorkloadKind kind) { return kind == WorkloadKind::kMigration || kind == WorkloadKind::kMigrationAndCopy; }

}  // namespace

std::vector<std::vector<int>> ring_producer_orders(const model::Topology& topology, const WorkloadSpec& spec) {
  const std::vector<PlacedThread> placed = place_threads(topology, spec.threads, spec.placement);
  const ShuffleOrder ring = shuffle_order(placed, ShuffleAlgorithm::kRing, spec.seed);
  std::vector<std::vector<int>> orders(placed.size());
  for (std::size_t o = 0; o < placed.size(); ++o) orders[static_cast<std::size_t>(ring.outer[o])] = ring.producers[o];
  return orders;
}

std::vector<std::vector<int>> blocked_producer_orders(const model::Topology& topology, const WorkloadSpec& spec) {
  const std::vector<PlacedThread> placed = place_threads(topology, spec.threads, spec.placement);
  std::vector<model::NodeIndex> nodes;  // the used nodes, in index order
  for (const PlacedThread& p : placed) nodes.push_back(p.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const std::size_t count = nodes.size();
  std::vector<std::vector<int>> of(count);  // T_a: the threads of each used node, in placement order
  for (std::size_t t = 0; t < placed.size(); ++t) {
    const auto a = static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), placed[t].node) - nodes.begin());
    of[a].push_back(static_cast<int>(t));
  }
  const std::size_t c = of.front().size();
  for (const std::vector<int>& threads : of) {
    if (threads.size() != c) return {};
  }
  std::vector<std::vector<int>> orders(placed.size());
  for (std::size_t a = 0; a < count; ++a) {
    for (std::size_t r = 0; r < c; ++r) {
      std::vector<int>& order = orders[static_cast<std::size_t>(of[a][r])];
      for (std::size_t j = 0; j < count; ++j) {
        const std::vector<int>& there = of[(a + j) % count];
        for (std::size_t i = 0; i < c; ++i) order.push_back(there[(r + i) % c]);
      }
    }
  }
  return orders;
}

std::vector<std::vector<int>> scheduled_migration_orders(const model::Topology& topology, const WorkloadSpec& spec,
                                                         const MigrationBound& bound) {
  const bool kept = spec.sync == SyncMode::kLoose ? bound.designed_kept_loose() : bound.designed_kept();
  return kept ? blocked_producer_orders(topology, spec) : ring_producer_orders(topology, spec);
}

MigrationBound migration_bound(const model::Topology& topology, const WorkloadSpec& spec, bool loose) {
  if (!is_migration(spec.kind)) throw std::invalid_argument("a migration bound needs --workload migration or migration-copy");
  check_workload(topology, spec);
  MigrationBound b;
  WorkloadSpec ring = spec;
  ring.algorithm = ShuffleAlgorithm::kRing;
  ring.producer_orders.clear();
  ring.sync = SyncMode::kTight;
  b.ring_tight_s = simulated_s(topology, ring);
  if (loose) {
    ring.sync = SyncMode::kLoose;
    b.ring_loose_s = simulated_s(topology, ring);
  }
  WorkloadSpec blocked = ring;
  blocked.algorithm = ShuffleAlgorithm::kScheduled;
  blocked.producer_orders = blocked_producer_orders(topology, spec);
  b.has_design = !blocked.producer_orders.empty();
  if (b.has_design) {
    blocked.sync = SyncMode::kTight;
    b.designed_tight_s = simulated_s(topology, blocked);
    if (loose) {
      blocked.sync = SyncMode::kLoose;
      b.designed_loose_s = simulated_s(topology, blocked);
    }
  }
  WorkloadSpec data = ring;  // D: the state and the re-binding free
  data.sync = SyncMode::kTight;
  data.state_bytes = 0.0;
  data.migration_overhead_seconds = 0.0;
  b.data_s = simulated_s(topology, data);

  // R: the run's total load on every resource, the same in every order.
  const std::vector<PlacedThread> placed = place_threads(topology, spec.threads, spec.placement);
  const int n = spec.threads;
  const double piece = spec.total_bytes / (static_cast<double>(n) * n);
  const model::Routing routing(topology);
  model::BandwidthModel model(topology, routing);
  std::vector<double> load(static_cast<std::size_t>(model.resource_count()), 0.0);
  std::vector<int> on_node(topology.nodes.size(), 0);  // c_m
  for (const PlacedThread& p : placed) ++on_node[static_cast<std::size_t>(p.node)];
  auto add = [&](model::NodeIndex cpu, model::NodeIndex memory, double bytes) {
    for (const model::ResourceUse& u : model.read_terms(cpu, memory)) load[static_cast<std::size_t>(u.resource)] += bytes * u.coefficient;
  };
  for (std::size_t m = 0; m < on_node.size(); ++m) {
    if (on_node[m] == 0) continue;
    const auto node = static_cast<model::NodeIndex>(m);
    add(node, node, static_cast<double>(n) * on_node[m] * piece);  // every thread reads m's c_m pieces there
    if (spec.kind == WorkloadKind::kMigration && spec.state_bytes > 0.0) {
      // Thread t spends c_m steps on m and reads its state from home each step.
      for (const PlacedThread& p : placed) add(node, p.node, on_node[m] * spec.state_bytes);
    }
  }
  for (int r = 0; r < model.resource_count(); ++r) {
    const double c = model.resource_capacity_bytes_per_s(r);
    if (c > 0.0 && load[static_cast<std::size_t>(r)] > 0.0) b.resource_s = std::max(b.resource_s, load[static_cast<std::size_t>(r)] / c);
  }
  b.bound_s = std::max(b.data_s, b.resource_s);

  // Re-bindings: the ring's per thread, and the fewest (the nodes to visit other than home).
  int used_nodes = 0;
  for (int c : on_node) used_nodes += c > 0 ? 1 : 0;
  b.fewest_binds = used_nodes - 1;
  const std::vector<std::vector<int>> orders = ring_producer_orders(topology, spec);
  for (std::size_t t = 0; t < orders.size(); ++t) {
    model::NodeIndex here = placed[t].node;
    int binds = 0;
    for (int p : orders[t]) {
      const model::NodeIndex there = placed[static_cast<std::size_t>(p)].node;
      if (there != here) ++binds;
      here = there;
    }
    b.ring_binds = std::max(b.ring_binds, binds);
  }
  return b;
}

}  // namespace numatwin::sim
