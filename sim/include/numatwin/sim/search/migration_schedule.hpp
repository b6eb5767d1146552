// The order of a migration (issue 18, item 4: "the same for migration"): what a step loads, the
// bound no order can beat, and the order numatwin designs (the fewest re-bindings).
//
// A migration of n threads over equal pieces of P bytes (shuffle_plan.cpp) is, like a tight
// shuffle, n steps of a Latin square sigma: at step k thread t moves to node(sigma_k(t)) (a
// re-binding of o seconds when the node changes) and reads the piece there, locally; plain
// migration then reads its state of s bytes from its home node(t), migration & copy instead
// copies the state to the new node before each move. What an order can change:
//   pieces: step k reads producer p's piece once, on node(p), by a thread bound there. So in
//     every step node m's controller serves c_m local reads of P (c_m: producers on m) from c_m
//     threads bound to m, whatever sigma_k is: every step has the same loads and the same
//     threads, and so does every order. The coherence probes of those local reads depend on the
//     reader's and the home's node, both node(p): no order changes them either.
//   state (migration): over the run thread t is on node m for exactly c_m steps (it reads every
//     producer once), so its state reads load route(home(t) -> m) with c_m x s bytes in total in
//     any order; an order moves only WHEN they happen, not how much.
//   state (migration & copy): one copy of s per move, on the route between consecutive nodes:
//     fewer moves, fewer copies.
//   re-binding: thread t binds once per change of node; it must visit every node m with c_m > 0,
//     so at least N_t - 1 times (N_t: those nodes, its home first); in the ring up to n times.
// Bound. Let D be the tight run's time with the state and the re-binding free (s = 0, o = 0):
// every step then is the same step, so D is one figure for every order (computed with the fluid
// model on the ring). Adding the state and the re-binding adds work to threads and load to
// resources and removes none, so no order's tight migration takes less than D. Nor less than
// R = max_r (the run's total load on resource r) / C_r, whose totals (pieces and, for plain
// migration, state) are the same for every order (the estimate's loads, shuffle_schedule.hpp).
// B = max(D, R); the ring's gap T_ring / B - 1 is all that any order can gain (tight). A loose
// run has no step barriers; D does not bound it (threads drift), R does.
// What the gap is made of. In the ring a thread changes node at almost every step, so a tight
// step pays o at almost every one of its n steps: about n x o over the run (5 us x 120 threads
// = 0.6 ms, 2.6 % of a 23 ms run on xeon-e7-8880v2-8s; the 64 B state is noise next to it).
// The state's link loads cannot be lowered (their totals are fixed, above); the re-bindings can.
// Design (blocked order): with c threads on each of the N used nodes a_0..a_{N-1} (T_a[r]: the
// r-th thread of node a, which is also the r-th producer there), step k = j c + i (block j, i in
// 0..c-1) has thread T_a[r] read producer T_b[(r + i) mod c] with b = a_{(index(a) + j) mod N}.
// Each step sends the c threads of a to one node b and reads b's c producers once each (a
// permutation), and over the run T_a[r] meets T_b[q] once, in block j = index(b) - index(a), at
// i = q - r: a Latin square. Block 0 is home; a thread re-binds only between blocks: N - 1
// times, the fewest possible, and only the first step of each block pays o. There is no search:
// on the shipped machines the blocked order is within 0.22 % of B, except sgi-uv300h-32s (3.85 %,
// not analysed; docs/shuffle-schedules-figures.md). The fluid model checks it against the ring,
// and the ring runs when the design is not faster for the run's sync (tight or loose) or when
// the nodes hold unequal thread counts (no blocked order then).

#pragma once

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct MigrationBound {
  double ring_tight_s = 0.0;  // the fluid model's time of the ring migration, tight
  double ring_loose_s = 0.0;  // ... loose (not simulated when asked not to: 0)
  double data_s = 0.0;        // D: tight, state and re-binding free; the same for every order
  double resource_s = 0.0;    // R: the busiest resource's total load over its bandwidth
  double bound_s = 0.0;       // B = max(D, R): no order's tight migration is faster
  bool has_design = false;    // a blocked order exists (equal threads per used node)
  double designed_tight_s = 0.0;  // the fluid model's time of the blocked order, tight
  double designed_loose_s = 0.0;  // ... loose (0 when not simulated)
  int ring_binds = 0;         // the most re-bindings a thread does in the ring
  int fewest_binds = 0;       // the fewest any order can give that thread (N_t - 1)
  [[nodiscard]] double tight_gap() const { return ring_tight_s / bound_s - 1.0; }
  [[nodiscard]] double loose_gap() const { return ring_loose_s / resource_s - 1.0; }
  // The blocked order runs when the fluid model finds it faster than the ring (tight).
  [[nodiscard]] bool designed_kept() const { return has_design && designed_tight_s < ring_tight_s * (1.0 - 1e-9); }
  [[nodiscard]] double chosen_tight_s() const { return designed_kept() ? designed_tight_s : ring_tight_s; }
  [[nodiscard]] double chosen_gap() const { return chosen_tight_s() / bound_s - 1.0; }
  // Loose runs choose by the loose times (when simulated): the blocked order keeps threads in
  // step less well without barriers and is slower loose on some machines (nehalem-ex-8s).
  [[nodiscard]] bool designed_kept_loose() const {
    return has_design && designed_loose_s > 0.0 && designed_loose_s < ring_loose_s * (1.0 - 1e-9);
  }
};

// The gap (tight) under which the ring counts as meeting the bound.
inline constexpr double kMigrationRingGap = 0.01;

// The bound, the ring's and the blocked order's times of a migration-family spec (its threads,
// placement, bytes, state and overhead; its algorithm and sync are ignored). Throws
// std::invalid_argument for a spec that is not a migration. `loose`: also simulate loose runs.
MigrationBound migration_bound(const model::Topology& topology, const WorkloadSpec& spec, bool loose = true);

// The ring's producer orders for the spec's threads (WorkloadSpec::producer_orders).
std::vector<std::vector<int>> ring_producer_orders(const model::Topology& topology, const WorkloadSpec& spec);

// The blocked order (above) for the spec's threads, or empty when the used nodes hold unequal
// thread counts.
std::vector<std::vector<int>> blocked_producer_orders(const model::Topology& topology, const WorkloadSpec& spec);

// What `--algorithm scheduled` runs for a migration: the blocked order when `bound` says the
// fluid model keeps it for the spec's sync (tight: designed_kept, loose: designed_kept_loose),
// else the ring.
std::vector<std::vector<int>> scheduled_migration_orders(const model::Topology& topology, const WorkloadSpec& spec,
                                                         const MigrationBound& bound);

}  // namespace numatwin::sim
