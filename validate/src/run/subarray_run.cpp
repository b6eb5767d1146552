#include "numatwin/validate/run/subarray_run.hpp"

#include <atomic>
#include <bit>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "numatwin/sim/plan/operator_plan.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "numatwin/validate/kernels/subarray_kernel.hpp"

namespace numatwin::validate {
namespace {

struct alignas(64) Cursor {
  std::atomic<std::uint64_t> next{0};
};

// Where everything is: chunk j (layout order) is cells [j N / C, (j + 1) N / C); chunk group g
// holds the layout positions [first_chunk[g], first_chunk[g] + chunks[g]).
struct Layout {
  std::uint64_t cells = 0;
  std::uint64_t chunks = 0;
  std::vector<sim::ThreadGroup> groups;
  std::vector<std::uint64_t> first_chunk;
  [[nodiscard]] std::uint64_t chunk_begin(std::uint64_t j) const { return cells * j / chunks; }
  // Worker w's first-touch range: its 1/k share of its group's region.
  [[nodiscard]] std::vector<std::size_t> bounds() const {
    std::vector<std::size_t> out;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      const std::uint64_t begin = chunk_begin(first_chunk[g]);
      const std::uint64_t end = chunk_begin(first_chunk[g] + static_cast<std::uint64_t>(groups[g].signature));
      const std::size_t k = groups[g].threads.size();
      for (std::size_t m = 0; m < k; ++m) out.push_back(begin + (end - begin) * m / k);
    }
    out.push_back(cells);
    return out;
  }
};

Layout layout_of(const sim::WorkloadSpec& spec) {
  const sim::DataSpec& d = spec.data;
  if (spec.threads < 1) throw std::invalid_argument("--threads must be >= 1");
  if (spec.element_bytes != 8)
    throw std::invalid_argument("--element-bytes " + std::to_string(spec.element_bytes) + ": the subarray kernel filters 8-byte doubles");
  if (!std::isfinite(d.records) || d.records < 1.0 || d.records != std::floor(d.records) || d.records > 1e13)
    throw std::invalid_argument("--records must be a whole number of cells >= 1");
  Layout l;
  l.cells = static_cast<std::uint64_t>(d.records);
  l.chunks = static_cast<std::uint64_t>(std::max(1, d.chunks));
  l.groups = sim::interchangeable_threads(spec);  // checks chunks, threads per chunk, selectivity
  std::uint64_t at = 0;
  for (const sim::ThreadGroup& g : l.groups) {
    l.first_chunk.push_back(at);
    at += static_cast<std::uint64_t>(g.signature);
  }
  return l;
}

}  // namespace

double subarray_memory_bytes(const sim::WorkloadSpec& spec) {
  return 2.0 * spec.data.records * 8.0 + static_cast<double>(std::max(1, spec.data.chunks)) * 64.0;
}

