// The options every real run of `validate run` and `validate suite` takes (allocator, huge pages,
// NUMA balancing, weighted-interleave mechanism, repetitions, memory cap), and writing their report.
#pragma once

#include <atomic>
#include <string>

#include "numatwin/model/topology.hpp"
#include "numatwin/validate/suite/validation_report.hpp"
#include "numatwin/validate/run/workload_run.hpp"

namespace CLI {
class App;
}

namespace numatwin::cli {

struct RunFlags {
  std::string allocator = "glibc";
  std::string huge_pages = "on";
  std::string numa_balancing = "system";
  std::string weighted_interleave_by = "pages";
  int repetitions = 3;
  double memory_fraction = 0.7;

  void add(CLI::App* app);
  [[nodiscard]] validate::RunOptions options(const std::atomic<bool>* stop) const;
};

// The report as JSON to `out` and CSV to `csv` (each skipped when empty), written atomically.
void write_report(const model::Topology& t, const validate::ValidationReport& report, const std::string& out,
                  const std::string& csv);

}  // namespace numatwin::cli
