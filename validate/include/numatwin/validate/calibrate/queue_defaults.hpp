// The memory queue term of a machine that has no loaded-latency measurement, from the figures
// every mlc output or `validate measure` report has: a node's saturated local bandwidth C, its
// idle latency L0 and its cores' outstanding misses M.
//
// Closed loop at saturation. A node's n cores each keep M lines in flight; when they saturate the
// controller, Little's law on the whole node says the n M lines in flight over the latency L move
// C bytes per second: n M S = C L (S = line bytes). So the loaded latency at saturation is
//   L_sat = n M S / C,
// and the model's queue term at full utilisation (bandwidth_model.hpp: L = L0 + Q_mem u^e) is
//   Q_mem = L_sat - L0 = n M S / C - L0.
// It holds only if the point is capacity-bound: the cores at idle latency could move more,
// n M S / L0 > C (else the cores, not the controller, set the rate and nothing is queued).
// With Q_mem so, the model's closed loop reaches u = 1 exactly where the cores' misses run out,
// as a loaded-latency sweep at zero injection delay measures (mlc --loaded_latency, delay 0).
// M is the core's streaming concurrency, a property of the core, not of these data: for Intel
// cores from Sandy Bridge to Skylake the L2 superqueue's 16 entries, which track the streaming
// prefetcher's lines as well as demand misses (more than the 10-12 L1 fill buffers; Intel 64
// and IA-32 Architectures Optimization Reference Manual, L2 superqueue). The shape below
// saturation (queue_exponent) is not derived here; it keeps its prior.
#pragma once

#include <optional>

namespace numatwin::validate {

// Q_mem in ns, or nothing when the point is not capacity-bound (cores * miss_buffers * line /
// idle latency <= 1.05 * bandwidth: the cores could not have moved clearly more). Throws
// std::invalid_argument for non-positive inputs.
std::optional<double> saturation_queue_ns(int cores, int miss_buffers_per_core, int line_bytes,
                                          double saturated_bandwidth_gbps, double idle_latency_ns);

}  // namespace numatwin::validate
