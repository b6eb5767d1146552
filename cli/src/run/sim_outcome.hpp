// What `predict`, `compare` and `sweep` share: one simulated workload with its energy and the
// rates it reports (each named by what it counts), its JSON and table cells.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/engine/energy_estimate.hpp"
#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/sim/engine/simulation.hpp"
#include "numatwin/sim/workload/workload_input.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::cli {

struct Outcome {
  sim::WorkloadSpec spec;
  sim::SimulationResult result;
  sim::PlanReport report;
  sim::EnergyEstimate energy;  // of the memory traffic (energy_estimate.hpp)
  std::string energy_basis;    // what the energy figures rest on
  std::string tlb_basis;       // what the translation costs rest on (model/tlb.hpp)
  // The machine file's figures that are placeholders, not measured (its provenance: a discovered
  // skeleton's, or a calibration's parameters that the data did not determine).
  std::vector<std::string> placeholders;
  // Every rate says what it counts (sim/workload/workload_input.hpp): the work rate is the workload's input
  // per second (shuffles: bytes shuffled; operators: input tuples, both sides of a join); memory
  // traffic is every byte the run moved per second (state moves, table misses, partition writes).
  [[nodiscard]] double input_gbps() const { return sim::workload_input(spec).bytes / result.time_s / 1e9; }
  [[nodiscard]] double input_mtuples_per_s() const { return sim::workload_input(spec).tuples / result.time_s / 1e6; }
  [[nodiscard]] double memory_traffic_gbps() const { return result.memory_traffic_gbps(); }
};

// Simulates `spec` (timeline recorded when asked) and estimates its energy.
Outcome simulate(const model::Topology& t, const sim::WorkloadSpec& spec, bool timeline);
// "machine: 2 figures are placeholders, not measured (...)", or "" when there are none.
std::string placeholders_text(const Outcome& o);
// "pages: huge pages on (2 MiB pages for every buffer); tlb: ...": the page setting and the TLB
// figures' basis.
std::string pages_text(const model::Topology& t, model::HugePages setting);
// "shuffle ring tight", "partitioned-aggregation migration ring tight", "hash-join radix", ...
std::string label(const sim::WorkloadSpec& s);
nlohmann::ordered_json summary_json(const Outcome& o);
// summary_json plus every resource, every step and (when asked) the timeline.
nlohmann::ordered_json detail_json(const Outcome& o, bool timeline);
// Table columns `before`, then the rates, each named by what it counts (operators: input tuples
// and bytes per second; shuffles: bytes shuffled per second; both: memory traffic), then `after`.
std::vector<std::string> with_rate_columns(std::vector<std::string> before, bool operators, const std::vector<std::string>& after);
// The cells of those columns for one outcome.
std::vector<std::string> with_rates(std::vector<std::string> before, const Outcome& o, bool operators,
                                    const std::vector<std::string>& after);
std::string busiest_text(const sim::SimulationResult& r);
std::string bottleneck_text(const sim::SimulationResult& r);
// What held the working threads back (SimulationResult::bound), largest share first: "the working
// threads were held by their miss buffers (...) 85.0%, their cores (compute) 15.0% of their time".
std::string bound_text(const sim::SimulationResult& r);
// predict's bottleneck line: the resource saturated longest and for how long, or that none
// saturated; then bound_text.
std::string bottleneck_line(const sim::SimulationResult& r);
// The headline rate: GB/s shuffled for shuffles, M input tuples/s for operators.
double headline_rate(const sim::WorkloadSpec& spec, const sim::SimulationResult& result);

}  // namespace numatwin::cli
