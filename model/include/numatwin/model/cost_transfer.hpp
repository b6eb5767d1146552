// Carrying a calibrated core's operator costs over to another machine (operator_costs.hpp: the
// origin "transferred"). The rule, per kind of cost, with S the source machine's first node with
// cores and T the target's (their frequency_ghz f_S, f_T):
//
//   core-bound loop costs (*_cycles_per_tuple, sort_cycles_per_comparison, select_cycles_per_value,
//   filter_cycles_per_cell)
//       the same cycles on T: a loop's instructions do not change with the machine, and the model
//       turns cycles into time with T's frequency (so the time scales by f_S / f_T);
//   latencies counted in core cycles (llc_hit_ns, private_hit_ns, atomic_update_ns,
//   shared_line_transfer_ns)
//       value x f_S / f_T: the same cycles at T's clock (a cache's or a locked instruction's
//       latency is specified in core cycles by vendors);
//   random_lines_in_flight
//       min(value, T's miss_buffers_per_core): a loop cannot keep more misses in flight than
//       the target core has fill buffers (the range's top too, after the widening below).
//   table_stream_share, filter_stream_share
//       the same share of T's miss buffers: what holds a loop's input loads back is the loop's
//       own work per line, which the rule carries in cycles (the range's top stays <= 1);
//   llc_usable_share
//       not carried: the share of its LLC that a table keeps belongs to the source's cache and to
//       whatever else runs there (on a cloud VM, the neighbours); T keeps its default.
//   Ranges: the source's range, then widened by the factor kTransferWidening (1.5) both ways,
//   since cores differ in what the rule does not see (instructions per cycle, cache sizes and
//   latencies in cycles, the uncore's clock); a calibration on T narrows them.
//
// Only costs the source actually has (measured, calibrated or itself transferred) are carried;
// a default stays a default on T, with its default range.
#pragma once

#include <string>

#include "numatwin/model/topology.hpp"

namespace numatwin::model {

inline constexpr double kTransferWidening = 1.5;

// `target` with operator_costs carried over from `source` by the rule above (the target's own
// operator_costs are replaced). Throws std::invalid_argument when either machine has no node
// with cores, or the source has no cost that is not a default.
Topology transfer_operator_costs(const Topology& source, const Topology& target);

}  // namespace numatwin::model
