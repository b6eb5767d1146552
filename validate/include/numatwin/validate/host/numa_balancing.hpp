// Automatic NUMA balancing for real: the kernel's switch (/proc/sys/kernel/numa_balancing),
// turned on or off for one run and restored afterwards, and what the kernel did meanwhile, from
// the counters it keeps in /proc/vmstat (Documentation/admin-guide/sysctl/kernel.rst,
// "numa_balancing"; mm/vmstat.c):
//   numa_pte_updates        pages whose PTEs the scanner marked so that the next access faults
//   numa_hint_faults        NUMA hinting faults taken on those pages
//   numa_hint_faults_local  ... of which the page was already on the faulting CPU's node
//   numa_pages_migrated     pages the balancer moved to the faulting node
// The switch is system-wide: every process on the machine sees it while the run lasts. A kernel
// without balancing (no such file), a /proc/sys that is read-only (not root, a container) or a
// value the kernel refuses is an error naming the file and what was not changed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace numatwin::validate {

struct NumaBalancingCounters {
  std::uint64_t pte_updates = 0;
  std::uint64_t hint_faults = 0;
  std::uint64_t hint_faults_local = 0;
  std::uint64_t pages_migrated = 0;
};

// The counters now; nullopt (with `why`) when /proc/vmstat is missing or lacks them (a kernel
// built without CONFIG_NUMA_BALANCING).
std::optional<NumaBalancingCounters> read_numa_balancing_counters(std::string& why);
// after - before, field by field (counters only grow; a smaller value, after a wrap or a reset,
// counts from 0).
NumaBalancingCounters counters_between(const NumaBalancingCounters& before, const NumaBalancingCounters& after);

// /proc/sys/kernel/numa_balancing as text ("0" off, "1" normal, "2" memory tiering, "3" both),
// or nullopt (with `why`) when the kernel has none.
std::optional<std::string> numa_balancing_setting(std::string& why);

// Sets the switch for its lifetime and puts the previous value back when destroyed (also when the
// run throws). `on`: writes "1" unless the setting is already non-zero; off: writes "0". Throws
// std::runtime_error naming the file, the value and the reason when the kernel has no switch or
// the write fails; nothing has changed then.
class NumaBalancingSwitch {
 public:
  explicit NumaBalancingSwitch(bool on, std::string path = "/proc/sys/kernel/numa_balancing");
  ~NumaBalancingSwitch();
  NumaBalancingSwitch(const NumaBalancingSwitch&) = delete;
  NumaBalancingSwitch& operator=(const NumaBalancingSwitch&) = delete;

  [[nodiscard]] const std::string& previous() const { return previous_; }
  [[nodiscard]] const std::string& current() const { return current_; }
  [[nodiscard]] bool changed() const { return previous_ != current_; }

 private:
  std::string path_;
  std::string previous_;
  std::string current_;
};

}  // namespace numatwin::validate
