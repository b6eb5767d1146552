#include "options/run_flags.hpp"

#include <CLI/CLI.hpp>

#include "numatwin/model/file_io.hpp"
#include "numatwin/model/tlb.hpp"

namespace numatwin::cli {

void RunFlags::add(CLI::App* app) {
  app->add_option("--allocator", allocator, "glibc, jemalloc, tcmalloc or tbbmalloc (LD_PRELOAD; release builds)")
      ->capture_default_str();
  app->add_option("--huge-pages", huge_pages,
                  "on / madvise: madvise(MADV_HUGEPAGE) on every placed dataset, as `validate measure` does for the "
                  "figures the model is calibrated on (the allocator's heap follows the system's "
                  "transparent_hugepage setting, which is recorded); off: MADV_NOHUGEPAGE. The prediction uses the "
                  "setting the run gets as recorded: on with THP always, madvise with THP madvise, off with never")
      ->check(CLI::IsMember({"on", "off", "madvise"}))
      ->capture_default_str();
  app->add_option("--numa-balancing", numa_balancing,
                  "system: leave automatic NUMA balancing as it is; on / off: switch /proc/sys/kernel/numa_balancing "
                  "for the run (root; system-wide while it lasts) and restore it; the kernel's hint faults and page "
                  "migrations during the run are reported either way")
      ->check(CLI::IsMember({"system", "on", "off"}))
      ->capture_default_str();
  app->add_option("--weighted-interleave-by", weighted_interleave_by,
                  "with --memory-policy weighted-interleave:...: pages: every worker places its range's pages in the "
                  "kernel's layout, page by page (any kernel, per-node vectors too); kernel: the kernel's own "
                  "MPOL_WEIGHTED_INTERLEAVE (Linux 6.9 or later, one vector) with /sys/kernel/mm/mempolicy/"
                  "weighted_interleave/nodeN set for the run (root; system-wide while it lasts) and restored")
      ->check(CLI::IsMember({"pages", "kernel"}))
      ->capture_default_str();
  app->add_option("--repetitions", repetitions, "Timed repetitions after one warm-up (the median is reported)")
      ->check(CLI::Range(1, 100))
      ->capture_default_str();
  app->add_option("--memory-fraction", memory_fraction, "Refuse runs needing more than this fraction of free memory")
      ->check(CLI::Range(0.01, 0.95))
      ->capture_default_str();
}

validate::RunOptions RunFlags::options(const std::atomic<bool>* stop) const {
  validate::RunOptions o;
  o.repetitions = repetitions;
  o.huge_pages = huge_pages != "off";
  o.huge_pages_setting = *model::parse_huge_pages(huge_pages);
  if (numa_balancing != "system") o.numa_balancing = numa_balancing == "on";
  o.weighted_interleave_by = weighted_interleave_by == "kernel" ? validate::WeightedInterleaveBy::kKernel
                                                                : validate::WeightedInterleaveBy::kPages;
  o.memory_fraction = memory_fraction;
  o.stop = stop;
  return o;
}

void write_report(const model::Topology& t, const validate::ValidationReport& report, const std::string& out,
                  const std::string& csv) {
  if (!out.empty()) model::write_file_atomically(out, validate::to_json(t, report).dump(2) + "\n");
  if (!csv.empty()) model::write_file_atomically(csv, validate::to_csv(report));
}

}  // namespace numatwin::cli
