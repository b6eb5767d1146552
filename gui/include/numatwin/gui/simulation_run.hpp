// One simulation run as the views read it: the topology it ran on, the workload, the result,
// which resource is which lane/controller, and "frames" of utilisation per shuffle step or at
// an instant. Pure data and functions: the app runs run_simulation() on a worker thread.
#pragma once

#include <QString>
#include <memory>
#include <vector>

#include "numatwin/gui/run_uncertainty.hpp"
#include "numatwin/model/topology.hpp"
#include "numatwin/sim/plan/result.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::gui {

// Resource index (into SimulationResult::resources) of every drawn element; -1 when it has none.
struct ResourceMap {
  std::vector<int> link_resource;        // per directed link
  std::vector<int> memory_resource;      // per node: its memory controller
  std::vector<int> forwarding_resource;  // per node: its forwarding limit (routers and some sockets)
};

struct SimulationRun {
  std::shared_ptr<const model::Topology> topology;
  sim::WorkloadSpec spec;
  sim::SimulationResult result;
  ResourceMap resources;
  // What the figures rest on (the machine's operator costs) and their 90 % interval and band.
  RunUncertainty uncertainty;

  // "shuffle naive tight, 32 threads dense, 12.8 GB";
  // "partitioned-aggregation migration ring tight, 32 threads dense, 100 M records, 1e+06 groups"
  [[nodiscard]] QString label() const;
  // Number of plan steps (shuffle steps); 0 when the result carries none.
  [[nodiscard]] int step_count() const { return static_cast<int>(result.steps.size()); }
  // Shuffled bytes over the run's time, GB/s (what `numatwin predict` prints); for operators
  // their input bytes over the time.
  [[nodiscard]] double shuffle_gbps() const;
  // The headline rate (GB/s shuffled, or M input tuples/s for operators) and its text with the
  // unit, "69.76 GB/s" or "412.3 M tuples/s".
  [[nodiscard]] double rate() const { return headline_rate(spec, result); }
  [[nodiscard]] QString rate_text() const;
};

// Simulates `spec` on the topology (recording the timeline), any workload (shuffles and
// operators), with the machine's operator costs (its topology file's, defaults for the rest:
// sim::machine_cost_basis; the spec's own costs are replaced), and its uncertainty with
// `interval_samples` cost samples (0: only the basis; run_uncertainty.hpp). Throws
// std::invalid_argument for a spec the topology cannot run (message names the field),
// model::InputError for a topology that fails check_topology, std::logic_error if the plan can
// never finish.
SimulationRun run_simulation(std::shared_ptr<const model::Topology> topology, const sim::WorkloadSpec& spec, int interval_samples = 64);

// What the view colours: one utilisation (0..1) per resource, and what it covers.
struct UtilisationFrame {
  std::vector<double> utilisation;  // per resource; empty: nothing simulated (grey lanes)
  double begin_s = 0.0;
  double end_s = 0.0;
  int step = -1;      // the shuffle step shown, -1 for the whole run
  QString caption;    // "step 0 (of 0-31), 0 s to 16.2 ms" or "whole run (mean), 518 ms"
};

// step in [0, step_count): the step's time-averaged utilisation; -1 (or out of range): the
// mean over the whole run.
UtilisationFrame frame_for_step(const SimulationRun& run, int step);
// The timeline segment covering t_s (the last one after the end).
UtilisationFrame frame_at_time(const SimulationRun& run, double t_s);

// Throughput of all memory controllers (sum of load = utilisation x capacity) over time, as a
// step function: one point at the start and one at the end of each timeline segment.
std::vector<ThroughputPoint> memory_throughput_series(const SimulationRun& run);

// One line for a view's subtitle: run label, frame caption, hottest resource, memory GB/s.
QString frame_summary(const SimulationRun& run, const UtilisationFrame& frame);

// Hottest resource of a frame (first on ties), or -1.
int hottest_resource(const UtilisationFrame& frame);

// "12.8 GB", "420 MB", "64 B".
QString format_bytes(double bytes);
// "518 ms", "16.2 ms", "2.41 s", "35 us".
QString format_seconds(double seconds);

}  // namespace numatwin::gui
