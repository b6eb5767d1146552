// The report of `validate run` and `validate suite`: JSON in the shape the GUI's Validator tab
// reads (docs/gui.md, "numatwin-validation-report" version 1: per kernel id, workload,
// algorithm, sync, threads, predicted and measured GB/s of work), each kernel with a "details"
// object (seconds, error, tuples/s, phases, repetitions, allocator, huge pages, verification,
// observed thread CPUs and pages per node, the model's bottleneck), and top-level "summary"
// (median and largest |error|, before and after the cost fit) and "cost_fit". Also CSV, one
// row per kernel.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/measure/cost_microbenchmarks.hpp"
#include "numatwin/validate/run/run_comparison.hpp"
#include "numatwin/validate/suite/validation_suite.hpp"

namespace numatwin::validate {

struct ValidationReport {
  std::string machine;  // the topology's name
  std::string host;     // free text: CPU model, kernel, THP, numa_balancing
  std::vector<KernelComparison> kernels;
  std::optional<CostFit> cost_fit;
  std::vector<double> cross_validated;  // per kernel, when the fit was cross-validated
  // Measured effects of allocators and transparent huge pages (suite --switches): see
  // validation_suite.hpp, switches_json.
  std::optional<nlohmann::ordered_json> switches;
  // Kernel costs measured rather than fitted (the core-to-core transfer), with how.
  std::optional<nlohmann::ordered_json> measured_costs;
  // The cost microbenchmarks (cost_microbenchmarks.hpp): their report section, and the derived
  // costs the fit started from (empty: it started from OperatorCosts' defaults).
  std::optional<nlohmann::ordered_json> operator_costs;
  std::vector<DerivedCost> derived_costs;
  std::string before_costs_source;  // where the fit's "before" costs came from, in words
};

// Per cost the fit may change: its value before the fit (measured or default), after it, and the
// factor after / before; `measured` when the microbenchmarks gave it (then low / high their range).
struct CostMove {
  std::string name;
  double before = 0.0;
  double after = 0.0;
  bool measured = false;
  double low = 0.0;
  double high = 0.0;
  [[nodiscard]] double factor() const { return before > 0.0 ? after / before : 0.0; }
};
std::vector<CostMove> cost_moves(const ValidationReport& report);

nlohmann::ordered_json to_json(const model::Topology& topology, const ValidationReport& report);
std::string to_csv(const ValidationReport& report);

// One kernel's details object (also printed by `validate run --json`).
nlohmann::ordered_json details_json(const KernelComparison& comparison);

}  // namespace numatwin::validate
