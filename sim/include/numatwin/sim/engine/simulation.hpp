// The fluid discrete-event engine. Threads execute their plans; at every event (a transfer or a
// compute finishing, a barrier releasing, a thread moving) the rates of all active transfers
// are recomputed by the bandwidth model, and time advances to the next completion:
//   dt = min( min over transfers of remaining_bytes / rate,  min over computes of end - now ).
// Between events rates are constant, so the timeline is exact for the fluid model.
//
// Cores: a thread runs on one core; the threads on a core share its miss buffers (bandwidth
// model). When more threads are bound to a core than it has hardware threads (a convoy after
// migrations), each gets threads_per_core / threads_on_core of its cycles: computes stretch
// and consumer-work limits shrink accordingly.
//
// No globals: a Simulation owns its model and buffers; two can run side by side. Deterministic:
// the same plan on the same topology gives the same result bit for bit.
#pragma once

#include "numatwin/model/bandwidth_model.hpp"
#include "numatwin/model/routing.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/plan.hpp"
#include "numatwin/sim/plan/result.hpp"

namespace numatwin::sim {

struct SimulationOptions {
  bool record_timeline = true;
  // Only the run's time is wanted (time_s, events, solver_rounds, stages): the per-event
  // bookkeeping that never feeds back into the time (resource utilisation and saturation, phases,
  // local / remote / per-step bytes, steps) is skipped and those fields stay empty or 0. The
  // events, and so time_s, are the same bit for bit as with the bookkeeping (the weights search
  // and its intervals read nothing else: docs/simulation-speed.md).
  bool time_only = false;
};

class Simulation {
 public:
  // The topology must outlive the simulation.
  explicit Simulation(const model::Topology& topology);

  // Throws std::invalid_argument for a plan naming a core or node that does not exist, and
  // std::logic_error if the plan can never finish (e.g. a transfer with no bandwidth at all).
  SimulationResult run(const Plan& plan, const SimulationOptions& options = {});

  [[nodiscard]] const model::BandwidthModel& bandwidth_model() const { return model_; }

 private:
  const model::Topology* topology_;
  model::Routing routing_;
  model::BandwidthModel model_;
};

}  // namespace numatwin::sim
