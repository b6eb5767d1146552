// What a workload's input is, so that every reported rate can say what it counts. A run's time
// turns it into the work rate (input per second); the simulator's bytes moved per second is the
// memory traffic, a different figure: a partitioned aggregation whose table no longer fits the
// cache moves more memory traffic per input tuple, so its traffic grows while its work rate falls.
//   shuffle, migration, migration & copy:  the bytes shuffled (total_bytes), in elements of
//                                          element_bytes (the study's 64-bit integers)
//   operators:                             records tuples of tuple_bytes, plus build_records for
//                                          the hash join and the sort-merge join (both sides are
//                                          read); the index join reads only S (records): its
//                                          index on R is prebuilt.
#pragma once

#include "numatwin/sim/workload/workload_spec.hpp"

namespace numatwin::sim {

struct WorkloadInput {
  double tuples = 0.0;  // elements for shuffles
  double bytes = 0.0;
};

[[nodiscard]] WorkloadInput workload_input(const WorkloadSpec& spec);

// The headline work rate of a run that took `time_s`: GB shuffled per second for the shuffle
// family, M input tuples per second for operators (0 for a time <= 0).
[[nodiscard]] double headline_rate(const WorkloadSpec& spec, double time_s);

}  // namespace numatwin::sim
