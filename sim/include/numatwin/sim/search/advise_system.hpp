// Recommending the system around a workload: allocator x transparent huge pages x automatic NUMA
// balancing x memory policy x thread placement, each candidate predicted and compared with the
// system default, with a reason per changed setting.
//
// ── The default ───────────────────────────────────────────────────────────────────────────────
// glibc malloc, huge pages as the caller says the host has them (SystemSetting::huge_pages; the
// CLI reads /sys/kernel/mm/transparent_hugepage/enabled, else madvise, Linux's usual default),
// balancing as given, first touch by one loader thread, threads unpinned (advise.hpp's default).
//
// ── The search (not the full product) ────────────────────────────────────────────────────────
// The product of the five factors is large (4 allocators x 3 page settings x 2 balancing states x
// the placement search's dozens of configurations), so the factors are ranked one at a time from
// the default and only the best of each are combined:
//   1. placement x memory policy x thread count x algorithm: advise() (every candidate simulated),
//      keep the best `top_placements` distinct configurations (the default among them when it is
//      not already);
//   2. allocator: only when the spec allocates (per-group, per-bucket): the default with each
//      candidate allocator; keep glibc and the fastest others that are faster than the default
//      alone by more than 0.1 %, `top_allocators` in all (a tie changes nothing); a preallocated
//      spec calls no malloc in the model, so the allocator is not varied and this is said;
//   3. huge pages on / off / madvise from the default, kept as the allocators are
//      (`top_huge_pages` in all, the default's setting always);
//   4. balancing on / off: only with executions > 1 on a machine of several NUMA nodes and an
//      operator (the balancing model's scope); both states are kept: whether it helps depends on
//      the memory policy (it moves first-touch pages only), so it is decided in the combination;
//   5. every combination of what was kept is simulated (balancing on: sim/search/numa_balancing.hpp over
//      the executions; off: executions x one execution) and ranked by predicted time.
// Factors 2 and 3 interact in the model only through the allocator's heap on 4 KiB pages
// (madvise), and with the placement through the thread count; the combination stage sees those.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/tlb.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/search/advise.hpp"
#include "numatwin/sim/search/numa_balancing.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct SystemSetting {
  std::string allocator = "glibc";
  model::HugePages huge_pages = model::HugePages::kMadvise;
  bool numa_balancing = false;
};

struct SystemAdviceOptions {
  std::vector<std::string> allocators;  // candidates (names the caller has checked); glibc is added
  SystemSetting os_default;             // its allocator is replaced by glibc
  int executions = 1;                   // back-to-back executions (balancing needs > 1)
  NumaBalancingParameters balancing;
  int top_placements = 3;
  int top_allocators = 2;
  int top_huge_pages = 2;
  AdviceOptions search;  // stops the placement search and the combinations
};

struct SystemCandidate {
  AdviceCandidate placement;  // spec (allocator and huge pages set in it), bottleneck, reason
  bool numa_balancing = false;
  double time_s = 0.0;           // all executions
  double speedup = 1.0;          // default time / this time
  double migrated_bytes = 0.0;   // balancing on: pages moved over the executions
  std::vector<std::string> reasons;  // one per setting that differs from the default
};

// One factor's value, varied alone from the default (stages 2 to 4).
struct FactorTrial {
  std::string factor;  // "allocator", "huge pages", "balancing"
  std::string value;
  double time_s = 0.0;  // all executions
  bool kept = false;    // carried into the combinations
  std::string note;     // e.g. the allocator's costs and calls, or "default costs"
};

struct SystemAdvice {
  SystemSetting os_default;
  SystemCandidate default_candidate;
  std::vector<SystemCandidate> ranked;  // fastest first; the default is among them
  std::vector<FactorTrial> trials;
  std::vector<std::string> search;          // how the space was searched, in plain words
  std::vector<std::string> rests_on_defaults;  // parameters of the ranking that are not calibrated
  int simulated = 0;
  int full_product = 0;  // the size of the product the search avoided
};

// Throws std::invalid_argument for a bad spec or options (executions < 1, no allocator).
SystemAdvice advise_system(const model::Topology& topology, const WorkloadSpec& spec, const SystemAdviceOptions& options);

// "jemalloc, huge pages on, balancing off, hash-join non-partitioned, 2 threads dense, memory first-touch".
std::string system_configuration_text(const model::Topology& topology, const SystemCandidate& c);

}  // namespace numatwin::sim
