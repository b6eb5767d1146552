// The producer orders of a spec run with `--algorithm scheduled`, decided in one place for the
// CLI, the GUI and the validation suite: a shuffle's (and its family's) order as
// `numatwin schedule` designs it with the spec's own seed, a sort-merge join's for its merge, a
// migration's blocked order where the fluid model keeps it, else the ring (migration_schedule.hpp).
#pragma once

#include <optional>
#include <vector>

#include "numatwin/model/topology.hpp"
#include "numatwin/sim/search/migration_schedule.hpp"
#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct ScheduledOrders {
  std::vector<std::vector<int>> producer_orders;  // empty: the spec is not scheduled
  std::optional<MigrationBound> migration_bound;  // a migration's: which order and why
};

// Throws std::invalid_argument for a spec check_workload rejects (the design needs a placement
// the machine can take).
ScheduledOrders scheduled_orders(const model::Topology& topology, const WorkloadSpec& spec);

}  // namespace numatwin::sim
