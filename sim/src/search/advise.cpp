#include "numatwin/sim/search/advise.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"

namespace numatwin::sim {
namespace {

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.0f%%", 100.0 * fraction);
  return buffer;
}

std::string fixed3(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

}  // namespace

AdviceCandidate evaluate_candidate(const model::Topology& t, const WorkloadSpec& spec) {
  Simulation simulation(t);
  SimulationOptions quiet;
  quiet.record_timeline = false;
  const SimulationResult r = simulation.run(build_plan(t, spec), quiet);
  AdviceCandidate c;
  c.spec = spec;
  c.time_s = r.time_s;
  c.local_access_ratio = r.local_access_ratio();
  if (const int b = r.bottleneck_resource(); b >= 0) {
    c.bottleneck = r.resources[b].name;
    c.bottleneck_saturated = r.saturated_fraction[b];
  }
  if (const int b = r.busiest_resource(); b >= 0) {
    c.busiest = r.resources[b].name;
    c.busiest_utilisation = r.mean_utilisation[b];
  }
  return c;
}

namespace {

// Why a candidate differs from the default, in the model's terms.
std::string reason(const AdviceCandidate& c, const AdviceCandidate& base) {
  std::string out;
  if (c.bottleneck.empty()) {
    out = "no memory controller or link saturates: compute and latency bound";
  } else {
    out = "limited by " + c.bottleneck + " (saturated " + percent(c.bottleneck_saturated) + " of the time)";
  }
  if (std::abs(c.local_access_ratio - base.local_access_ratio) > 0.01) {
    out += "; " + std::string(c.local_access_ratio > base.local_access_ratio ? "more" : "fewer") +
           " local accesses (LAR " + fixed3(c.local_access_ratio) + " vs " + fixed3(base.local_access_ratio) + ")";
  }
  if (!base.bottleneck.empty() && base.bottleneck != c.bottleneck) {
    out += "; the default is held by " + base.bottleneck + " (" + percent(base.bottleneck_saturated) + ")";
  }
  return out;
}

}  // namespace

std::string configuration_text(const model::Topology& t, const WorkloadSpec& s) {
  std::string variant;
  if (is_shuffle_family(s.kind) || s.kind == WorkloadKind::kSortMergeJoin) {
    variant = workload_kind_name(s.kind) + " " + algorithm_name(s.algorithm) + " " + sync_name(s.sync);
  } else if (s.kind == WorkloadKind::kPartitionedAggregation) {
    variant = "partitioned-aggregation by " + strategy_name(s.strategy) + " (" + algorithm_name(s.algorithm) + ")";
  } else if (s.kind == WorkloadKind::kHashJoin) {
    variant = "hash-join " + join_algorithm_name(s.join_algorithm);
  } else {
    variant = workload_kind_name(s.kind);
  }
  std::string out = variant + ", " + std::to_string(s.threads) + " threads " + placement_name(s.placement);
  if (!is_shuffle_family(s.kind)) out += ", memory " + memory_policy_name(s.memory, t);
  return out;
}

Advice advise(const model::Topology& t, const WorkloadSpec& spec, const AdviceOptions& options) {
  // The OS default: unpinned threads, data first touched by one loader thread.
  WorkloadSpec os = spec;
  os.placement = ThreadPlacement{PlacementKind::kNone, {}};
  os.placement.seed = spec.placement.seed;
  os.memory = MemoryPolicy{MemoryPolicyKind::kFirstTouch, InitThreads::kLoader, {}, {}, {}};
  Advice advice;
  advice.os_default = evaluate_candidate(t, os);
  advice.os_default.reason = reason(advice.os_default, advice.os_default);
  ++advice.evaluated;

  std::set<int> counts{spec.threads, t.total_cores()};
  if (t.total_hardware_threads() != t.total_cores()) counts.insert(t.total_hardware_threads());
  std::vector<ThreadPlacement> placements = {ThreadPlacement{PlacementKind::kDense, {}}, ThreadPlacement{PlacementKind::kSparse, {}}};
  std::vector<MemoryPolicy> memories = {spec.memory};
  if (!is_shuffle_family(spec.kind)) {
    placements.push_back(ThreadPlacement{PlacementKind::kShared, {}});
    memories = {MemoryPolicy{MemoryPolicyKind::kFirstTouch, InitThreads::kWorkers, {}, {}, {}},
                MemoryPolicy{MemoryPolicyKind::kLocalAlloc, InitThreads::kWorkers, {}, {}, {}},
                MemoryPolicy{MemoryPolicyKind::kInterleave, InitThreads::kWorkers, {}, {}, {}}};
  }
  std::vector<WorkloadSpec> space;
  for (const WorkloadSpec& variant : algorithm_variants(spec)) {
    for (int threads : counts) {
      for (const ThreadPlacement& placement : placements) {
        for (const MemoryPolicy& memory : memories) {
          WorkloadSpec s = variant;
          s.threads = threads;
          s.placement = placement;
          s.placement.seed = spec.placement.seed;
          s.memory = memory;
          space.push_back(s);
        }
      }
    }
  }
  advice.candidates = static_cast<int>(space.size()) + 1;
  advice.ranked.push_back(advice.os_default);
  for (const WorkloadSpec& s : space) {
    if (options.stop(advice.evaluated)) break;
    try {
      advice.ranked.push_back(evaluate_candidate(t, s));
      ++advice.evaluated;
    } catch (const std::invalid_argument&) {
      // A combination the machine cannot hold (e.g. data that no longer fits): not a candidate.
    }
  }
  std::stable_sort(advice.ranked.begin(), advice.ranked.end(),
                   [](const AdviceCandidate& a, const AdviceCandidate& b) { return a.time_s < b.time_s; });
  for (AdviceCandidate& c : advice.ranked) {
    c.speedup = advice.os_default.time_s / c.time_s;
    c.reason = reason(c, advice.os_default);
  }
  return advice;
}

std::vector<std::string> apply_plan(const model::Topology& t, const WorkloadSpec& spec) {
  std::vector<std::string> lines;
  // numactl numbers NUMA nodes in file order (routers are not NUMA nodes).
  auto numactl_node = [&](model::NodeIndex node) {
    const std::vector<model::NodeIndex> numa = t.numa_nodes();
    return std::to_string(std::find(numa.begin(), numa.end(), node) - numa.begin());
  };
  std::string memory = "numactl";
  if (!is_shuffle_family(spec.kind)) {
    std::string nodes;
    for (model::NodeIndex n : spec.memory.nodes) nodes += (nodes.empty() ? "" : ",") + numactl_node(n);
    switch (spec.memory.kind) {
      case MemoryPolicyKind::kFirstTouch:  // the kernel's default policy; who touches first is the program's choice
        lines.push_back(std::string("# first touch: ") +
                        (spec.memory.init == InitThreads::kLoader ? "let one loader thread initialise the data"
                                                                  : "let each worker initialise (touch) its own chunk before the run"));
        break;
      case MemoryPolicyKind::kLocalAlloc: memory += " --localalloc"; break;
      case MemoryPolicyKind::kInterleave: memory += " --interleave=" + (nodes.empty() ? std::string("all") : nodes); break;
      case MemoryPolicyKind::kPreferred: memory += " --preferred=" + nodes; break;
      case MemoryPolicyKind::kBind: memory += " --membind=" + nodes; break;
      case MemoryPolicyKind::kWeightedInterleave:
        lines.push_back("# weighted interleave: numatwin weights prints the sysfs weights and the numactl (>= 2.0.19) command");
        break;
    }
  }
  const std::string prefix = memory == "numactl" ? std::string() : memory + " ";
  if (spec.placement.kind == PlacementKind::kNone) {
    lines.push_back(prefix + "./your-program   # threads unpinned");
  } else {
    std::string cpus;
    for (const PlacedThread& p : place_threads(t, spec.threads, spec.placement)) cpus += (cpus.empty() ? "" : ",") + std::to_string(p.cpu);
    lines.push_back(prefix + "taskset -c " + cpus + " ./your-program   # pin thread i to the i-th CPU for the same order");
    lines.push_back("export OMP_NUM_THREADS=" + std::to_string(spec.threads) + " OMP_PLACES=\"{" + cpus + "}\" OMP_PROC_BIND=true");
  }
  if (spec.placement.kind == PlacementKind::kShared) {
    lines.push_back("# shared: pin each thread on the node that holds its chunk of the input (the CPU list above does so)");
  }
  return lines;
}

}  // namespace numatwin::sim
