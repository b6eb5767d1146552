// Shuffle schedules designed for the machine (issue 18, item 1; Li et al. argue for a shuffle
// tuned per machine, ../docs/algorithms.md §1). Migration's orders, whose steps load the same
// pieces in every order, have their own maths and design: migration_schedule.hpp.
//
// A tight schedule of n threads is n steps; at step k thread t reads the piece of producer
// sigma_k(t). Every step is a permutation (each producer's buffer read by one thread) and every
// (thread, producer) pair occurs once over the steps: the steps form a Latin square. The ring is
// one such square (sigma_k(o) = inner[(o + k) mod n] over the outer ring).
//
// Estimate. With equal pieces of P bytes, step k puts on each resource r of the bandwidth model
// (memory controllers, links, forwarding nodes) a load
//     L_k(r) = P x sum_t c_r(node(t), node(sigma_k(t)))
// where c_r(n, m) is the model's load on r per byte that a thread on n reads from m
// (BandwidthModel::read_terms): the controller of m and the links of route(m -> n) once, and the
// coherence probes and responses that each line brings (under source snoop they depend on the
// reader's node only and are the same in every step; under home snoop and directories on the
// home, so on the order). A tight step ends when its slowest resource has drained, so it takes
// about
//     T_k = max_r L_k(r) / C_r                      (C_r: the resource's bandwidth)
// (the threads' own limits, miss buffers and latency, are left to the fluid model's check).
// The schedule's estimate is sum_k T_k; no order can go below the bound
// B = max_r (sum_k L_k(r)) / C_r, whose loads do not depend on the order. On a fully connected
// machine with the same threads on every node the ring meets B.
// Search. From the ring, a local search over cycle swaps: for steps k != l and a thread t, the
// threads t, sigma_k^-1(sigma_l(t)), ... form a cycle on which exchanging sigma_k and sigma_l
// keeps both steps permutations and the square Latin; a swap is kept when it lowers
// T_k + T_l (only those two steps change). Each kept swap lowers the estimate by at least the
// smallest non-zero change, and the estimate is bounded below by B, so the search terminates;
// it also stops at the iteration budget, after max_stall swaps in a row that were not kept, or
// when it meets B. The fluid model (`numatwin schedule`) then checks the
// designed order against naive, ring and random.
#pragma once

#include <cstdint>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/thread_placement.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct ShuffleSchedule {
  // steps[k][t]: the producer thread whose piece thread t reads at step k.
  std::vector<std::vector<int>> steps;
  // producers[t] = the order in which thread t visits the producers (the transposed view).
  [[nodiscard]] std::vector<std::vector<int>> producer_orders() const;
};

// Throws std::invalid_argument naming the first step or pair that breaks the Latin square.
void check_schedule(const ShuffleSchedule& schedule, int threads);

struct ScheduleDesign {
  ShuffleSchedule schedule;
  double ring_estimate_s = 0.0;    // sum_k T_k of the ring, for P = piece_bytes
  double design_estimate_s = 0.0;  // ... of the designed schedule
  double bound_s = 0.0;            // B: no order does better under the estimate
  long long swaps_tried = 0;
  long long swaps_kept = 0;
};

struct ScheduleOptions {
  long long max_swaps = 200000;  // swaps tried at most
  long long max_stall = 20000;   // ... and at most this many in a row without a kept one
  std::uint64_t seed = 1;
};

// Designs a tight schedule for threads placed as `placed` (place_threads) shuffling pieces of
// `piece_bytes`. Throws std::invalid_argument for fewer than one thread.
ScheduleDesign design_schedule(const model::Topology& topology, const std::vector<PlacedThread>& placed, double piece_bytes,
                               const ScheduleOptions& options = {});

// The designed order of a shuffle-family spec (its threads placed as it says, equal pieces of
// total_bytes / threads^2), or of a sort-merge join (pieces of its merge: records x tuple_bytes /
// threads^2), as WorkloadSpec::producer_orders for ShuffleAlgorithm::kScheduled. Tight and loose
// runs take the same orders: a loose run follows each thread's order without step barriers.
std::vector<std::vector<int>> designed_producer_orders(const model::Topology& topology, const WorkloadSpec& spec,
                                                       const ScheduleOptions& options = {});

// The estimate of a schedule (sum of its steps' T_k), for comparison.
double schedule_estimate_s(const model::Topology& topology, const std::vector<PlacedThread>& placed, double piece_bytes,
                           const ShuffleSchedule& schedule);

}  // namespace numatwin::sim
