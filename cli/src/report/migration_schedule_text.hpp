// What `numatwin schedule --workload migration` and `predict --workload migration --algorithm
// scheduled` say about a migration's order: the bound no order beats and the ring's time
// (sim/search/migration_schedule.hpp has the maths).
#pragma once

#include <string>

#include "numatwin/sim/search/migration_schedule.hpp"

namespace numatwin::cli {

// One sentence: which order runs tight and why (its gap to the bound), and loose when the loose
// runs were simulated.
std::string migration_schedule_verdict(const sim::MigrationBound& b);

}  // namespace numatwin::cli
