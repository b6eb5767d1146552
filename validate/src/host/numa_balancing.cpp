#include "numatwin/validate/host/numa_balancing.hpp"

#include "kernel_files.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace numatwin::validate {
namespace {

void write_value(const std::string& path, const std::string& value) {
  if (const std::string why = write_kernel_value(path, value); !why.empty()) {
    throw std::runtime_error(path + ": " + why + ": numa_balancing not changed");
  }
}

}  // namespace

std::optional<NumaBalancingCounters> read_numa_balancing_counters(std::string& why) {
  std::ifstream in("/proc/vmstat");
  if (!in) {
    why = "/proc/vmstat cannot be read";
    return std::nullopt;
  }
  NumaBalancingCounters c;
  int found = 0;
  std::string name;
  std::uint64_t value = 0;
  while (in >> name >> value) {
    if (name == "numa_pte_updates") {
      c.pte_updates = value, ++found;
    } else if (name == "numa_hint_faults") {
      c.hint_faults = value, ++found;
    } else if (name == "numa_hint_faults_local") {
      c.hint_faults_local = value, ++found;
    } else if (name == "numa_pages_migrated") {
      c.pages_migrated = value, ++found;
    }
  }
  if (found < 4) {
    why = "/proc/vmstat has no numa_hint_faults / numa_pages_migrated (kernel without CONFIG_NUMA_BALANCING)";
    return std::nullopt;
  }
  return c;
}

NumaBalancingCounters counters_between(const NumaBalancingCounters& before, const NumaBalancingCounters& after) {
  auto d = [](std::uint64_t a, std::uint64_t b) { return b >= a ? b - a : b; };
  return NumaBalancingCounters{d(before.pte_updates, after.pte_updates), d(before.hint_faults, after.hint_faults),
                               d(before.hint_faults_local, after.hint_faults_local),
                               d(before.pages_migrated, after.pages_migrated)};
}

std::optional<std::string> numa_balancing_setting(std::string& why) {
  const std::optional<std::string> value = read_first_line("/proc/sys/kernel/numa_balancing");
  if (!value) why = "/proc/sys/kernel/numa_balancing is missing: this kernel has no automatic NUMA balancing";
  return value;
}

NumaBalancingSwitch::NumaBalancingSwitch(bool on, std::string path) : path_(std::move(path)) {
  const std::optional<std::string> value = read_first_line(path_);
  if (!value) throw std::runtime_error(path_ + " is missing or unreadable: this kernel has no automatic NUMA balancing; not changed");
  previous_ = *value;
  current_ = previous_;
  const bool is_on = previous_ != "0";
  if (on == is_on) return;
  current_ = on ? "1" : "0";
  write_value(path_, current_);
}

NumaBalancingSwitch::~NumaBalancingSwitch() {
  if (previous_ == current_) return;
  try {
    write_value(path_, previous_);
  } catch (const std::exception&) {
    // Destructors must not throw; the run's report says the setting it ran with.
  }
}

}  // namespace numatwin::validate
