#include "run/allocator_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "numatwin/model/allocator_costs_json.hpp"
#include "numatwin/model/file_io.hpp"
#include "numatwin/model/input_error.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/alloc/allocator_bench.hpp"
#include "numatwin/validate/alloc/allocator_cost_bench.hpp"
#include "numatwin/validate/alloc/allocator_layout_bench.hpp"
#include "numatwin/validate/alloc/dependent_miss_bench.hpp"
#include "numatwin/validate/alloc/line_split_bench.hpp"
#include "numatwin/validate/measure/machine_measurement.hpp"

namespace numatwin::cli {

double topology_llc_bytes(const model::Topology& topology) {
  double best = 0.0;
  for (const model::Node& node : topology.nodes) best = std::max(best, node.llc_bytes());
  return best;
}

void write_allocator_costs_file(const std::string& file, const std::string& allocator, const AllocatorCalibrationOptions& o) {
  if (validate::built_with_address_sanitizer())
    throw std::invalid_argument("allocbench --calibrate: this numatwin is built with AddressSanitizer, whose malloc is not " +
                                allocator + "'s; use a release build (cmake --preset release)");
  // The overhead first: its peak resident set must be this process's first.
  validate::AllocatorBenchOptions overhead;
  overhead.threads = o.threads;
  overhead.bytes_per_thread = o.mib_per_thread * 1024 * 1024;
  overhead.rounds = o.rounds;
  const validate::AllocatorBenchResult peak = validate::run_allocator_bench(overhead);
  if (!peak.verified) throw std::runtime_error("allocator benchmark: what the readers read differs from what was written");
  validate::AllocatorCostBenchOptions bench;
  bench.max_threads = o.threads;
  bench.repetitions = o.repetitions;
  model::AllocatorCosts costs;
  costs.allocator = allocator;
  costs.points = validate::run_allocator_cost_bench(bench);
  validate::AllocatorLayoutBenchOptions layout;
  layout.max_threads = o.threads;
  layout.repetitions = std::min(o.repetitions, 3);
  if (o.llc_bytes > 0.0) layout.llc_bytes = o.llc_bytes;
  costs.layout = validate::run_allocator_layout_bench(layout);
  const validate::LineSplitBenchOptions splits;
  costs.line_splits = validate::run_line_split_bench(splits);
  costs.overhead_ratio = peak.overhead;
  const nlohmann::ordered_json host = validate::host_state();
  costs.host = fmt::format("{} ({})", host.value("hostname", std::string("?")), host.value("kernel", std::string("?")));
  costs.measured_at = validate::iso_time_now();
  costs.source = fmt::format(
      "numatwin validate allocbench --calibrate: costs at 1..{} threads, sizes 16 B..64 KiB, median of {} repetitions; "
      "overhead from {} rounds of {:g} MiB per thread (peak VmHWM over requested); layout figures (scattered realloc and "
      "free, dependent write and read) at sizes 32 B..4 KiB over {:g} MiB per thread, {} random accesses, {} sampled objects, "
      "LLC {:g} MiB, median of {} repetitions; line splits from runs of {} blocks per request size, plain and interleaved with 40-byte blocks",
      o.threads, o.repetitions, o.rounds, o.mib_per_thread, layout.bytes_per_thread / 1048576.0, layout.accesses, layout.max_sampled,
      layout.llc_bytes / 1048576.0, layout.repetitions, splits.blocks);
  model::write_file_atomically(file, model::allocator_costs_json({costs}).dump(2) + "\n");
}

model::AllocatorCosts read_allocator_costs_file(const std::string& file) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    throw model::InputError(file, "", "expected allocator costs as JSON");
  }
  const model::JsonReader root(j, "", file);
  std::vector<model::AllocatorCosts> all = model::read_allocator_costs(root);
  if (all.size() != 1) root.fail("expected the costs of exactly one allocator");
  return all.front();
}

void merge_allocator_costs(model::Topology& topology, const model::AllocatorCosts& costs) {
  model::check_allocator_costs(costs);
  auto it = std::find_if(topology.allocator_costs.begin(), topology.allocator_costs.end(),
                         [&](const model::AllocatorCosts& c) { return c.allocator == costs.allocator; });
  if (it != topology.allocator_costs.end()) {
    *it = costs;
  } else {
    topology.allocator_costs.push_back(costs);
  }
  const std::string pointer = "/allocator_costs/" + costs.allocator;
  std::vector<std::string>& measured = topology.provenance.measured;
  if (std::find(measured.begin(), measured.end(), pointer) == measured.end()) measured.push_back(pointer);
}

void measure_dependent_misses(model::Topology& topology, int rounds) {
  if (validate::built_with_address_sanitizer())
    throw std::invalid_argument("allocbench --calibrate: this numatwin is built with AddressSanitizer; its timings are not the machine's; "
                                "use a release build (cmake --preset release)");
  validate::DependentMissBenchOptions o;
  o.rounds = rounds;
  const double llc = topology_llc_bytes(topology);
  if (llc > 0.0) o.llc_bytes = llc;
  o.footprint_bytes = std::max(o.footprint_bytes, 8.0 * o.llc_bytes);
  model::DependentMissGrid grid = validate::run_dependent_miss_bench(o);
  const nlohmann::ordered_json host = validate::host_state();
  grid.host = fmt::format("{} ({})", host.value("hostname", std::string("?")), host.value("kernel", std::string("?")));
  grid.measured_at = validate::iso_time_now();
  grid.source = fmt::format(
      "numatwin validate allocbench --calibrate: validate/dependent_miss_bench.hpp, 1 thread, {} misses per cell over a random chain of "
      "{:g} MiB of lines, prefetch distance 32, LLC {:g} MiB, k in {{1, 2, 4, 8}} items per miss x w in {{0, 1, 3, 6}} splitmix64 "
      "finalisers per item, with and without the miss alternated over {} rounds, the fastest of each",
      o.misses, o.footprint_bytes / 1048576.0, o.llc_bytes / 1048576.0, o.rounds);
  model::check_dependent_miss_grid(grid);
  topology.dependent_misses = grid;
  std::vector<std::string>& measured = topology.provenance.measured;
  if (std::find(measured.begin(), measured.end(), "/dependent_misses") == measured.end()) measured.push_back("/dependent_misses");
}

}  // namespace numatwin::cli
