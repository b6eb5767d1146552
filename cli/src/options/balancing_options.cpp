#include "options/balancing_options.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "report/text_table.hpp"

namespace numatwin::cli {
namespace {

// "4 KiB", "2 MiB", or bytes when neither.
std::string page_text(double bytes) {
  if (bytes == 4096.0) return "4 KiB";
  if (bytes == 2097152.0) return "2 MiB";
  if (bytes == 1073741824.0) return "1 GiB";
  return fmt::format("{:g}-byte", bytes);
}

}  // namespace

void BalancingOptions::add_to(CLI::App* app) {
  app->add_option("--numa-balancing", mode,
                  "Operators: on: predict --executions back-to-back runs under Linux's automatic NUMA balancing "
                  "(pages of one worker move to its node as the scanner passes them); off: no balancing")
      ->capture_default_str();
  app->add_option("--executions", executions, "With --numa-balancing on: back-to-back executions")->capture_default_str();
  app->add_option("--balancing-scan-delay-ms", parameters.scan_delay_ms, "numa_balancing_scan_delay_ms (Linux default)")
      ->capture_default_str();
  app->add_option("--balancing-scan-period-ms", parameters.scan_period_min_ms,
                  "numa_balancing_scan_period_min_ms (Linux default)")
      ->capture_default_str();
  app->add_option("--balancing-scan-size-mb", parameters.scan_size_mb, "numa_balancing_scan_size_mb (Linux default)")
      ->capture_default_str();
  app->add_option("--balancing-fault-us", parameters.hinting_fault_us,
                  "Cost of one NUMA hinting fault to the faulting thread (a default, not measured)")
      ->capture_default_str();
  app->add_option("--balancing-page-bytes", parameters.page_bytes,
                  "Bytes a hinting fault covers (default 0: the run's pages, 2097152 with --huge-pages on or madvise, 4096 off)")
      ->capture_default_str();
}

bool BalancingOptions::on() const {
  if (mode != "on" && mode != "off") throw std::invalid_argument("--numa-balancing must be on or off, not \"" + mode + "\"");
  if (mode == "off" && executions != 1) throw std::invalid_argument("--executions needs --numa-balancing on");
  return mode == "on";
}

BalancingOutcome simulate_balancing(const model::Topology& t, const sim::WorkloadSpec& spec, const BalancingOptions& o) {
  BalancingOutcome out;
  out.on = sim::simulate_numa_balancing(t, spec, o.parameters, o.executions);
  out.off_time_s = out.on.unbalanced_execution_s * o.executions;
  return out;
}

std::string balancing_text(const BalancingOutcome& outcome, const BalancingOptions& o) {
  const sim::NumaBalancingRun& r = outcome.on;
  const sim::NumaBalancingParameters& p = o.parameters;
  std::string out = fmt::format(
      "automatic NUMA balancing, {} execution{} back to back: scan {:g} MB every {:g} ms after {:g} ms (Linux's "
      "scanner at its fastest for {:.3g} GB of data; the kernel slows it when faults are local, which the model "
      "does not), hinting fault {:g} us (default, not measured) per {} page ({})\n",
      o.executions, o.executions == 1 ? "" : "s", p.scan_size_mb, r.scan_period_ms, p.scan_delay_ms, r.rss_bytes / 1e9, p.hinting_fault_us,
      page_text(r.page_bytes), p.page_bytes > 0.0 ? "--balancing-page-bytes" : "the run's pages: --huge-pages");
  out += fmt::format("  pages that can move: {:.3g} GB (partitioned and private data not on its worker's node; shared "
                     "structures and interleaved, bound or preferred pages stay)\n",
                     r.movable_bytes / 1e9);
  TextTable table({"execution", "start s", "time s", "moved MB", "hinting faults", "LAR"});
  const std::size_t n = r.executions.size();
  for (std::size_t k = 0; k < n; ++k) {
    if (n > 12 && k >= 6 && k + 3 < n) {
      if (k == 6) table.add_row({"...", "", "", "", "", ""});
      continue;
    }
    const sim::BalancedExecution& e = r.executions[k];
    table.add_row({std::to_string(k + 1), fmt::format("{:.4g}", e.start_s), fmt::format("{:.4g}", e.time_s),
                   fmt::format("{:.4g}", e.migrated_bytes / 1e6), fmt::format("{:.0f}", e.hinting_faults),
                   fmt::format("{:.3f}", e.local_access_ratio)});
  }
  out += table.render();
  const double on = r.total_time_s();
  out += fmt::format("  in all: {:.4g} s with balancing, {:.4g} s without ({:+.1f} %), {:.4g} MB moved\n", on,
                     outcome.off_time_s, 100.0 * (on / outcome.off_time_s - 1.0), r.migrated_bytes() / 1e6);
  return out;
}

nlohmann::ordered_json balancing_json(const BalancingOutcome& outcome, const BalancingOptions& o) {
  const sim::NumaBalancingRun& r = outcome.on;
  nlohmann::ordered_json executions = nlohmann::ordered_json::array();
  for (const sim::BalancedExecution& e : r.executions) {
    executions.push_back({{"start_s", e.start_s},
                          {"time_s", e.time_s},
                          {"migrated_bytes", e.migrated_bytes},
                          {"hinting_faults", e.hinting_faults},
                          {"local_access_ratio", e.local_access_ratio}});
  }
  const sim::NumaBalancingParameters& p = o.parameters;
  return {{"scan_delay_ms", p.scan_delay_ms},
          {"scan_period_ms", r.scan_period_ms},
          {"scan_size_mb", p.scan_size_mb},
          {"hinting_fault_us", p.hinting_fault_us},
          {"hinting_fault_basis", "default, not measured"},
          {"page_bytes", r.page_bytes},
          {"page_bytes_basis", p.page_bytes > 0.0 ? "--balancing-page-bytes" : "the run's pages (--huge-pages)"},
          {"rss_bytes", r.rss_bytes},
          {"movable_bytes", r.movable_bytes},
          {"migrated_bytes", r.migrated_bytes()},
          {"time_s", r.total_time_s()},
          {"time_s_without_balancing", outcome.off_time_s},
          {"executions", executions}};
}

}  // namespace numatwin::cli
