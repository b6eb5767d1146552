// Linux's automatic NUMA balancing over back-to-back executions of an operator: the scanner that
// unmaps the process's memory a window at a time, the hinting faults that follow, and the pages
// that move to the node of the thread that touches them.
//
// ── What the kernel does (kernel/sched/fair.c: task_numa_work, task_scan_min; mm/mempolicy.c:
//    mpol_misplaced, should_numa_migrate_memory; defaults from Documentation/admin-guide/sysctl/
//    kernel.rst, numa_balancing_*) ──────────────────────────────────────────────────────────
// Scan. scan_delay (1000 ms) after the task starts, and then every scan period P, the scanner
//   makes the next scan_size (256 MB) of the process's present pages inaccessible, wrapping round
//   at the end of the address space. P starts at the fastest the kernel allows,
//     P = max(1000 ms / (2560 MB/s / scan_size), scan_period_min / windows),  windows = ceil(rss / scan_size)
//   (MAX_SCAN_WINDOW = 2560 MB/s: never more page-table entries than that a second), so a whole
//   pass over rss takes max(scan_period_min (1000 ms), rss / 2560 MB/s). The kernel then lengthens
//   or shortens P from the share of local and private faults (update_task_scan_period, up to
//   scan_period_max, 60 s); the model keeps P at its start value: the fastest scanning, an upper
//   bound on how fast pages move.
// Fault. The next access to an unmapped page is a hinting fault, which costs the faulting thread
//   hinting_fault_us (a default, not measured here: a minor fault's trap, PTE update and TLB
//   flush, a few microseconds on the machines of the studies). The page moves to the faulting
//   thread's node when its policy allows it (the default policy: first touch and localalloc;
//   interleave, preferred, bind and weighted interleave pages stay) and the fault passes the
//   two-stage filter: a fault by the task that touched the page last, or a second consecutive
//   fault from the same node. In the model a page that one worker touches (partitioned and
//   private datasets: each worker its own chunk) moves to its worker's node at its first fault;
//   a shared structure (every worker touches every page) does not move: its consecutive faults
//   come from one node only 1/k of the time with k nodes, and the group's fault counts are even.
// Move. The page's copy (read on its node, written on the worker's) runs through the bandwidth
//   model as the copies of all workers that fault at once; the faulting worker waits for it.
// Threads. Moving a thread to its memory (task_numa_migrate) does not apply: the operators' threads
//   are pinned, as the validator runs them.
//
// ── What the model computes ──────────────────────────────────────────────────────────────────
// Time starts with the first execution (the data already loaded, pages where the policy put
// them). The datasets are laid out in allocation order; after s scans the first
// min(s x scan_size, rss) bytes have been passed, and the pages of every partitioned or private
// dataset in that prefix are on their worker's node (WorkloadSpec::numa_balanced_prefix_bytes,
// which the operator builder applies). An execution runs at the rate of the placement of the
// moment (the fluid model: a part f of it at placement p takes f x T(p)); at each scan the
// workers stall for the copies and the hinting faults of the window just passed
// (max over nodes of the copy time, plus faults / threads x hinting_fault_us; after the first
// whole pass the scans only fault).
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/memory_policy.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct NumaBalancingParameters {
  double scan_delay_ms = 1000.0;        // numa_balancing_scan_delay_ms
  double scan_period_min_ms = 1000.0;   // numa_balancing_scan_period_min_ms
  double scan_size_mb = 256.0;          // numa_balancing_scan_size_mb
  double max_scan_mb_per_s = 2560.0;    // MAX_SCAN_WINDOW in kernel/sched/fair.c
  double hinting_fault_us = 2.0;        // default, not measured (see above)
  // Bytes one hinting fault covers (a transparent huge page faults and moves as one); 0: the
  // run's pages, those of its placed datasets under spec.huge_pages (2 MiB with huge pages on or
  // madvise, 4 KiB off: model/tlb.hpp page_size_of), balancing_page_bytes.
  double page_bytes = 0.0;
};

// The page a hinting fault covers for `spec`: p.page_bytes when set (> 0), else the run's.
[[nodiscard]] double balancing_page_bytes(const NumaBalancingParameters& p, const WorkloadSpec& spec);

// Throws std::invalid_argument naming the parameter when one is not > 0 (finite; page_bytes may
// also be 0: the run's pages).
void check_numa_balancing(const NumaBalancingParameters& p);

// The scan period P above, in ms, for a process of rss_bytes.
[[nodiscard]] double numa_scan_period_ms(const NumaBalancingParameters& p, double rss_bytes);


struct BalancedExecution {
  double start_s = 0.0;
  double time_s = 0.0;             // including the stalls of the scans during it
  double migrated_bytes = 0.0;     // pages moved during it
  double hinting_faults = 0.0;     // faults during it
  double local_access_ratio = 0.0; // of its memory accesses (time-weighted over its placements)
};

struct NumaBalancingRun {
  double rss_bytes = 0.0;
  double page_bytes = 0.0;  // one hinting fault's page, as used (balancing_page_bytes)
  double scan_period_ms = 0.0;
  double movable_bytes = 0.0;  // pages of partitioned/private datasets not on their worker's node at the start
  double unbalanced_execution_s = 0.0;  // one execution at the starting placement (balancing off)
  std::vector<BalancedExecution> executions;
  [[nodiscard]] double migrated_bytes() const;
  [[nodiscard]] double total_time_s() const;
};

// `executions` back-to-back runs of the operator `spec` (not a shuffle) with balancing on.
// Throws std::invalid_argument for a shuffle, executions < 1 or a bad parameter.
[[nodiscard]] NumaBalancingRun simulate_numa_balancing(const model::Topology& topology, const WorkloadSpec& spec,
                                                       const NumaBalancingParameters& parameters, int executions);

}  // namespace numatwin::sim
