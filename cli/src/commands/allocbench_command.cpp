#include "commands/allocbench_command.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "run/allocbench_arrivals.hpp"
#include "run/allocator_calibration.hpp"
#include "run/allocator_exec.hpp"
#include "numatwin/model/file_io.hpp"
#include "numatwin/model/topology_json.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/alloc/allocator_bench.hpp"
#include "numatwin/validate/run/run_support.hpp"
#include "report/progress.hpp"
#include "report/text_table.hpp"
#include "numatwin/model/bundled_io.hpp"

namespace numatwin::cli {

using Json = nlohmann::ordered_json;

namespace {

// The shared realloc at 1 KiB and the most threads measured, "N (T thr)"; "-" where not measured
// (one thread).
std::string shared_realloc_cell(const model::AllocatorCosts& costs, int threads) {
  const model::AllocatorCostAt at = model::allocator_cost_at(&costs, threads, 1024);
  return at.has_shared ? fmt::format("{:.0f} ({} thr)", at.shared_realloc_ns, threads) : std::string("-");
}

// The measured share of `request` byte blocks across two lines, "low..high %" ("-": not measured).
std::string line_split_cell(const model::AllocatorCosts& costs, std::int64_t request) {
  const model::LineSplitPoint* p = model::line_split_at(&costs, request);
  if (p == nullptr) return "-";
  return p->low_share == p->high_share ? fmt::format("{:.0f} %", 100.0 * p->low_share)
                                       : fmt::format("{:.0f}..{:.0f} %", 100.0 * p->low_share, 100.0 * p->high_share);
}

// The grid as a table: one row per items-per-miss k, one column per work units w; each cell the
// first miss, and the optional figures the grid has after it ("/"-separated, named in the header).
std::string dependent_miss_table(const model::DependentMissGrid& grid) {
  std::vector<const model::OptionalMissFigure*> present;
  std::string names = "first";
  for (const model::OptionalMissFigure& f : model::kOptionalMissFigures) {
    if (grid.points.front().*f.field) {
      present.push_back(&f);
      names += std::string(" / ") + f.name;
    }
  }
  std::vector<std::string> header = {"dependent miss ns, " + names + " (k items per miss)"};
  const std::vector<double> ws = model::grid_work_units(grid);
  for (double w : ws) header.push_back(fmt::format("w = {:g}", w));
  TextTable table(header);
  for (double k : model::grid_items_per_miss(grid)) {
    std::vector<std::string> row = {fmt::format("k = {:g}", k)};
    for (double w : ws) {
      std::string cell = fmt::format("{:.1f}", model::dependent_miss_ns(grid, k, w));
      for (const model::OptionalMissFigure* f : present) cell += fmt::format(" / {:.1f}", *model::dependent_figure_ns(grid, k, w, f->field));
      row.push_back(cell);
    }
    table.add_row(row);
  }
  return table.render() + fmt::format("work unit (one splitmix64 finaliser): {:.2f} ns\n", grid.work_unit_ns);
}

}  // namespace

void register_allocbench(CLI::App& validate_app) {
  struct Options {
    std::string allocator = "all";
    int threads = 0;
    double mib_per_thread = 256.0;
    int rounds = 3;
    bool json = false;
    std::string result_file;  // internal: a child writes its result here
    std::string calibrate;    // a topology to write the allocators' costs into
    std::string out;
    int repetitions = 5;
    std::string costs_file;  // internal: a child writes its allocator's costs here
    double llc_bytes = 0.0;  // internal: the calibrated topology's LLC, for the layout figures
    bool dependent_misses_only = false;
    ArrivalCliOptions arrivals;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = validate_app.add_subcommand(
      "allocbench", "Allocator microbenchmark (Durner et al.): time and memory overhead per allocator, one process each");
  cmd->add_option("--allocator", o->allocator, "all, glibc, jemalloc, tcmalloc or tbbmalloc")->capture_default_str();
  cmd->add_option("--threads", o->threads, "Threads (default: every usable CPU)")->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--mib-per-thread", o->mib_per_thread, "Requested bytes each thread holds at its peak, MiB")
      ->check(CLI::Range(1.0, 1e6))
      ->capture_default_str();
  cmd->add_option("--rounds", o->rounds, "Allocate-and-write / read-and-free rounds")->check(CLI::Range(1, 1000))->capture_default_str();
  cmd->add_flag("--json", o->json, "Print JSON");
  cmd->add_option("--result-file", o->result_file, "(internal) write one allocator's result here")->group("");
  cmd->add_option("--calibrate", o->calibrate,
                  "Measure each allocator's malloc, free, realloc and remote-free costs (1..--threads threads, sizes 16 B..64 KiB), "
                  "its overhead and its layout figures (scattered realloc and free, dependent write and read, 32 B..4 KiB), "
                  "and write them into this topology's /allocator_costs, with the dependent-miss grid (what a dependent miss costs by "
                  "the independent work around it) in /dependent_misses (saved to --out)");
  cmd->add_option("--out", o->out,
                  "With --calibrate: the topology file to write; with --arrivals: the results and RSS samples as JSON (atomically)");
  cmd->add_option("--repetitions", o->repetitions, "With --calibrate: repetitions of each cost point (the median is kept)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  cmd->add_flag("--dependent-misses-only", o->dependent_misses_only,
                "With --calibrate: measure only the dependent-miss grid (a few seconds) and write it into the topology's "
                "/dependent_misses, leaving /allocator_costs as it is");
  cmd->add_option("--costs-file", o->costs_file, "(internal) write one allocator's costs here")->group("");
  cmd->add_option("--llc-bytes", o->llc_bytes, "(internal) the LLC bytes of the topology being calibrated")->group("");
  add_arrival_options(*cmd, o->arrivals);
  cmd->callback([o] {
    if (o->arrivals.given()) return run_arrivals(o->arrivals, {o->allocator, o->json, o->out, o->result_file});
    const int threads = o->threads > 0 ? o->threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    validate::AllocatorBenchOptions bench;
    bench.threads = threads;
    bench.bytes_per_thread = o->mib_per_thread * 1024 * 1024;
    bench.rounds = o->rounds;
    validate::RunOptions limits;
    validate::check_free_memory(3.0 * bench.bytes_per_thread * threads, limits);  // allocators may hold up to ~3x
    AllocatorCalibrationOptions calibration{threads, o->mib_per_thread, o->rounds, o->repetitions, o->llc_bytes};
    if (!o->costs_file.empty()) {  // a child: one allocator's costs to the file
      ensure_allocator(o->allocator);
      write_allocator_costs_file(o->costs_file, validate::allocator_by_name(o->allocator).name, calibration);
      return;
    }
    if (!o->calibrate.empty() && o->out.empty()) throw std::invalid_argument("--calibrate needs --out (the topology file to write)");
    if (o->dependent_misses_only) {
      if (o->calibrate.empty()) throw std::invalid_argument("--dependent-misses-only needs --calibrate TOPOLOGY and --out FILE");
      model::Topology t = model::find_topology(o->calibrate);
      measure_dependent_misses(t, std::clamp(o->repetitions, 3, 9));
      model::save_topology(t, o->out);
      std::cout << dependent_miss_table(*t.dependent_misses) << "dependent-miss grid written to " << o->out << "\n";
      return;
    }
    if (!o->result_file.empty()) {  // a child: one allocator, result to the file
      ensure_allocator(o->allocator);
      model::write_file_atomically(o->result_file, validate::to_json(validate::run_allocator_bench(bench)).dump() + "\n");
      return;
    }
    std::vector<std::string> names;
    if (o->allocator == "all") {
      for (const validate::AllocatorInfo& a : validate::known_allocators()) names.push_back(a.name);
    } else {
      names.push_back(validate::allocator_by_name(o->allocator).name);
    }
    for (const std::string& name : names) (void)validate::require_allocator_library(validate::allocator_by_name(name));
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / fmt::format("numatwin-allocbench-{}", ::getpid());
    std::filesystem::create_directories(dir);
    if (!o->calibrate.empty()) {
      model::Topology t = model::find_topology(o->calibrate);
      const double llc = topology_llc_bytes(t);
      std::cerr << "numatwin: measuring the dependent-miss grid (one thread)\n";
      measure_dependent_misses(t, std::clamp(o->repetitions, 3, 9));
      TextTable table({"allocator", "malloc ns (16 B, 1 thr)", "free ns", "realloc ns (64 B)", "remote free ns", "overhead",
                       "scattered realloc / free ns (1 KiB)", "shared realloc ns (1 KiB)", "malloc after frees ns (32 B)",
                       "dependent write / read ns (1 KiB / 32 B)", "block read ns (1 KiB)", "24 B blocks across two lines"});
      for (const std::string& name : names) {
        std::cerr << "numatwin: measuring " << name << "\n";
        const std::string file = (dir / (name + "-costs.json")).string();
        const std::vector<std::string> args = {own_arguments().front(), "validate", "allocbench", "--allocator", name, "--threads",
                                               std::to_string(threads), "--mib-per-thread", fmt::format("{}", o->mib_per_thread),
                                               "--rounds", std::to_string(o->rounds), "--repetitions", std::to_string(o->repetitions),
                                               "--costs-file", file, "--llc-bytes", fmt::format("{:.0f}", llc)};
        const std::optional<int> status = run_in_child(name, args);
        if (status.value_or(1) != 0)
          throw std::runtime_error("the " + name + " run failed (exit status " + std::to_string(status.value_or(1)) + ")");
        const model::AllocatorCosts costs = read_allocator_costs_file(file);
        merge_allocator_costs(t, costs);
        const model::AllocatorCostAt small = model::allocator_cost_at(&costs, 1, 16);
        const model::AllocatorCostAt grow = model::allocator_cost_at(&costs, 1, 64);
        const model::AllocatorCostAt kib = model::allocator_cost_at(&costs, 1, 1024);
        table.add_row({costs.allocator, fmt::format("{:.1f}", small.malloc_ns), fmt::format("{:.1f}", small.free_ns),
                       fmt::format("{:.1f}", grow.realloc_ns), fmt::format("{:.1f}", small.remote_free_ns),
                       fmt::format("{:.3f}", costs.overhead_ratio),
                       fmt::format("{:.0f} / {:.0f}", kib.scattered_realloc_ns, kib.scattered_free_ns),
                       shared_realloc_cell(costs, threads), fmt::format("{:.1f}", model::allocator_cost_at(&costs, 1, 32).reuse_malloc_ns),
                       fmt::format("{:.1f} / {:.1f}", kib.dependent_write_ns, model::allocator_cost_at(&costs, 1, 32).dependent_read_ns),
                       kib.has_block_read ? fmt::format("{:.0f}", kib.block_read_ns) : std::string("not measured"),
                       line_split_cell(costs, 24)});
      }
      std::filesystem::remove_all(dir);
      model::save_topology(t, o->out);
      std::cout << table.render() << dependent_miss_table(*t.dependent_misses) << "allocator costs and the dependent-miss grid written to "
                << o->out << "\n";
      return;
    }
    std::vector<validate::AllocatorBenchResult> results;
    const ProgressBar bar;
    for (std::size_t i = 0; i < names.size(); ++i) {
      bar.update(static_cast<int>(i), static_cast<int>(names.size()), 0.0, names[i]);
      const std::string file = (dir / (names[i] + ".json")).string();
      std::vector<std::string> args = {own_arguments().front(), "validate", "allocbench", "--allocator", names[i],
                                       "--threads", std::to_string(threads), "--mib-per-thread", fmt::format("{}", o->mib_per_thread),
                                       "--rounds", std::to_string(o->rounds), "--result-file", file};
      // The child must start fresh (its own peak RSS): even glibc runs in a child.
      const std::optional<int> status = run_in_child(names[i], args);
      if (status.value_or(1) != 0) throw std::runtime_error("the " + names[i] + " run failed (exit status " + std::to_string(status.value_or(1)) + ")");
      std::ifstream in(file);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      results.push_back(validate::allocator_bench_from_json(nlohmann::json::parse(text)));
    }
    bar.update(static_cast<int>(names.size()), static_cast<int>(names.size()), 0.0, "done");
    bar.finish();
    std::filesystem::remove_all(dir);
    if (o->json) {
      Json out = Json::array();
      for (const auto& r : results) out.push_back(validate::to_json(r));
      std::cout << out.dump(2) << "\n";
      return;
    }
    std::cout << fmt::format("{} threads, {:g} MiB requested per thread at the peak, {} rounds\n", threads, o->mib_per_thread, o->rounds);
    TextTable table({"allocator", "alloc+write s", "read+free s", "M objects", "peak RSS MiB", "overhead", "verified"});
    for (const auto& r : results) {
      table.add_row({r.allocator, fmt::format("{:.3f}", r.alloc_write_seconds), fmt::format("{:.3f}", r.read_free_seconds),
                     fmt::format("{:.2f}", r.objects / 1e6), fmt::format("{:.0f}", r.peak_rss_bytes / 1048576.0),
                     fmt::format("{:.3f}", r.overhead), r.verified ? "yes" : "NO"});
    }
    std::cout << table.render();
    std::cout << "overhead = peak resident set / peak requested bytes\n";
  });
}

}  // namespace numatwin::cli
