// A shuffle's time when its pieces are as uneven as hash partitioning makes them.
//
// The simulator gives every piece of a shuffle exactly B / n^2 bytes. A real shuffle hashes its
// tuples into the pieces, so their sizes vary, and a loose ring's threads, which the even plan
// keeps in lock step, drift apart (docs/simulation-speed.md, 2026-11-28: up to 10.5 % either way
// on a 2 x 96-core NPS4 machine).
//
// ── Maths ────────────────────────────────────────────────────────────────────────────────────
// N tuples (total_bytes / element_bytes), n threads. Producer p holds N / n tuples and sends
// each one to consumer c with probability 1 / n (a uniform hash), so piece (p, c) holds
//   X ~ Binomial(N / n, 1 / n):  mean m = N / n^2,  relative sd s = sqrt((1 - 1 / n) / m).
// Each draw gives every piece m (1 + s z) tuples, z standard normal, floored at 0 (the normal
// approximation of the binomial; the draws are independent, which leaves out the -1 / (n - 1)
// correlation between the pieces of one producer, whose sizes add up to N / n). Only the pieces
// (Transfers of phase "read input") change; a migration's state moves keep their size.
// Worked: 12.8 GB of 8-byte elements, 193 threads: m = 1.6e9 / 193^2 = 42,954, s = 0.48 %.
//
// uneven_pieces simulates `draws` such plans (seeds 1..draws, through `parallel`), time only;
// the even plan's time is the caller's prediction (predict has simulated it already).
#pragma once

#include <cstdint>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/uncertainty/prediction_interval.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

// s above. Throws std::invalid_argument unless tuples_per_piece > 0 and threads >= 1.
[[nodiscard]] double piece_relative_sd(double tuples_per_piece, int threads);

// `plan` with every "read input" Transfer's bytes scaled by max(0, 1 + relative_sd z), z drawn
// from a normal generator seeded with `seed` (the same seed gives the same plan).
[[nodiscard]] Plan with_uneven_pieces(const Plan& plan, double relative_sd, std::uint64_t seed);

struct UnevenPieces {
  double tuples_per_piece = 0.0;
  double relative_sd = 0.0;
  std::vector<double> time_s;    // one per draw, in seed order
  [[nodiscard]] double mean_s() const;
  [[nodiscard]] double min_s() const;
  [[nodiscard]] double max_s() const;
};

// For a shuffle, migration or migration-copy spec. Throws std::invalid_argument for another
// workload, or draws < 1.
[[nodiscard]] UnevenPieces uneven_pieces(const model::Topology& topology, const WorkloadSpec& spec, int draws,
                                         const ParallelFor& parallel = sequential_for);

}  // namespace numatwin::sim
