// Traffic plans of the shuffle family (Li et al.; docs/algorithms.md section 1).
//
// N threads; thread t owns a buffer on its node split into N pieces, piece (t -> u) holding
// total_bytes / N^2 bytes destined to thread u. Threads are ordered "socket first" (by node,
// then by their rank on that node): that is the outer ring. Pieces are named by producer; the
// inner ring orders producers "rank first": s0.p0, s1.p0, ..., s0.p1, s1.p1, ...
//   naive:  every thread pulls from producers 0..N-1 in outer-ring order (all hit one socket);
//   ring:   at step k the thread at outer position o pulls from inner[(o + k) mod N];
//   coordinated random: each thread a seeded random permutation of the producers.
// Shuffle: step k = Transfer(read producer's node, piece bytes). Migration: Bind to the
// producer's node, read the piece there (local), and read the state from its home node (state
// stays where the thread started). Migration & copy: copy the state to the producer's node
// (read here, write there), then Bind and read locally. Tight adds a Barrier after each step.
// Phases (plan.hpp): a piece's read is "read input" carrying the consumer's work ("consume");
// the state's reads from home and its copies are "move state"; a Bind is "migrate".
#pragma once

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/schedule/shuffle_order.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// Throws std::invalid_argument for specs that check_workload rejects.
Plan build_shuffle_plan(const model::Topology& topology, const WorkloadSpec& spec);

}  // namespace numatwin::sim
