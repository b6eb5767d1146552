// Runs a MaxMinProblem through SimGrid's network model (its lmm max-min solver, driven via the
// public s4u API) and returns the rates SimGrid gives, for differential testing.
//
// Mapping: resource r -> a SHARED link of bandwidth c_r and latency 0; flow f -> one mailbox
// communication between its own ordered host pair whose route lists f's links, each repeated
// a_fr times (SimGrid adds every route element to the link's constraint with weight 1, so a
// link listed k times is a coefficient k); a finite rate bound -> Comm::set_rate, a bound on the
// lmm variable. (Mailbox comms with one sending and one receiving actor per host, because
// SimGrid 3.32 ignores set_rate on host-to-host "sendto" comms.)
// Not expressible: non-integer coefficients (a route element always weighs 1), weights (a
// comm's sharing penalty is latency + weight-S / bandwidth, not settable per comm), flows with
// no link (SimGrid asserts a route exists), zero capacities, and a zero rate bound (SimGrid reads
// rate 0 as "no bound"). Those are covered by the exact oracle of
// tests/model/maxmin_solver_test.cpp; simgrid_max_min_rates rejects them.
//
// Measurement: every comm is posted at t = 0 with a payload that cannot finish before t = T; at T
// the senders read each comm's remaining bytes, rate = (payload - remaining) / (T - start). No
// comm starts, ends or changes rate in (0, T) (latency 0: no latency phase), so the rate is
// SimGrid's max-min solution for the whole interval, read to ~1e-15 relative.
//
// SimGrid 3.32 allows one engine per process and its engine never resets, so each call forks:
// the child builds the platform, runs the engine, writes the rates into a pipe and _exits.
// Under AddressSanitizer the child uses thread contexts (SimGrid's default stack switching
// confuses ASan).
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/maxmin_solver.hpp"

namespace numatwin::simgrid_diff {

struct SimGridRunOptions {
  // true: the plain max-min configuration (CM02, weight-S 0, no cross-traffic, factors 1, tight
  // precision). false: SimGrid's defaults (LV08 model), for the negative control.
  bool plain_max_min = true;
  double measure_time_s = 1.0;  // T above, in simulated seconds
};

// Throws std::invalid_argument for problems SimGrid cannot express (see above) and
// std::runtime_error when the child fails (its stderr is left visible).
std::vector<double> simgrid_max_min_rates(const model::MaxMinProblem& problem,
                                          const SimGridRunOptions& options = {});

// The --cfg/--log arguments used for plain max-min (also printed by the tests).
std::vector<std::string> plain_max_min_arguments();

}  // namespace numatwin::simgrid_diff
