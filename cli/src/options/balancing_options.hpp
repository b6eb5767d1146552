// `predict --numa-balancing on`: back-to-back executions of an operator under Linux's automatic
// NUMA balancing (sim/search/numa_balancing.hpp), its options and its text and JSON.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/search/numa_balancing.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::cli {

struct BalancingOptions {
  std::string mode = "off";  // on | off
  int executions = 1;
  sim::NumaBalancingParameters parameters;

  void add_to(CLI::App* app);
  // Throws std::invalid_argument naming the option for a bad value.
  [[nodiscard]] bool on() const;
};

// The run with balancing on and, for comparison, the same executions with it off.
struct BalancingOutcome {
  sim::NumaBalancingRun on;
  double off_time_s = 0.0;  // executions x one execution's time
};

BalancingOutcome simulate_balancing(const model::Topology& t, const sim::WorkloadSpec& spec, const BalancingOptions& o);
std::string balancing_text(const BalancingOutcome& outcome, const BalancingOptions& o);
nlohmann::ordered_json balancing_json(const BalancingOutcome& outcome, const BalancingOptions& o);

}  // namespace numatwin::cli
