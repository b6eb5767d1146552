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
#include "numatwin/validate/run_comparison.hpp"
#include "numatwin/validate/validation_suite.hpp"

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
};

nlohmann::ordered_json to_json(const model::Topology& topology, const ValidationReport& report);
std::string to_csv(const ValidationReport& report);

// One kernel's details object (also printed by `validate run --json`).
nlohmann::ordered_json details_json(const KernelComparison& comparison);

}  // namespace numatwin::validate