RealRun run_subarray_workload(const model::Topology& topology, const HostMap& host, const sim::WorkloadSpec& spec,
                              const RunOptions& options) {
  if (spec.kind != sim::WorkloadKind::kSubarray) throw std::invalid_argument("run_subarray_workload runs the subarray workload only");
  const Layout layout = layout_of(spec);
  check_free_memory(subarray_memory_bytes(spec), options);
  const TeamPlan plan = plan_team(topology, host, spec);
  ThreadTeam team(plan.os_cpus);
  const std::vector<std::size_t> bounds = layout.bounds();
  PlacedDataset array("array", layout.cells, sizeof(double), sim::DatasetKind::kPartitioned, spec.memory, host, options.huge_pages,
                      options.weighted_interleave_by);
  PlacedDataset result("result", layout.cells, sizeof(double), sim::DatasetKind::kPartitioned, spec.memory, host, options.huge_pages,
                      options.weighted_interleave_by);
  double* cells = array.as<double>();
  double* out = result.as<double>();
  array.initialise(team, [&](int, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) cells[i] = subarray_cell_value(i);
  }, bounds);
  result.initialise(team, [&](int, std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) out[i] = 0.0;
  }, bounds);
  std::unique_ptr<Cursor[]> cursors(new Cursor[layout.chunks]);

  // Worker w: its group and its place in it.
  std::vector<std::size_t> group_of(static_cast<std::size_t>(spec.threads));
  std::vector<std::size_t> member_of(static_cast<std::size_t>(spec.threads));
  for (std::size_t g = 0; g < layout.groups.size(); ++g) {
    for (std::size_t m = 0; m < layout.groups[g].threads.size(); ++m) {
      group_of[static_cast<std::size_t>(layout.groups[g].threads[m])] = g;
      member_of[static_cast<std::size_t>(layout.groups[g].threads[m])] = m;
    }
  }
  const double threshold = spec.data.selectivity;
  std::vector<SubarrayTotals> parts(static_cast<std::size_t>(spec.threads));
  RealRun run;
  bool first = true;
  time_repetitions(options, run, [&](std::vector<PhaseTime>& phases) {
    for (std::uint64_t j = 0; j < layout.chunks; ++j) cursors[j].next.store(0, std::memory_order_relaxed);
    const double t0 = now_seconds();
    team.run([&](int w) {
      const std::size_t g = group_of[static_cast<std::size_t>(w)];
      const std::size_t m = member_of[static_cast<std::size_t>(w)];
      const std::size_t k = layout.groups[g].threads.size();
      const auto count = static_cast<std::uint64_t>(layout.groups[g].signature);
      SubarrayTotals mine;
      for (std::uint64_t j = layout.first_chunk[g]; j < layout.first_chunk[g] + count; ++j) {
        const std::uint64_t cb = layout.chunk_begin(j);
        const std::uint64_t len = layout.chunk_begin(j + 1) - cb;
        mine += subarray_filter(cells, cb + len * m / k, cb + len * (m + 1) / k, threshold, out + cb, cursors[j].next);
      }
      parts[static_cast<std::size_t>(w)] = mine;
    });
    const double t1 = now_seconds();
    phases = {{"filter", t1 - t0}};
    SubarrayTotals all;
    for (const SubarrayTotals& p : parts) all += p;
    if (first) {
      run.checksum = all.bits ^ all.selected;
      first = false;
    } else if ((all.bits ^ all.selected) != run.checksum) {
      throw std::runtime_error("the subarray filter's result changed between repetitions");
    }
    return t1 - t0;
  });
  record_observations(plan, team, {&array, &result}, run);
  run.work = static_cast<double>(layout.cells);
  run.work_unit = "tuples";
  run.huge_pages = options.huge_pages;
  if (options.verify) {
    SubarrayTotals want;
    for (std::uint64_t i = 0; i < layout.cells; ++i) {
      const double v = subarray_cell_value(i);
      if (v < threshold) {
        ++want.selected;
        want.bits += std::bit_cast<std::uint64_t>(v);
      }
    }
    SubarrayTotals got;
    for (const SubarrayTotals& p : parts) got += p;
    SubarrayTotals stored;  // what the result buffers hold
    for (std::uint64_t j = 0; j < layout.chunks; ++j) {
      const std::uint64_t cb = layout.chunk_begin(j);
      const std::uint64_t n = cursors[j].next.load();
      if (n > layout.chunk_begin(j + 1) - cb) throw std::runtime_error("chunk " + std::to_string(j) + "'s result overflowed");
      for (std::uint64_t i = 0; i < n; ++i) {
        ++stored.selected;
        stored.bits += std::bit_cast<std::uint64_t>(out[cb + i]);
      }
    }
    for (const auto& [what, t] : {std::pair<const char*, SubarrayTotals>{"the workers' totals", got}, {"the result buffers", stored}}) {
      if (t.selected != want.selected || t.bits != want.bits) {
        throw std::runtime_error(std::string("the subarray filter: ") + what + " differ from the reference: " + std::to_string(t.selected) +
                                 " cells selected (" + std::to_string(want.selected) + " expected)");
      }
    }
    run.verified = true;
    run.verification = "matches the serial reference: " + std::to_string(want.selected) +
                       " cells below the selectivity, same bit-pattern sum in the workers' totals and in the result buffers";
  }
  return run;
}

}  // namespace numatwin::validate
