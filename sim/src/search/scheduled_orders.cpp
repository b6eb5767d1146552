#include "numatwin/sim/search/scheduled_orders.hpp"

#include "numatwin/sim/schedule/shuffle_schedule.hpp"

namespace numatwin::sim {

ScheduledOrders scheduled_orders(const model::Topology& topology, const WorkloadSpec& spec) {
  ScheduledOrders out;
  if (spec.algorithm != ShuffleAlgorithm::kScheduled) return out;
  ScheduleOptions options;
  options.seed = spec.seed;
  if (spec.kind == WorkloadKind::kSortMergeJoin) {
    out.producer_orders = designed_producer_orders(topology, spec, options);  // the merge's fact pieces
  } else if (spec.kind == WorkloadKind::kMigration || spec.kind == WorkloadKind::kMigrationAndCopy) {
    check_workload(topology, spec);
    out.migration_bound = migration_bound(topology, spec, spec.sync == SyncMode::kLoose);
    out.producer_orders = scheduled_migration_orders(topology, spec, *out.migration_bound);
  } else if (is_shuffle_family(spec.kind)) {
    check_workload(topology, spec);
    out.producer_orders = designed_producer_orders(topology, spec, options);
  }
  return out;
}

}  // namespace numatwin::sim
