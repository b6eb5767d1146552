#include "run/advise_system_plan.hpp"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "numatwin/sim/search/advise.hpp"
#include "numatwin/validate/kernels/allocator.hpp"
#include "numatwin/validate/host/huge_pages_state.hpp"

namespace numatwin::cli {

std::vector<std::string> candidate_allocators(const model::Topology& t, const std::string& list, std::string& basis) {
  std::vector<std::string> out;
  const auto all = [&] {
    for (const validate::AllocatorInfo& a : validate::known_allocators()) out.push_back(a.name);
  };
  if (list == "calibrated") {
    for (const validate::AllocatorInfo& a : validate::known_allocators())
      if (model::find_allocator_costs(t.allocator_costs, a.name) != nullptr) out.push_back(a.name);
    if (out.empty()) {
      all();
      basis = "all four known (the topology's /allocator_costs names none: their costs are the model's defaults)";
    } else {
      basis = "those the topology's /allocator_costs calibrates";
    }
    return out;
  }
  if (list == "all") {
    all();
    basis = "all four known (--allocators all)";
    return out;
  }
  std::stringstream in(list);
  std::string name;
  while (std::getline(in, name, ',')) {
    if (name.empty()) throw std::invalid_argument("--allocators " + list + ": an empty name");
    try {
      out.push_back(validate::allocator_by_name(name).name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("--allocators: " + std::string(e.what()));
    }
  }
  if (out.empty()) throw std::invalid_argument("--allocators: expected calibrated, all or a comma-separated list of names");
  basis = "given (--allocators " + list + ")";
  return out;
}

model::HugePages default_huge_pages(const std::string& setting, std::string& basis) {
  if (setting != "host") {
    const std::optional<model::HugePages> h = model::parse_huge_pages(setting);
    if (!h) throw std::invalid_argument("--default-huge-pages " + setting + ": expected host, on, off or madvise");
    basis = "given (--default-huge-pages " + setting + ")";
    return *h;
  }
  const validate::TransparentHugePages thp = validate::read_transparent_huge_pages();
  if (thp.enabled == "always" || thp.enabled == "madvise" || thp.enabled == "never") {
    basis = "as this host has it (transparent_hugepage/enabled [" + thp.enabled + "])";
    return thp.enabled == "always" ? model::HugePages::kOn : thp.enabled == "never" ? model::HugePages::kOff : model::HugePages::kMadvise;
  }
  basis = "madvise, Linux's usual default (transparent_hugepage/enabled unreadable here)";
  return model::HugePages::kMadvise;
}

namespace {

std::string thp_enabled(model::HugePages h) {
  return h == model::HugePages::kOn ? "always" : h == model::HugePages::kOff ? "never" : "madvise";
}
std::string thp_defrag(model::HugePages h) {
  return h == model::HugePages::kOn ? "defer+madvise" : h == model::HugePages::kOff ? "never" : "madvise";
}

}  // namespace

std::vector<std::string> system_apply_plan(const model::Topology& t, const sim::SystemCandidate& c,
                                           const sim::SystemSetting& os_default, bool balancing_varied) {
  std::vector<std::string> lines;
  const sim::WorkloadSpec& s = c.placement.spec;
  lines.push_back("# 1. system-wide settings (root; they hold until reboot or until set back):");
  if (balancing_varied || os_default.numa_balancing != c.numa_balancing) {
    lines.push_back(fmt::format("sudo sysctl -w kernel.numa_balancing={}   # automatic NUMA balancing {}{}", c.numa_balancing ? 1 : 0,
                                c.numa_balancing ? "on: the kernel moves first-touch pages to the node of the thread using them"
                                                 : "off: pages stay where the memory policy put them",
                                c.numa_balancing == os_default.numa_balancing ? " (the default as given)" : ""));
  } else {
    lines.push_back("# kernel.numa_balancing: left as it is (not varied: it needs several NUMA nodes, an operator and --executions > 1)");
  }
  const bool same_pages = s.huge_pages == os_default.huge_pages;
  lines.push_back(fmt::format("echo {} | sudo tee /sys/kernel/mm/transparent_hugepage/enabled   # huge pages {}: {}{}", thp_enabled(s.huge_pages),
                              model::huge_pages_name(s.huge_pages),
                              s.huge_pages == model::HugePages::kOn    ? "2 MiB pages for every buffer, the allocator's heap too"
                              : s.huge_pages == model::HugePages::kOff ? "4 KiB pages only"
                                                                        : "2 MiB pages only where the program madvises",
                              same_pages ? " (the default: nothing to change)" : ""));
  lines.push_back(fmt::format("echo {} | sudo tee /sys/kernel/mm/transparent_hugepage/defrag    # {}", thp_defrag(s.huge_pages),
                              s.huge_pages == model::HugePages::kOn
                                  ? "compact in the background, stall for it only on madvised buffers"
                              : s.huge_pages == model::HugePages::kOff ? "never compact for huge pages"
                                                                        : "compact (and stall) only for madvised buffers"));
  lines.push_back("# 2. environment of the program:");
  if (s.allocation == sim::Allocation::kPreallocated || s.allocator == "glibc") {
    lines.push_back(s.allocation == sim::Allocation::kPreallocated
                        ? "# allocator: any (the workload preallocates: malloc is not on its path); no LD_PRELOAD"
                        : "unset LD_PRELOAD   # glibc malloc, the default");
  } else {
    const validate::AllocatorInfo& info = validate::allocator_by_name(s.allocator);
    const std::optional<std::string> path = validate::find_allocator_library(info);
    if (path) {
      lines.push_back("export LD_PRELOAD=" + *path + "   # " + s.allocator + " instead of glibc malloc");
    } else {
      lines.push_back("sudo apt-get install " + info.package + "   # " + s.allocator + " is not installed here (no " + info.library + ")");
      lines.push_back("export LD_PRELOAD=" + info.library + "   # " + s.allocator + " instead of glibc malloc (after the install)");
    }
  }
  // The OpenMP variables belong to the environment: before the command they apply to.
  std::vector<std::string> run;
  for (const std::string& line : sim::apply_plan(t, s)) {
    if (line.rfind("export ", 0) == 0) {
      lines.push_back(line + "   # OpenMP programs: the same threads and CPUs");
    } else {
      run.push_back(line);
    }
  }
  lines.push_back("# 3. the run (threads and memory policy):");
  for (const std::string& line : run) lines.push_back(line);
  return lines;
}

}  // namespace numatwin::cli
