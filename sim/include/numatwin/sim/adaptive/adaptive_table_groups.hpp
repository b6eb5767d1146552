// Table groups (TGP) in the Data Placer (Psaroudakis et al., docs/adaptive.md "Table groups"):
// co-partitioned tables move together, so a co-partitioned join stays co-partitioned.
//
// A group is the tables with the same non-empty `group` name, in table order. Its tables are
// aligned (co-partitioned, adaptive_query_plan.hpp) when every one has the same number n of live
// parts and, for every i < n, the i-th live part (in part order) of each is on the same socket.
// The placer's unit of placement is then
//   - a part of a table in no group: that part alone;
//   - for an aligned group: the i-th live parts of all its tables together (one unit per i),
// and every operation on a unit is carried out on all its parts at once (one layout switch):
//   move       every member part goes to the cold socket;
//   partition  every member part is split in two, the second halves appended in member order, so
//              the new halves are the last live part of each table and on the same socket;
//   merge      every table of the group is merged onto the same socket (one part each).
// Each keeps the group aligned. A unit's CPU share, memory throughput and pages are the sums over
// its parts (they were created together, so their histories cover the same time).
// A group must start aligned (same part count and socket for all its tables): the engine
// rejects a scenario whose group does not.
#pragma once

#include <string>
#include <vector>

#include "numatwin/sim/adaptive/adaptive_scenario.hpp"

namespace numatwin::sim {

struct LivePart {
  int part = 0;  // engine part index
  int table = 0;
  int socket = 0;
};

// The tables of `table`'s group in table order (just `table` when it has none).
std::vector<int> adaptive_group_tables(const AdaptiveScenario& sc, int table);

// Whether every group's tables are aligned in `live` (parts in part order).
bool adaptive_groups_aligned(const AdaptiveScenario& sc, const std::vector<LivePart>& live);

// The placer's units over `live` (parts in part order): engine part indices, each unit's parts
// in table order; units ordered by their first part. Throws std::logic_error when a group is not
// aligned.
std::vector<std::vector<int>> adaptive_placement_units(const AdaptiveScenario& sc,
                                                       const std::vector<LivePart>& live);

}  // namespace numatwin::sim
