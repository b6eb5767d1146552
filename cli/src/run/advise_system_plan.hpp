// `advise`'s system part: the candidate allocators and the host's default pages from the command
// line, and the plan that applies a recommendation (sysctl and sysfs lines, LD_PRELOAD, numactl /
// taskset), in the order a user pastes them.
#pragma once

#include <string>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/search/advise_system.hpp"

namespace numatwin::cli {

// The allocators to rank: `list` ("calibrated": those the topology's /allocator_costs names, or
// all four known when it names none; "all"; or comma-separated names). Throws
// std::invalid_argument naming --allocators and the known names for an unknown one. `basis` says
// which it was.
std::vector<std::string> candidate_allocators(const model::Topology& t, const std::string& list, std::string& basis);

// The default page setting: "host" reads /sys/kernel/mm/transparent_hugepage/enabled (always ->
// on, madvise -> madvise, never -> off; unreadable -> madvise, Linux's usual default), or one of
// on, off, madvise. `basis` says where it came from.
model::HugePages default_huge_pages(const std::string& setting, std::string& basis);

// The lines that apply `c` (each with a comment), for a machine whose default is `os_default`;
// `balancing_varied` false leaves kernel.numa_balancing alone (with a comment saying why).
std::vector<std::string> system_apply_plan(const model::Topology& t, const sim::SystemCandidate& c,
                                           const sim::SystemSetting& os_default, bool balancing_varied);

}  // namespace numatwin::cli
